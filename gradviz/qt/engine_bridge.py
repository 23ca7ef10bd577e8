"""Today's EngineClient as the lesson and Compare controllers need it: a SlideEngine, and
the model fields they read or write (model_path, stop_at, b_requested, pinned_b) carried
to and from it. Each send happens only where the client has not sent that value yet, as
the controllers expect of the engine's adapter."""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..plain.config import Config
from ..plain.engine_settings import EngineSettings
from ..plain.window_model import WindowModel

if TYPE_CHECKING:
    from .engine_client import EngineClient


class EngineSlides:
    """The SlideEngine protocol on an EngineClient (open_model: the window's, which also
    shows the built-in model's loop at once)."""

    def __init__(self, engine: EngineClient, model: WindowModel,
                 open_model: Callable[[str | None, Config | None], None]):
        self.engine, self.model, self._open_model = engine, model, open_model

    def show_slide(self, config: Config, settings: EngineSettings, play: bool) -> None:
        # the client keeps its own saved-tensor and per-node-gradient settings
        self.engine.showSlide(config, settings.delay_ms, settings.animate_phases,
                              settings.stop_at, play)

    def open_model(self, path: str | None, config: Config | None) -> None:
        self._open_model(path, config)
        self.model.model_path = self.engine.model_path


def bridge_lessons(engine: EngineClient, model: WindowModel) -> None:
    """The model file in use into the model; the model's stop to the engine."""
    model.model_path = engine.model_path
    engine.configApplied.connect(lambda *_: setattr(model, "model_path", engine.model_path))

    def send_stop(step: int | None) -> None:
        if engine.settings.stop_at != step:
            engine.setStopAt(step)
    model.events.stop_at.connect(send_stop)


def bridge_compare(engine: EngineClient, model: WindowModel) -> None:
    """B as asked for to the engine; B as the engine pinned it into the model (connected
    before anyone else hears the engine's answer)."""
    def send_b(b: Config | None) -> None:
        if engine.pinned_b != b:
            engine.pinB(b)
    model.events.b_requested.connect(send_b)
    engine.bPinned.connect(lambda config, _problem: setattr(model, "pinned_b", config))
