"""While the training engine runs a model file's own code (its top level, build()):
the status line says so, with the seconds it has taken, beside a "Stop building"
button. No clock decides that a build has failed (a slow laptop is a user too, and a
real network can take a minute to build); the user, who can see it is stuck, ends it,
and the model from before it trains again (EngineClient.stopBuilding)."""
from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QPushButton


class BuildStop(QObject):
    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.button = QPushButton("Stop building")
        self.button.setObjectName("stopBuildButton")
        self.button.setToolTip("End the training engine that is running the model file's "
                               "build(), and go back to the model from before it")
        self.button.hide()
        window.statusBar().addPermanentWidget(self.button)
        engine = window.engine
        self.button.clicked.connect(engine.stopBuilding)
        engine.modelBuilding.connect(self._on_building)
        engine.modelBuildEnded.connect(self.button.hide)

    def _on_building(self, line: str) -> None:
        self.window.phase_label.setText(line)
        self.button.show()
