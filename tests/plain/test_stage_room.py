"""What gives way on a small screen's lesson stage: the run bar's row where the screen
itself is low, never outside a lesson, and never for a scale factor (QT_SCALE_FACTOR=2 on
a 1280x720 screen leaves Qt 640x360: the bar, with Play, Step and Reset, was gone)."""
import pytest

from gradviz.plain.stage.stage_layout import RUN_BAR_ROOM_AT_LEAST, run_bar_shown


@pytest.mark.parametrize("room_height, ratio, shown", [
    (360, 1.0, False),   # a screen 360 px high: the stage takes the bar's row
    (RUN_BAR_ROOM_AT_LEAST - 1, 1.0, False),
    (RUN_BAR_ROOM_AT_LEAST, 1.0, True),
    (360, 2.0, True),    # 1280x720 at QT_SCALE_FACTOR=2: 720 of the screen's pixels
    (480, 1.5, True),    # 1280x720 at 1.5
    (200, 2.0, False),   # 400 of the screen's pixels
    (768, 1.0, True)])
def test_a_lesson_shows_the_run_bar_only_where_the_screen_is_high_enough(room_height, ratio,
                                                                         shown):
    assert run_bar_shown(True, room_height, ratio) is shown


@pytest.mark.parametrize("room_height", [360, 200, None])
def test_outside_a_lesson_the_run_bar_is_always_shown(room_height):
    assert run_bar_shown(False, room_height)


def test_before_the_screen_is_known_a_lesson_keeps_the_run_bar():
    assert run_bar_shown(True, None)
