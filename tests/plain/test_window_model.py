"""The window's state model, without a window: each field announces a change, once, and
only a real change."""
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gradviz.plain.config import Config
from gradviz.plain.window_model import WindowModel, WindowModelError


def test_a_field_announces_its_new_value_once_and_only_when_it_changes():
    model = WindowModel()
    zooms, changes = [], []
    model.events.zoom.connect(zooms.append)
    model.events.connect(lambda info: changes.append(info.signal.name))
    model.zoom = 1.15
    model.zoom = 1.15                      # the same: nothing said
    model.lesson, model.slide = "zero-grad", 0
    assert zooms == [1.15] and changes == ["zoom", "lesson", "slide"]


def test_waiting_while_the_engine_has_not_confirmed_what_was_asked():
    model = WindowModel()
    assert not model.waiting and not model.in_lesson
    model.requested = Config(heads=2)
    assert model.waiting
    model.confirmed = Config(heads=2)
    assert not model.waiting


# ---- the view's fields: text size, theme, docks shown, full screen, the screen's room ----
LEAST, MOST = 0.6, 3.0        # the smallest and largest text sizes the window draws
STEP = 1.15                   # one Ctrl+=: each text 15% larger


def _clamped(zoom: float) -> float:
    return min(MOST, max(LEAST, zoom))


@given(st.floats(min_value=1e-6, max_value=1e6) | st.integers(min_value=1, max_value=10**6))
def test_any_positive_text_size_is_kept_within_the_sizes_drawn(zoom):
    model = WindowModel()
    seen = []
    model.events.zoom.connect(seen.append)
    model.zoom = zoom
    assert model.zoom == _clamped(float(zoom))
    assert seen == ([] if model.zoom == 1.0 else [model.zoom])


@given(st.sampled_from([math.nan, math.inf, -math.inf, 0, 0.0, -1.0, "1.5", None, True])
       | st.floats(max_value=0.0))
def test_a_text_size_that_is_no_size_is_refused_and_nothing_changes(zoom):
    model = WindowModel(zoom=1.5)
    seen = []
    model.events.zoom.connect(seen.append)
    with pytest.raises(WindowModelError):
        model.zoom = zoom
    assert model.zoom == 1.5 and seen == []


@given(st.lists(st.sampled_from(["+", "-", "0"]), max_size=40))
def test_ctrl_plus_minus_and_zero_in_any_order_stay_within_the_sizes(keys):
    model = WindowModel()
    expected = 1.0
    for key in keys:
        model.scale_text({"+": STEP, "-": 1 / STEP, "0": None}[key])
        expected = 1.0 if key == "0" else _clamped(expected * (STEP if key == "+" else 1 / STEP))
        assert model.zoom == pytest.approx(expected)
        assert LEAST <= model.zoom <= MOST


@given(st.text(max_size=12).filter(lambda name: name not in ("light", "dark")))
def test_only_a_known_theme_is_taken(name):
    model = WindowModel()
    with pytest.raises(WindowModelError):
        model.theme = name
    assert model.theme == "light"
    model.theme = "dark"
    assert model.theme == "dark"


def test_docks_shown_and_closed_are_announced_once_each():
    model = WindowModel()
    seen = []
    model.events.docks_shown.connect(seen.append)
    model.show_dock("graphDock", True)
    model.show_dock("graphDock", True)           # already shown: nothing said
    model.show_dock("memoryDock", True)
    model.show_dock("graphDock", False)
    assert seen == [{"graphDock"}, {"graphDock", "memoryDock"}, {"memoryDock"}]
    assert model.docks_shown == frozenset({"memoryDock"})
    with pytest.raises(WindowModelError):
        model.docks_shown = "graphDock"          # a name is not a set of its letters


@given(st.tuples(st.integers(-5000, 5000), st.integers(-5000, 5000),
                 st.integers(-5000, 5000), st.integers(-5000, 5000)))
def test_the_screens_room_has_a_size_or_is_refused(room):
    model = WindowModel()
    if room[2] > 0 and room[3] > 0:
        model.room = room
        assert model.room == room
    else:
        with pytest.raises(WindowModelError):
            model.room = room
        assert model.room is None


def test_full_screen_and_drawing_off_screen_announce_themselves():
    model = WindowModel()
    changes = []
    model.events.connect(lambda info: changes.append((info.signal.name, info.args[0])))
    model.full_screen = True
    model.full_screen = True
    model.drawn_off_screen = True
    assert changes == [("full_screen", True), ("drawn_off_screen", True)]
