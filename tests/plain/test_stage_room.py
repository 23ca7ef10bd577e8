"""What gives way on a small screen's lesson stage (QT_SCALE_FACTOR=2 on a 1280x720
screen leaves Qt 640x360): the run bar's row, never outside a lesson."""
import pytest

from gradviz.plain.stage_layout import RUN_BAR_ROOM_AT_LEAST, run_bar_shown


@pytest.mark.parametrize("room_height, shown", [
    (360, False),    # 1280x720 at QT_SCALE_FACTOR=2: the stage takes the bar's row
    (RUN_BAR_ROOM_AT_LEAST - 1, False),
    (RUN_BAR_ROOM_AT_LEAST, True),
    (480, True),     # 1280x720 at 1.5: the bar stays
    (768, True)])
def test_a_lesson_shows_the_run_bar_only_where_the_screen_is_high_enough(room_height, shown):
    assert run_bar_shown(True, room_height) is shown


@pytest.mark.parametrize("room_height", [360, 200, None])
def test_outside_a_lesson_the_run_bar_is_always_shown(room_height):
    assert run_bar_shown(False, room_height)


def test_before_the_screen_is_known_a_lesson_keeps_the_run_bar():
    assert run_bar_shown(True, None)
