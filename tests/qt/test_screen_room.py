"""Where screen fitting moves a window to keep it on its screen (QRect arithmetic only)."""
from PySide6.QtCore import QRect

from gradviz.qt.screen_fit import inside_room

ROOM = QRect(0, 0, 640, 360)   # a 1280x720 screen at QT_SCALE_FACTOR=2, as Qt sees it


def test_a_window_past_the_bottom_moves_up_onto_the_screen():
    """As high as the room, placed 25 px down: its status bar was off the screen."""
    assert inside_room(QRect(1, 25, 638, 360), ROOM) == (1, 0)


def test_a_window_past_the_right_edge_moves_left_and_one_inside_stays():
    assert inside_room(QRect(100, 10, 600, 300), ROOM) == (40, 10)
    assert inside_room(QRect(0, 0, 640, 360), ROOM) is None
    assert inside_room(QRect(20, 30, 400, 200), ROOM) is None


def test_a_window_larger_than_the_room_keeps_its_top_left_corner_on_it():
    assert inside_room(QRect(-50, -20, 900, 500), QRect(10, 24, 640, 336)) == (10, 24)
