"""Where Ctrl+= stops on each bundled slide, without a window: the lesson controller
against a stage that places the slide as plain.stage.stage_layout does (its narration's height
estimated from its text) and the screen fitting's rule (a step smaller, never below the
normal size, where the controller says the text is too large). Pressed past where the
slide fits, the text size is taken back to the last size at which it fits whole."""
from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable

import pytest

from gradviz.plain.controllers.lesson_controller import cramped
from gradviz.plain.lessons.lessons import Lesson, bundled_names, find_lesson
from gradviz.plain.stage.stage_layout import Placement, least_size, place
from gradviz.plain.window.window_model import WindowModel

from controller_fakes import A, Calls, FakeStage, rig

STEP = 1.15          # one Ctrl+= (the window's TEXT_STEP)
PRESSES = 6
# the stage's room in a 1024x768 and a 1280x720 window
ROOMS = [(1020, 660), (1276, 612)]
SLIDES = [(name, i) for name in bundled_names() for i in range(len(find_lesson(name).slides))]


def narration_height(lesson: Lesson, index: int, zoom: float):
    """The slide's title and narration wrapped at a width, in a font that grows with
    the text size (about 9 px a character and 26 px a line at the normal size)."""
    slide = lesson.slides[index]
    chars = len(slide.title) + len(" ".join(slide.narration.split()))

    def height(width: int) -> int:
        per_line = max(1, int((width - 20) / (9 * zoom)))
        return int(60 * zoom) + int(26 * zoom) * -(-chars // per_line)
    return height


@functools.cache
def _placed(name: str, panels: tuple[str, ...], layout: str, index: int,
            room: tuple[int, int], zoom: float) -> Placement:
    """The slide placed in the room (each text size once: placing takes milliseconds)."""
    return place(*room, panels, zoom, layout,
                 narration_height(find_lesson(name), index, zoom))


class PlacingStage(FakeStage):
    """The stage placing the slide in its room at each text size, then saying so."""

    def __init__(self, calls: Calls, room: tuple[int, int], lesson: Lesson,
                 index: Callable[[], int]):
        super().__init__(calls)
        self.room, self.lesson, self.index = room, lesson, index
        self.shown: tuple[tuple[str, ...], str, int] = ((), "side-by-side", 0)
        self.arranged: Callable[[], None] = lambda: None

    def at(self, zoom: float) -> Placement:
        return _placed(self.lesson.name, *self.shown, self.room, round(zoom, 6))

    def show_slide(self, panels: tuple[str, ...], layout: str, zoom: float) -> None:
        super().show_slide(panels, layout, zoom)
        self.shown = (panels, layout, self.index())
        self.set_zoom(zoom)

    def set_zoom(self, zoom: float) -> None:
        self.placement = self.at(zoom)
        self.arranged()


def pressed(name: str, index: int, room: tuple[int, int]) -> tuple[float, PlacingStage]:
    """The text size after Ctrl+= on the slide until a press is taken back (and once
    more: it stays there), at most PRESSES times; and its stage."""
    lesson = find_lesson(name)
    r = rig(WindowModel(requested=A, confirmed=A, pace_ms=5))
    stage = PlacingStage(r.calls, room, lesson, lambda: r.lessons.index)
    r.lessons.views = dataclasses.replace(r.lessons.views, stage=stage)
    stage.arranged = r.lessons.on_arranged
    m = r.model

    def smaller(too_large: bool) -> None:   # the screen fitting: a step back, not below 1
        if too_large:
            m.zoom = max(1.0, m.zoom / STEP)
    m.events.text_too_large.connect(smaller)
    r.lessons.open(lesson, index)
    taken_back = 0
    for _ in range(PRESSES):
        before = m.zoom
        m.scale_text(STEP)
        r.later.run()                      # the check once the layout settles
        taken_back += m.zoom == pytest.approx(before)
        if taken_back == 2:
            break
    return m.zoom, stage


@pytest.mark.parametrize("room", ROOMS)
@pytest.mark.parametrize("name, index", SLIDES)
def test_ctrl_plus_stops_at_the_last_text_size_the_slide_fits(name, index, room):
    zoom, stage = pressed(name, index, room)
    presses = round(math.log(zoom, STEP))
    assert zoom == pytest.approx(STEP ** presses) and 0 <= presses <= PRESSES
    placed = stage.at(zoom)
    # at the size it stopped: the narration whole, the main panel as large as at the
    # normal size, every secondary panel at least half its least size
    assert placed.narration_whole and placed.main_kept and placed.narration_scale == 1
    assert placed.fits >= 0.5 and not cramped(placed)
    # ... and one step larger the slide no longer fits (it stopped there, not before)
    if presses < PRESSES:
        assert cramped(stage.at(zoom * STEP)), (name, index, zoom)


def test_lesson_05s_first_slide_grows_and_stops_with_every_panel_at_its_least_size():
    """The window's case (tests/qt/test_lesson_mode.py): a long narration beside What
    happened and the graph at 1024x768, Ctrl+= six times. What happened is the slide's
    named panel; the graph beside it gives way first, and is left out where it would be
    too low to be read (as 03/2's after Ctrl+= twice)."""
    zoom, stage = pressed("edit-detached", 0, ROOMS[0])
    assert 1.0 < zoom < STEP ** PRESSES
    placed = stage.at(zoom)
    assert placed.narration_whole and not cramped(placed)
    events = placed.panels["events"]      # the main panel: at least its least size
    least_w, least_h = least_size("events", zoom)
    assert events.w >= least_w and events.h >= least_h, events
    assert "graph" in placed.panels or placed.left_out == ("graph",)
    assert "graph" in stage.at(1.0).panels      # at the normal size, both
