"""What the window shows and asks for, as one GUI-free model whose fields announce their
changes (psygnal, as napari and ndv keep theirs): the window, its lessons, Compare, the
View menu and the screen fitting observe it and change it, instead of reaching into each
other's widgets. "Why did this change?" then has one place to look: who set the field.

Plain data only (no Qt, no torch): it is read by tests without a window.
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

from psygnal import SignalGroup, evented

from ..charts.smoothing import SMOOTHING_RANGE
from ..charts.x_axis import X_AXES
from ..config.config import Config
from ..records.engine_settings import EngineSettings

PLAY_MODES = ("steps", "phases")   # what Play advances by
# the engine's life as the window knows it: starting (a process loading torch), building
# (running a model file's own code), ready, stopped (died or frozen: Reset starts one)
ENGINE_STATES = ("starting", "building", "ready", "stopped")
# the paces the run bar's slider offers: the pause between steps (or phases), in ms, as
# fast as it goes first; a lesson's slide asks for the one nearest its own
PACES_MS = (0, 5, 20, 50, 100, 200, 350, 500, 750, 1000, 1500)
THEME_NAMES = ("light", "dark")
# the text sizes the panels are drawn for: smaller, a projector's back row reads nothing;
# larger, no panel layout fits even a 1920x1080 screen (the window's themes clamp alike)
ZOOM_RANGE = (0.6, 3.0)


class WindowModelError(ValueError):
    """A value no field of the window's model can hold (a bug, not a user's input)."""


def _zoom(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) or value <= 0:
        raise WindowModelError(f"text size {value!r} is not a positive number")
    # a step past either end stops there: Ctrl+= held down stays at the largest size
    return float(min(ZOOM_RANGE[1], max(ZOOM_RANGE[0], value)))


def _room(value: Any) -> tuple[int, int, int, int] | None:
    if value is None:
        return None
    x, y, w, h = (int(v) for v in value)
    if w <= 0 or h <= 0:
        raise WindowModelError(f"a screen of {w}x{h} has no room")
    return x, y, w, h


def _names(value: Iterable[str]) -> frozenset[str]:
    if isinstance(value, str):   # one name is not a set of its letters
        raise WindowModelError(f"docks_shown takes names, not the string {value!r}")
    return frozenset(value)


def _pace(value: Any) -> int:
    if isinstance(value, bool) or value not in PACES_MS:
        raise WindowModelError(f"pace {value!r} ms is not one of the run bar's "
                               f"{', '.join(map(str, PACES_MS))}")
    return int(value)


def _play_mode(value: Any) -> str:
    if value not in PLAY_MODES:
        raise WindowModelError(f"play mode {value!r} is not one of {', '.join(PLAY_MODES)}")
    return str(value)


def nearest_pace_ms(per_second: float) -> int:
    """The run bar's pace nearest a lesson's, given in steps or phases a second (0 or
    less: as fast as it goes)."""
    if per_second <= 0:
        return 0
    wanted = 1000.0 / per_second
    return min(PACES_MS[1:], key=lambda ms: abs(ms - wanted))


def _box_ms(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise WindowModelError(f"sweep turn {value!r} ms is not a count of milliseconds")
    return value


def _engine_state(value: Any) -> str:
    if value not in ENGINE_STATES:
        raise WindowModelError(f"engine state {value!r} is not one of "
                               f"{', '.join(ENGINE_STATES)}")
    return str(value)


def _stop_at(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise WindowModelError(f"stop at step {value!r} is not a step count")
    return value


def _theme(value: Any) -> str:
    if value not in THEME_NAMES:
        raise WindowModelError(f"theme {value!r} is not one of {', '.join(THEME_NAMES)}")
    return str(value)


# a folder of runs: at most this many drawn over each other (each its own colour; more
# lines than that are no longer told apart)
MAX_OVERLAID = 8


def _smoothing(value: Any) -> float:
    low, high = SMOOTHING_RANGE
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not low <= value <= high:
        raise WindowModelError(f"smoothing {value!r} is not a weight from {low} to {high}")
    return float(value)


def _x_axis(value: Any) -> str:
    if value not in X_AXES:
        raise WindowModelError(f"x axis {value!r} is not one of {', '.join(X_AXES)}")
    return str(value)


def _run_slots(value: Any) -> tuple[str | None, ...]:
    slots = tuple(value)
    names = [s for s in slots if s is not None]
    if len(slots) > MAX_OVERLAID or len(set(names)) != len(names) \
            or not all(isinstance(s, str) for s in names):
        raise WindowModelError(f"run slots {slots!r}: at most {MAX_OVERLAID}, each run once")
    return slots


# each field's check (and the one form it is kept in): run before the change announces
# itself, so an observer never sees a value the window cannot show
_CHECKS = {"zoom": _zoom, "room": _room, "docks_shown": _names, "theme": _theme,
           "pace_ms": _pace, "play_mode": _play_mode, "sweep_box_ms": _box_ms,
           "engine_state": _engine_state,
           "stop_at": _stop_at, "smoothing": _smoothing, "x_axis": _x_axis,
           "x_axis_shown": _x_axis, "run_slots": _run_slots}


@evented
@dataclass
class WindowModel:
    # one change signal per field, set by @evented (declared so type checkers know it)
    events: ClassVar[SignalGroup]
    requested: Config = Config()          # what the settings ask the engine for
    confirmed: Config = Config()          # what the engine says is in force
    zoom: float = 1.0                     # the text size (Ctrl+= / Ctrl+-), in ZOOM_RANGE
    theme: str = "light"                  # View → Dark theme
    # ---- the window's settings of the engine (engine_settings() composes them) ----------
    pace_ms: int = 0                      # the pause between steps, or phases (PACES_MS)
    play_mode: str = "steps"              # "phases": Play goes phase by phase
    sweep_box_ms: int = 0                 # a slide's turn per box in a backward sweep
    stop_at: int | None = None            # Play pauses itself once this many steps are done
    show_saved: bool = False              # the graph draws the tensors backward saved
    track_node_grads: bool = True         # per-node gradients (hooks: only while shown)
    # ---- what the engine said (one writer: the engine adapter) --------------------------
    engine_state: str = "starting"        # ENGINE_STATES
    engine_stage: str = ""                # what it last said it was doing ("importing torch")
    running: bool = False                 # the engine is playing
    generation: int = 0                   # goes up with every fresh model
    step: int = 0                         # the step it does next on this model, as it said
    head_names: tuple[str, ...] = ()      # the heads, as the engine names them
    param_names: tuple[str, ...] = ()     # the parameters, as the model names them
    model_name: str = ""                  # the model file that trains ("": the built-in one)
    model_path: str | None = None         # its path (None: the built-in model)
    model_taps: tuple[int, ...] | None = None   # the trunk outputs its heads read
    devices: tuple[tuple[str, str], ...] = ()   # (device, description) the engine offers
    steps_per_second: float = 0.0         # the engine's rate, as it last said
    # ---- lessons and Compare ---------------------------------------------------------------
    lesson: str | None = None             # the open lesson's name (None: free mode)
    slide: int | None = None              # its slide on screen, from 0
    # goes up each time a slide is sent to the engine (PageDown, PageUp, Home, a lesson
    # opened, the slide played again): what belongs to the slide on screen starts again
    # with it, so nothing of the slide before stays until a step comes (an error slide's
    # never does). Compare observes it (its verdict, B's lines); the lesson controller,
    # its one writer, sets the slide's own figures, ghosts and focus with it.
    slide_shown: int = 0
    panels: tuple[str, ...] = ()          # the slide's panels on the stage, main first
    focus: str | None = None              # what the slide's graph frames (None: all of it)
    focus_facts: bool = False             # ...and whether the narration says that box's facts
    # the measured quantities the slide's promises and figures name, what its point rests
    # on ("graph_nodes"): a chart of several gives those its room (plain.charts.memory_rows)
    named_metrics: tuple[str, ...] = ()
    # until the slide's first state can be seen whole, what the stage shows in place of its
    # panels: what the engine is doing ("Preparing this slide: building the model…");
    # None: the slide is shown (plain.controllers.slide_preparing is its one writer)
    preparing: str | None = None
    # what the lesson's next slide needs that is slow to start (an engine on another model,
    # its DDP ranks) is ready, or nothing is being started for it; False while it starts
    # (the engine adapter writes it)
    next_slide_ready: bool = True
    b_requested: Config | None = None     # Compare's B as asked for (None: not comparing)
    pinned_b: Config | None = None        # B as the engine trains it beside A (adapter)
    blank: bool = False                   # B or '.': the screen blanked, as in a slide deck
    # the lesson's stage has no room for its slide at the text size the lecturer asked
    # for (Ctrl+=): the screen fitting takes the text a step smaller, and says why
    text_too_large: bool = False
    # the docks shown (open, in front or behind a tab), by their object names: the View
    # menu's ticks follow this, and ticking one changes it
    docks_shown: frozenset[str] = frozenset()
    full_screen: bool = False             # F11, the View menu, a lesson's F5
    # the room the window's screen leaves it (x, y, width, height; None: not yet known);
    # a new screen, or a new resolution, fits the window to it again
    room: tuple[int, int, int, int] | None = None
    # drawn for a picture (--screenshot, bench) at a size of its own: not fitted to a screen
    drawn_off_screen: bool = False
    # ---- a recorded run's window, as TensorBoard's scalars (one writer: its
    # plain.controllers.viewer_controller) ---------------------------------------------------
    smoothing: float = 0.0                # the charts' smoothing weight (plain.charts.smoothing)
    x_axis: str = "step"                  # what the charts are drawn along, as asked (X_AXES)
    x_axis_shown: str = "step"            # ...as drawn: time asked of runs without it is step
    x_axis_note: str = ""                 # why the axis drawn is not the one asked for
    runs_listed: tuple[str, ...] = ()     # a folder of runs: its runs, by name
    # the runs ticked, each in its colour slot (None: a free slot), so a run keeps its
    # colour while others are ticked and unticked; two or more are drawn over each other
    run_slots: tuple[str | None, ...] = ()
    runs_note: str = ""                   # why the last tick was refused ("": none was)

    def __setattr__(self, name: str, value: Any) -> None:
        check = _CHECKS.get(name)
        super().__setattr__(name, check(value) if check else value)

    @property
    def in_lesson(self) -> bool:
        return self.lesson is not None

    @property
    def waiting(self) -> bool:
        """The engine has not yet confirmed what the settings ask for."""
        return self.requested != self.confirmed

    def engine_settings(self) -> EngineSettings:
        """The settings the engine is sent whole (and replayed to a fresh one)."""
        return EngineSettings(delay_ms=self.pace_ms, animate_phases=self.play_mode == "phases",
                              sweep_box_ms=self.sweep_box_ms, stop_at=self.stop_at,
                              show_saved=self.show_saved,
                              track_node_grads=self.track_node_grads)

    def scale_text(self, factor: float | None) -> None:
        """Ctrl+= (factor > 1), Ctrl+- (< 1), Ctrl+0 (None: the normal size)."""
        self.zoom = 1.0 if factor is None else self.zoom * factor

    def show_dock(self, name: str, shown: bool) -> None:
        self.docks_shown = self.docks_shown | {name} if shown else self.docks_shown - {name}
