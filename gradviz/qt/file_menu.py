"""The File menu: open a config or a lesson, save the settings as a TOML file that
`gradviz run --config` reads, compare the settings with another config, export the graph,
and quit (Ctrl+Q). Every failure is one line in a message box; nothing is lost."""
from __future__ import annotations

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMessageBox

from ..core.atomic_write import write_text
from ..core.config import ConfigError, from_mapping, load_toml, to_toml
from .compare_runner import CompareRunner
from .widgets.compare_view import CompareView

TOML_FILTER = "gradviz configs (*.toml)"


class FileMenu(QObject):
    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.compare_view = CompareView()
        self.compare_dock = window.add_dock("Compare", "compareDock", self.compare_view,
                                            Qt.BottomDockWidgetArea)
        window.tabifyDockWidget(window.graph_dock, self.compare_dock)
        self.compare_dock.hide()
        window.graph_dock.raise_()   # the graph's tab stays in front (it tracks gradients)
        self.runner = CompareRunner(self)
        self.runner.finished.connect(self.compare_view.show_comparison)
        self.runner.failed.connect(self.compare_view.show_failed)
        menu = window.menuBar().addMenu("&File")
        menu.setObjectName("fileMenu")
        first = window.menuBar().actions()[0]
        window.menuBar().insertMenu(first, menu)      # File comes first, as everywhere
        for text, name, slot, key in (
                ("Open settings…", "openConfigAction", self.open_config, QKeySequence.Open),
                ("Open a lesson…", "openLessonAction", window.lessons._open_file, None),
                ("Save settings as…", "saveConfigAction", self.save_config, QKeySequence.Save),
                ("Compare with…", "compareAction", self.compare_with, None),
                ("Export the graph…", "exportGraphAction",
                 lambda: window.graph_view._export_dialog("svg"), None),
                ("Quit", "quitAction", window.close, QKeySequence("Ctrl+Q"))):
            action = QAction(text, window)
            action.setObjectName(name)
            if key is not None:
                action.setShortcut(key)
                action.setShortcutContext(Qt.WindowShortcut)
            action.triggered.connect(lambda _checked=False, s=slot: s())
            menu.addAction(action)
            window.addAction(action)   # the shortcut works with the menu closed
        self.menu = menu

    def _tell(self, title: str, text: str) -> None:
        QMessageBox.warning(self.window, title, text)

    def open_config(self, path: str | None = None) -> None:
        path = path or QFileDialog.getOpenFileName(self.window, "Open settings", "",
                                                   TOML_FILTER)[0]
        if not path:
            return
        try:
            values = {k.replace("-", "_"): v for k, v in load_toml(path).items()}
            config = from_mapping(values)
        except ConfigError as exc:
            self._tell("Not opened", str(exc))
            return
        self.window.controls.set_config(config)
        self.window.on_config_changed(config)

    def save_config(self, path: str | None = None) -> None:
        path = path or QFileDialog.getSaveFileName(self.window, "Save settings as",
                                                   "gradviz.toml", TOML_FILTER)[0]
        if not path:
            return
        try:
            write_text(path, to_toml(self.window.controls.config(),
                                     "gradviz settings: gradviz run --config this file"))
        except OSError as exc:
            self._tell("Not saved", f"could not write {path}: {exc.strerror or exc}")
            return
        self.window.phase_label.setText(f"Settings saved to {path}")

    def compare_with(self, path: str | None = None) -> None:
        path = path or QFileDialog.getOpenFileName(self.window, "Compare with", "",
                                                   TOML_FILTER)[0]
        if not path:
            return
        config = self.window.controls.config()
        self.compare_dock.show()
        self.compare_dock.raise_()
        self.compare_view.apply_theme(self.window.theme)
        self.compare_view.show_running(path)
        self.runner.start(config, path, steps=config.steps)

    def stop(self) -> None:
        self.runner.stop()
