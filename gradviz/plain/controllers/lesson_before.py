"""The window as the user had it when a lesson (or a deck) opened, given back when it ends
(Esc): the settings, the pace, phase by phase or not, the graph's view, the model file,
and the run on screen, trained again where that gives the same steps.

Each slide trains a fresh model, so the user's run is gone from the engine by the second
slide. It can be had again: the same config, seed and data train the same weights step by
step (the tests compare them bit for bit), so the engine trains the run's steps again, at
full speed. Only where the whole run trained on one config from its fresh model: a
setting changed mid-run (applied at a step's end) makes steps no single config gives.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ..config.config import Config
from ..window.window_model import WindowModel
from .controller_views import GraphFraming, SlideEngine


@dataclass(frozen=True)
class WindowBefore:
    config: Config
    pace_ms: int
    play_mode: str
    module_view: bool             # the graph's module view (False: every op)
    model_path: str | None        # the model file that trained (None: the built-in one)
    steps: int = 0                # the run's steps to train again (0: none, or not the same)


class RunTrack:
    """Whether the run on screen trained on one config from its fresh model: the window
    model's confirmed config changing after its first step says it did not (a change
    before it, as the settings are set up before Play, changes no step)."""

    def __init__(self, model: WindowModel):
        self.model = model
        self.config = model.confirmed
        self.one_config = True
        # (the engine's adapter writes the confirmed config before the generation of a
        # fresh model: a fresh model on another config ends clean)
        model.events.confirmed.connect(self._confirmed)
        model.events.generation.connect(self._fresh)

    def _confirmed(self, config: Config) -> None:
        if config == self.config:
            return
        if self.model.step == 0:
            self.config = config
        else:
            self.one_config = False

    def _fresh(self, *_: object) -> None:
        self.config, self.one_config = self.model.confirmed, True

    def steps(self) -> int:
        """How many of the run's steps training again on the settings as they are gives
        back: the steps the engine has done (0 where the run changed settings mid-run,
        or where a change asked for is not yet in force)."""
        if not self.one_config or self.model.requested != self.config:
            return 0
        return self.model.step

    def before(self, module_view: bool) -> WindowBefore:
        """The window now, to give back after a lesson."""
        m = self.model
        return WindowBefore(m.requested, m.pace_ms, m.play_mode, module_view, m.model_path,
                            self.steps())


def give_back(before: WindowBefore, model: WindowModel, engine: SlideEngine,
              graph: GraphFraming, training: str | None, lesson_files: set[str]) -> None:
    """The window as it was before the lesson: the graph's view, the pace, phase by
    phase or not; the model file put aside and the settings, with the run's steps trained
    again (before.steps; 0: a fresh model at step 0). training: the model file the engine
    trains now (None: the built-in model); lesson_files: those the lesson opened. The
    user agreed to run their model file when it was opened: nothing is asked. A model
    file the user opened during the lesson is their newer choice: it stays, with its
    settings."""
    graph.set_module_view(before.module_view)
    now = model.model_path   # (the one put aside may be named until the engine confirms)
    if now in lesson_files:  # the lesson's own model file is no user's choice
        now = None
    if now in (None, before.model_path):
        if training != before.model_path:   # first: it is sent the config, once
            engine.open_model(before.model_path, before.config)
        # one message, before the model says the same: nothing is sent twice
        settings = dataclasses.replace(
            model.engine_settings(), delay_ms=before.pace_ms, stop_at=None,
            animate_phases=before.play_mode == "phases", sweep_box_ms=0)
        engine.train_again(before.config, settings, before.steps)
        model.requested = before.config
    model.pace_ms, model.play_mode = before.pace_ms, before.play_mode
