"""What the lesson and Compare controllers drive, as small protocols: the window's Qt
adapters satisfy them, and a test's fakes do too (no window, no engine process)."""
from __future__ import annotations

from typing import Protocol

from ..config.config import Config
from ..lessons.lesson_references import DrawnReference
from ..lessons.lessons import Slide
from ..records.engine_settings import EngineSettings
from ..records.history import History
from ..records.records import CompareRecord
from ..stage.stage_layout import Placement


class SlideEngine(Protocol):
    """The engine's commands a lesson gives (state it observes on the model instead)."""

    def show_slide(self, config: Config, settings: EngineSettings, play: bool) -> None:
        """A slide as ONE message: a fresh model on config at step 0, these settings, and
        Play where play; what it sends is then what the model will say (nothing again)."""

    def open_model(self, path: str | None, config: Config | None) -> None:
        """A fresh engine on a model file (None: the built-in model), with config or the
        engine's last one; the engine prepare_engine started on it, if there is one."""

    def prepare_engine(self, path: str | None, config: Config) -> None:
        """An engine on another model (path: a model file; None: the built-in one)
        started and built now, for the next slide: open_model then takes it."""

    def drop_prepared(self) -> None:
        """The engine prepare_engine started, if any, ended: no slide needs it."""

    def warm_next(self, config: Config | None) -> None:
        """The next slide trains this engine's model on config: what it needs that is
        slow to start (DDP ranks, ...) started now, never waited for (None: nothing, and
        what was started ahead ends)."""

    def pause(self) -> None:
        """Play paused (a slide of text has no engine: nothing trains behind it)."""

    def train_again(self, config: Config, settings: EngineSettings, steps: int) -> None:
        """As ONE message: a fresh model on config at step 0, `steps` steps trained at
        full speed (the run from before a lesson, trained again), then these settings,
        paused."""


class StageView(Protocol):
    """The stage: a slide's narration and its panels, placed for the window's room."""

    @property
    def placement(self) -> Placement | None:
        """Where the parts went the last time it arranged them (None: not yet)."""

    def show_slide(self, panels: tuple[str, ...], layout: str, zoom: float) -> None: ...

    def set_zoom(self, zoom: float) -> None: ...

    def arrange(self) -> None: ...


class GraphFraming(Protocol):
    """The autograd graph as a slide frames it (its focus comes from the model)."""

    @property
    def key_shown(self) -> bool: ...

    @property
    def module_view(self) -> bool:
        """One box per module call (False: every op)."""

    def set_module_view(self, on: bool) -> None: ...

    def set_key_shown(self, shown: bool) -> None: ...


class Cards(Protocol):
    """A slide of large text over the whole stage: a deck's title or recap, the end."""

    def show_card(self, title: str, text: str) -> None:
        """title: plain text; text: Markdown, shown as a narration is (nothing loaded)."""

    def hide_card(self) -> None: ...


class Ghosts(Protocol):
    """The charts that draw a second run, dashed or pale, beside the one on screen."""

    def set_ghost(self, history: History | None) -> None: ...


class ReferenceLines(Protocol):
    """The charts a slide draws reference lines on (plain.lessons.lesson_references)."""

    def set_references(self, lines: dict[str, list[DrawnReference]]) -> None:
        """lines: each chart's, by panel name ([]: none, the last slide's taken away)."""


class Narration(Protocol):
    def show_slide(self, lesson_title: str, slide: Slide, index: int, count: int) -> None: ...

    def clear(self) -> None: ...

    def show_figures(self, texts: list[str]) -> None:
        """The slide's figures, large ([]: none): each its text with the number in it."""


class Titles(Protocol):
    """The window's title bar."""

    def set_title(self, title: str) -> None: ...


class ComparePanel(Protocol):
    """The Compare dock's words: B's name and differences, each step's verdict."""

    def show_pinned(self, b_name: str, differences: str) -> None: ...

    def set_differences(self, b_name: str, differences: str) -> None: ...

    def show_record(self, record: CompareRecord) -> None: ...

    def show_stopped(self) -> None: ...

    def show_failed(self, reason: str) -> None: ...


class CompareFront(Protocol):
    """The Compare dock put in front; beside_charts: with the Memory chart and the
    per-parameter bars (A | B) in front too (not on a lesson's stage, which keeps its own)."""

    def reveal(self, beside_charts: bool) -> None: ...


class CompareMenu(Protocol):
    def show_choices(self, slides: list[tuple[int, str]], slides_enabled: bool,
                     stop_enabled: bool) -> None:
        """slides: the open lesson's other slides (index, title) B can be."""
