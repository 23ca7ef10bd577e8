"""Compare, without the window: B chosen (a saved file's changes on top of A, these very
settings, another slide of the open lesson), asked for through the window's model, its
steps kept as a History of their own for the charts' ghosts, and the Compare dock told
the differences and each step's verdict (controller_views)."""
from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config.config import Config, ConfigError
from ..config.config_toml import from_mapping, load_toml
from ..lessons.lessons import Lesson
from ..records.history import History
from ..records.records import CompareRecord
from ..window.window_model import WindowModel
from .controller_views import CompareFront, CompareMenu, ComparePanel, Ghosts

# B is probed as A is and trains as many steps as A: these never tell them apart
NOT_COMPARED_KEYS = ("steps", "probes", "sample_every")


def _value(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in value) or "none"
    if value is None:
        return "none"
    return f"{value:g}" if isinstance(value, float) else str(value)


def differences(a: Config, b: Config) -> str:
    """How B's settings differ from A's, in words ('strategy: A sum, B in-loop')."""
    da, db = a.to_dict(), b.to_dict()
    told = [f"{key.replace('_', ' ')}: A {_value(da[key])}, B {_value(db[key])}"
            for key in da if key not in NOT_COMPARED_KEYS and da[key] != db[key]]
    return "; ".join(told) if told else "the same settings as A (so far)"


def file_b(path: str, a: Config) -> Config:
    """B from a saved settings file: its changes on top of A; ConfigError if it is none."""
    values = {k.replace("-", "_"): v for k, v in load_toml(path).items()}
    return from_mapping(values, a)


@dataclass(frozen=True)
class CompareViews:
    """What Compare drives, handed over by the window (which owns them all)."""
    panel: ComparePanel
    front: CompareFront
    menu: CompareMenu
    ghosts: Sequence[Ghosts]                 # the charts that draw B beside A
    history: Callable[[], History]           # A's run as it is now
    lesson: Callable[[], Lesson | None]      # the open lesson, whose other slides can be B
    # the lesson's slide on screen again from step 0, as PageDown starts it (None: none)
    replay: Callable[[], None] | None = None


class CompareController:
    def __init__(self, model: WindowModel, views: CompareViews):
        self.model = model   # the one writer of b_requested
        self.views = views
        self.b_name = ""
        self.history_b: History | None = None   # B's steps since the engine pinned it
        # the open lesson's other slides, as the lesson or its slide changes
        model.events.lesson.connect(self.update_menu)
        model.events.slide.connect(self.update_menu)
        # a slide shown: its comparison starts again, and B's steps of a model older than
        # the slide's (still on their way) are not its own
        model.events.slide_shown.connect(self._slide_shown)
        self._older: int | None = None   # B's records of this generation or older: dropped
        self.update_menu()

    @property
    def comparing(self) -> bool:
        """B is asked for (pinned, or on its way)."""
        return self.model.b_requested is not None

    def update_menu(self, *_changed: object) -> None:
        """The open lesson's other slides, and Stop only while comparing."""
        lesson, here = self.views.lesson(), self.model.slide
        slides = [] if lesson is None else [
            (i, slide.title) for i, slide in enumerate(lesson.slides) if i != here]
        self.views.menu.show_choices(slides, lesson is not None and len(lesson.slides) > 1,
                                     self.comparing)

    # ---- choosing B ---------------------------------------------------------------------
    def pin_file(self, path: str) -> None:
        """B = these settings with the saved file's changes on top."""
        try:
            b = file_b(path, self.model.requested)
        except ConfigError as exc:
            self._reveal()
            self.views.panel.show_failed(str(exc))
            return
        self.pin(b, Path(path).name)

    def pin_settings(self) -> None:
        """B = the settings as they are now; a toggle changed next changes A alone."""
        self.pin(self.model.requested, "the settings pinned")

    def pin_slide(self, index: int) -> None:
        lesson = self.views.lesson()
        if lesson is None or not 0 <= index < len(lesson.slides):
            return
        slide = lesson.slides[index]
        self.pin(slide.config, f"slide {index + 1}, “{slide.title}”")

    def pin(self, config: Config, name: str) -> None:
        """Train B beside A (both from step 0) and show the comparison."""
        self.b_name = name
        self._reveal()
        self.views.panel.show_pinned(name, differences(self.model.requested, config))
        self.model.b_requested = config
        self.update_menu()

    def stop(self) -> None:
        """Stop comparing: B is dropped, A goes on."""
        self._forget()
        self.views.panel.show_stopped()

    def _reveal(self) -> None:
        # the slide's stage holds its panels: they stay there
        self.views.front.reveal(not self.model.in_lesson)

    # ---- what the engine says -------------------------------------------------------------
    def on_b_pinned(self, config: Config | None, problem: str | None) -> None:
        """The engine pinned B (config), dropped it (None) or refused it (problem)."""
        if problem is not None:
            self._forget()
            self._reveal()
            self.views.panel.show_failed(problem)
        elif config is None:
            self._forget()
        elif self.comparing:
            self._new_history()
            if self.model.in_lesson and self.views.replay is not None:
                # the pin started A and B at step 0, paused: on a lesson's stage the slide
                # then plays as PageDown plays it (a clicker has no Space)
                self.views.replay()

    def _slide_shown(self, *_changed: object) -> None:
        """Nothing of the slide before's comparison stays (its verdict, B's lines), also
        where the new slide never sends a step of B (an error slide): B starts again at
        step 0 beside it, as the engine does."""
        self._older = self.model.generation
        b = self.model.b_requested
        if b is None:
            return
        self.views.panel.show_pinned(self.b_name, differences(self.model.requested, b))
        if self.history_b is not None:
            self._new_history()

    def on_config_applied(self, config: Config, did_reset: bool) -> None:
        """A's config in force (a fresh model when did_reset: B starts again beside it)."""
        b = self.model.pinned_b
        if b is None or self.history_b is None:
            return
        if did_reset:   # both started again at step 0
            self._new_history()
        self.views.panel.set_differences(self.b_name, differences(config, b))

    def _new_history(self) -> None:
        a = self.views.history()
        self.history_b = History(a.head_names, a.param_names, keys=a.keys)
        self._set_ghost(self.history_b)

    def _forget(self) -> None:
        self.history_b = None
        self.model.b_requested = None
        self._set_ghost(None)
        self.update_menu()

    def _set_ghost(self, history: History | None) -> None:
        for chart in self.views.ghosts:
            chart.set_ghost(history)

    def drain(self, compared: deque[tuple[int, CompareRecord]], generation: int) -> int:
        """Move B's reported steps into its history and show the newest verdict; how
        many steps were new. compared: (generation, record) as the engine sent them."""
        latest, new = None, 0
        while compared:
            record_generation, record = compared.popleft()
            if record_generation != generation or self.history_b is None or \
                    (self._older is not None and record_generation <= self._older):
                continue   # of a model already replaced (the slide before's, say)
            if record.b is not None:
                self.history_b.append(record.b)
                new += 1
            latest = record
        if latest is not None:
            self.views.panel.show_record(latest)
        return new

    def seen(self) -> tuple[int, int]:
        h = self.history_b
        return (id(h), 0 if h is None else len(h))
