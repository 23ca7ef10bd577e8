"""The window's state model, without a window: each field announces a change, once, and
only a real change."""
import math

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from gradviz.plain.config.config import Config
from gradviz.plain.window.window_model import WindowModel, WindowModelError


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
    _refused_unchanged(WindowModel(zoom=1.5), "zoom", zoom)


def _refused_unchanged(model: WindowModel, field: str, value) -> list:
    """Setting field to value raises, and the field keeps its value, unannounced; what
    its signal says from then on."""
    before, seen = getattr(model, field), []
    getattr(model.events, field).connect(seen.append)
    with pytest.raises(WindowModelError):
        setattr(model, field, value)
    assert getattr(model, field) == before and seen == []
    return seen


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
@example((0, 0, 0, 768))      # no width: the edge itself
@example((0, 0, 1024, 0))     # no height
@example((0, 0, 1, 1))        # the least room
def test_the_screens_room_has_a_size_or_is_refused(room):
    model = WindowModel()
    if room[2] > 0 and room[3] > 0:
        model.room = room
        assert model.room == room
    else:
        with pytest.raises(WindowModelError):
            model.room = room
        assert model.room is None


@pytest.mark.parametrize("first, second", [("full_screen", "drawn_off_screen"),
                                           ("blank", "text_too_large")])
def test_the_flags_announce_each_change_once(first, second):
    """Full screen and drawing off screen; a blank screen (B), a lesson's stage out of
    room at the text size asked for."""
    model = WindowModel()
    changes = []
    model.events.connect(lambda info: changes.append((info.signal.name, info.args[0])))
    setattr(model, first, True)
    setattr(model, first, True)          # the same: nothing said
    setattr(model, second, True)
    setattr(model, second, False)
    assert changes == [(first, True), (second, True), (second, False)]


# ---- the pace, the play mode, a blank screen, text too large for a lesson's stage -------
PACES = (0, 5, 20, 50, 100, 200, 350, 500, 750, 1000, 1500)   # the run bar's slider


@pytest.mark.parametrize("pace", [7, -5, 2000, 100.5, "100", None, True, False])
def test_a_pace_the_run_bar_has_not_is_refused_and_nothing_changes(pace):
    model = WindowModel(pace_ms=350)
    seen = _refused_unchanged(model, "pace_ms", pace)
    model.pace_ms = 1500
    assert seen == [1500]


def test_only_steps_or_phases_is_a_play_mode():
    model = WindowModel()
    seen = []
    model.events.play_mode.connect(seen.append)
    for mode in ("phase", "", None, "Phases"):
        with pytest.raises(WindowModelError):
            model.play_mode = mode
    model.play_mode = "phases"
    assert model.play_mode == "phases" and seen == ["phases"]


@given(st.floats(min_value=0.1, max_value=1000.0))
def test_a_lesson_pace_becomes_the_run_bars_nearest(per_second):
    from gradviz.plain.window.window_model import PACES_MS, nearest_pace_ms
    assert PACES_MS == PACES
    wanted = 1000.0 / per_second
    ms = nearest_pace_ms(per_second)
    assert ms in PACES and ms > 0   # a pace asked for is never "as fast as it goes"
    assert all(abs(ms - wanted) <= abs(other - wanted) for other in PACES[1:])
    WindowModel().pace_ms = ms     # the model takes it


@pytest.mark.parametrize("per_second, ms", [(0, 0), (-1, 0), (1, 1000), (2, 500),
                                            (50, 20), (19, 50), (0.5, 1500)])
def test_a_lesson_pace_in_steps_a_second_is_this_pause(per_second, ms):
    from gradviz.plain.window.window_model import nearest_pace_ms
    assert nearest_pace_ms(per_second) == ms



@pytest.mark.parametrize("field, good, bad", [
    ("sweep_box_ms", [0, 400], [-1, True, False, 2.5, "400", None]),
    ("stop_at", [None, 0, 12], [-1, True, False, 3.0, "12"]),
    ("engine_state", ["starting", "building", "ready", "stopped"], ["dead", "", None]),
])
def test_a_count_or_a_state_the_window_cannot_show_is_refused(field, good, bad):
    """A bool is no count (True == 1 in Python), a stop is a step count from 0."""
    model = WindowModel()
    for value in good:
        setattr(model, field, value)
        assert getattr(model, field) == value and type(getattr(model, field)) is type(value)
    for value in bad:
        _refused_unchanged(model, field, value)


def test_the_engines_settings_are_composed_from_every_field():
    from gradviz.plain.records.engine_settings import EngineSettings
    model = WindowModel(pace_ms=350, play_mode="phases", sweep_box_ms=250, stop_at=9,
                        show_saved=True, track_node_grads=False)
    assert model.engine_settings() == EngineSettings(
        delay_ms=350, animate_phases=True, stop_at=9, show_saved=True,
        track_node_grads=False, sweep_box_ms=250)
    assert WindowModel().engine_settings() == EngineSettings()
