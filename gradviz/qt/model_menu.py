"""Model files in the File menu: the bundled examples' submenu, and the question a
file the user picked must pass before it runs (it is Python code). The question is
asked once per file path and content: the answer is remembered as "sha256 path", so an
edited file is asked about again. Nothing here runs the file: the engine's process does."""
from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMenu, QMessageBox, QWidget

from ..plain.config.model_names import model_names, model_path

MODEL_FILTER = "Python model files (*.py)"


def trust_key(path: str) -> str:
    """'sha256 resolved-path' of the file as it is now (OSError if unreadable)."""
    resolved = Path(path).resolve()
    return f"{hashlib.sha256(resolved.read_bytes()).hexdigest()} {resolved}"


def ask_to_run(parent: QWidget | None, path: str) -> bool:
    """Whether the user agrees that the file's code runs (in the engine's process)."""
    box = QMessageBox(QMessageBox.Icon.Warning, "Run this model file?",
                      f"{path} is Python code. Opening it runs it, with your user's rights, "
                      "in gradviz's training engine. Open only a file you trust.",
                      QMessageBox.StandardButton.Open | QMessageBox.StandardButton.Cancel, parent)
    box.setObjectName("runModelQuestion")
    box.setTextFormat(Qt.TextFormat.PlainText)   # the path is the user's, shown as written
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    return box.exec() == QMessageBox.StandardButton.Open


def add_examples(menu: QMenu, open_model: Callable[[str | None], None]) -> QMenu:
    """'Open example model': the bundled examples (they ship with gradviz, so nothing is
    asked), and the built-in model to go back to."""
    sub = menu.addMenu("Open example model")
    sub.setObjectName("exampleModelMenu")
    built_in = sub.addAction("the built-in model")
    built_in.setObjectName("builtInModelAction")
    built_in.triggered.connect(lambda _checked=False: open_model(None))
    for name in model_names():
        action = sub.addAction(name)
        action.setObjectName(f"exampleModel_{name}")
        action.triggered.connect(lambda _checked=False, n=name: open_model(example_path(n)))
    return sub


def example_path(name: str) -> str:
    """A bundled example's path (a file of the installed package)."""
    with model_path(name) as path:
        return str(Path(path).resolve())
