"""The File menu: open a config or a lesson, open a model file (or a bundled example),
open one of the files opened last (Open Recent), open a recorded run (a folder, in a
window of its own), save the settings as a TOML file that
`gradviz run --config` reads, export the graph, and quit (Ctrl+Q). open_any() opens a
file of any of the three kinds (a drop, Open Recent). Every failure is one line in a
message box; nothing is lost.
(Comparing with a saved config: the Compare menu, qt/compare_mode.py.)"""
from __future__ import annotations

from pathlib import Path

import shiboken6
from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog

from ..plain.config.config import ConfigError
from ..plain.config.config_toml import from_mapping, load_toml, to_toml
from ..plain.files.atomic_write import write_text
from ..plain.files.file_kinds import FileKindError, file_kind
from .model_menu import MODEL_FILTER, add_examples, ask_to_run, trust_key
from .plain_dialogs import warn
from .recent_files import RecentFiles
from .run_window import RunWindow

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
                ("Open run…", "openRunAction", self.open_run, None),
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
        window.lessons.file_opened.connect(self.recent.add)
        self.menu = menu
        self.run_windows: list = []   # recorded runs opened (Open run…, a dropped folder)

    def open_any(self, path: str) -> bool:
        """A lesson, a deck, settings or a model file, told by name and content; a model file
        asks first, as Open model… does; a folder opens as a recorded run. Anything
        else: one line, and nothing opens."""
        if Path(path).is_dir():
            return self.open_run(path)
        try:
            kind = file_kind(path)
        except FileKindError as exc:
            self._tell("Not opened", str(exc))
            return False
        if kind == "lesson":
            return self.window.lessons.open_file(path)
        if kind == "deck":
            return self.window.lessons.open_deck_file(path)
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

    def open_run(self, path: str | None = None) -> bool:
        """A run folder (gradviz.watch's or gradviz run --out's) in a window of its
        own, which reads it and trains nothing; this window's engine is left as it is."""
        path = path or QFileDialog.getExistingDirectory(self.window, "Open run")
        if not path:
            return False
        run = RunWindow(path, self.window.theme)
        # closed, it is deleted then, not at the interpreter's exit (see MainWindow.dispose)
        run.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.run_windows = [w for w in self.run_windows if shiboken6.isValid(w)] + [run]
        run.resize(self.window.size())
        run.show()
        run.first_layout()
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
        self.window.notice(f"Settings saved to {path}")
