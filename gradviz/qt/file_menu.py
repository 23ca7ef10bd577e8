"""The File menu: open a config or a lesson, open a model file (or a bundled example),
open one of the files opened last (Open Recent), save the settings as a TOML file that
`gradviz run --config` reads, export the graph, and quit (Ctrl+Q). open_any() opens a
file of any of the three kinds (a drop, Open Recent). Every failure is one line in a
message box; nothing is lost.
(Comparing with a saved config: the Compare menu, qt/compare_mode.py.)"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog

from ..plain.atomic_write import write_text
from ..plain.config import ConfigError, from_mapping, load_toml, to_toml
from ..plain.file_kinds import FileKindError, file_kind
from .model_menu import MODEL_FILTER, add_examples, ask_to_run, trust_key
from .plain_dialogs import warn
from .recent_files import RecentFiles

TOML_FILTER = "gradviz configs (*.toml)"


class FileMenu(QObject):
    def __init__(self, window, recent: tuple[str, ...] = ()):
        super().__init__(window)
        self.window = window
        menu = window.menuBar().addMenu("&File")
        menu.setObjectName("fileMenu")
        first = window.menuBar().actions()[0]
        window.menuBar().insertMenu(first, menu)      # File comes first, as everywhere
        keys = QKeySequence.StandardKey
        for text, name, slot, key in (
                ("Open settings…", "openConfigAction", self.open_config, keys.Open),
                ("Open a lesson…", "openLessonAction", window.lessons.open_file, None),
                ("Open model…", "openModelAction", self.open_model, None),
                ("Save settings as…", "saveConfigAction", self.save_config, keys.Save),
                ("Export the graph…", "exportGraphAction",
                 lambda: window.graph_view.export_dialog("svg"), None),
                ("Quit", "quitAction", window.close, QKeySequence("Ctrl+Q"))):
            action = QAction(text, window)
            action.setObjectName(name)
            if key is not None:
                action.setShortcut(key)
                action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            action.triggered.connect(lambda _checked=False, s=slot: s())
            menu.addAction(action)
            window.addAction(action)   # the shortcut works with the menu closed
            if name == "openModelAction":
                self.examples = add_examples(menu, window.engine.open_model)
                self.recent = RecentFiles(menu, recent, self.open_any)
        self.recent.notice.connect(window.status.say)
        window.lessons.file_opened.connect(self.recent.add)
        self.menu = menu

    def open_any(self, path: str) -> bool:
        """A lesson, settings or a model file, told by name and content; a model file
        asks first, as Open model… does. Anything else: one line, and nothing opens."""
        try:
            kind = file_kind(path)
        except FileKindError as exc:
            self._tell("Not opened", str(exc))
            return False
        if kind == "lesson":
            return self.window.lessons.open_file(path)
        return self.open_config(path) if kind == "config" else self.open_model(path)

    def _tell(self, title: str, text: str) -> None:
        warn(self.window, title, text)

    def open_config(self, path: str | None = None) -> bool:
        path = path or QFileDialog.getOpenFileName(self.window, "Open settings", "",
                                                   TOML_FILTER)[0]
        if not path:
            return False
        try:
            values = {k.replace("-", "_"): v for k, v in load_toml(path).items()}
            config = from_mapping(values)
        except ConfigError as exc:
            self._tell("Not opened", str(exc))
            return False
        self.window.model.requested = config   # the settings show it, the engine is told
        self.recent.add(path)
        return True

    def open_model(self, path: str | None = None) -> bool:
        """A model file, chosen, then (once per path and content) the user's word that
        it may run; then a fresh engine trains it."""
        path = path or QFileDialog.getOpenFileName(self.window, "Open model", "",
                                                   MODEL_FILTER)[0]
        if not path:
            return False
        try:
            key = trust_key(path)
        except OSError as exc:
            self._tell("Not opened", f"could not read {path}: {exc.strerror or exc}")
            return False
        if key not in self.window.trusted_models:
            if not ask_to_run(self.window, path):
                return False
            self.window.trusted_models.add(key)
        self.window.engine.open_model(str(Path(path).resolve()))
        self.recent.add(path)
        return True

    def save_config(self, path: str | None = None) -> None:
        path = path or QFileDialog.getSaveFileName(self.window, "Save settings as",
                                                   "gradviz.toml", TOML_FILTER)[0]
        if not path:
            return
        try:
            write_text(path, to_toml(self.window.model.requested,
                                     "gradviz settings: gradviz run --config this file"))
        except OSError as exc:
            self._tell("Not saved", f"could not write {path}: {exc.strerror or exc}")
            return
        self.window.status.say(f"Settings saved to {path}")
