"""The run bar and the model: the pace and play mode both ways, running shown, and its
buttons as the engine's commands."""
from __future__ import annotations

from collections.abc import Callable

from ...plain.window.window_model import WindowModel
from ..engine_client import EngineClient
from ..run_bar import RunBar


def toggle_play(model: WindowModel, engine: EngineClient) -> None:
    """Space, the Play button: Pause while the engine plays, else Play."""
    if model.running:
        engine.pause()
    else:
        engine.play()


def bind_run_bar(bar: RunBar, model: WindowModel, engine: EngineClient) -> Callable[[], None]:
    """Returns what shows the model on the bar (it is shown once here)."""
    def show(*_: object) -> None:
        bar.show_pace(model.pace_ms, model.play_mode == "phases")
        bar.set_running(model.running)

    for field in (model.events.pace_ms, model.events.play_mode, model.events.running):
        field.connect(show)
    bar.delayChanged.connect(lambda ms: setattr(model, "pace_ms", ms))
    bar.phasePlayChanged.connect(
        lambda on: setattr(model, "play_mode", "phases" if on else "steps"))
    bar.playClicked.connect(lambda: toggle_play(model, engine))
    bar.phaseClicked.connect(engine.step_phase)
    bar.stepClicked.connect(engine.step_once)
    bar.resetClicked.connect(engine.reset)
    show()
    return show
