"""While the training engine runs a model file's own code (its top level, build()):
the status line says so, with the seconds it has taken, beside a "Stop building"
button. No clock decides that a build has failed (a slow laptop is a user too, and a
real network can take a minute to build); the user, who can see it is stuck, ends it,
and the model from before it trains again (EngineClient.stop_building)."""
from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QMainWindow, QPushButton

from ..plain.window.window_model import WindowModel
from .engine_client import EngineClient


class BuildStop(QObject):
    def __init__(self, window: QMainWindow, model: WindowModel, engine: EngineClient):
        super().__init__(window)
        self.button = QPushButton("Stop building")
        self.button.setObjectName("stopBuildButton")
        self.button.setToolTip("End the training engine that is running the model file's "
                               "build(), and go back to the model from before it")
        self.button.hide()
        window.statusBar().addPermanentWidget(self.button)
        self.button.clicked.connect(engine.stop_building)
        # shown while the engine builds (its line says so, a beat at a time)
        model.events.engine_state.connect(
            lambda state: self.button.setVisible(state == "building"))
