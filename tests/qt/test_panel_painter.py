"""The panel painter: a panel is brought up to date at most once a frame and only when
what it shows changed; a hidden one (a tab behind another, a closed dock) costs nothing
until it is shown; and the pause after a frame follows the GUI thread's CPU time."""
from PySide6.QtCore import QObject
from PySide6.QtWidgets import QTabWidget, QWidget

from gradviz.qt.panel_painter import PanelPainter


class Panel(QWidget):
    def __init__(self):
        super().__init__()
        self.updates = 0

    def update_from(self, history) -> None:
        self.updates += 1


class Clock:
    """A CPU clock the test moves by hand."""

    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def painter_of(panels, key, clock=None, history=None, between_frames=lambda: None):
    """(its owner, a painter) of these panels; key[0] is what an up-to-date one shows."""
    owner = QObject()
    painter = PanelPainter(owner, lambda: panels, lambda: history, lambda: key[0],
                           lambda: None, between_frames=between_frames,
                           **({"clock": clock} if clock else {}))
    return owner, painter


def test_a_panel_in_a_tab_behind_is_left_alone_until_shown(qtbot):
    front, behind = Panel(), Panel()
    tabs = QTabWidget()
    qtbot.addWidget(tabs)
    tabs.addTab(front, "front")
    tabs.addTab(behind, "behind")
    tabs.show()
    qtbot.waitExposed(tabs)
    key = [(0, 10)]
    _owner, painter = painter_of([front, behind], key)
    painter.paint_all()
    assert (front.updates, behind.updates) == (1, 0)
    front.setVisible(False)   # as a closed dock's panel: left alone too
    key[0] = (0, 15)
    painter.paint_all()
    assert (front.updates, behind.updates) == (1, 0)
    front.setVisible(True)
    assert (front.updates, behind.updates) == (2, 0)
    key[0] = (0, 20)   # new steps: the one in front follows, the one behind does not
    painter.paint_all()
    assert (front.updates, behind.updates) == (3, 0)
    tabs.setCurrentWidget(behind)   # shown: it catches up at once, not at the next frame
    assert (front.updates, behind.updates) == (3, 1)
    painter.paint_all()
    assert (front.updates, behind.updates) == (3, 1)   # and is up to date after


def test_a_panel_already_up_to_date_is_not_updated_again(qtbot):
    panel = Panel()
    qtbot.addWidget(panel)
    panel.show()
    qtbot.waitExposed(panel)
    key = [(0, 5)]
    _owner, painter = painter_of([panel], key)
    for _ in range(3):
        painter.paint_all()
    assert panel.updates == 1


def test_the_pause_after_a_frame_follows_the_threads_cpu_time(qtbot):
    clock = Clock()
    _owner, painter = painter_of([], [(0, 0)], clock)
    painter._frame_started = 0.0
    clock.now = 0.012   # 12 ms of the GUI thread's time: 30% of it is 12 + 28 ms
    painter._frame_done()
    assert painter.frame_timer.interval() == 28
    clock.now = 0.003   # a light frame: the next one 40 ms after it began (25 a second)
    painter._frame_done()
    assert painter.frame_timer.interval() == 37
    clock.now = 0.6     # a very heavy one: still a frame every second at most
    painter._frame_done()
    assert painter.frame_timer.interval() == 1000
    painter.stop()



def test_the_step_count_moves_on_while_a_frame_waits_out_its_share(qtbot):
    """The step count on screen moves on between frames: on a busy machine a frame's
    pause reached a second, and the count stood still for longer."""
    taken: list[int] = []
    _owner, painter = painter_of([], [(0, 0)], between_frames=lambda: taken.append(1))
    painter.start()
    painter.frame_timer.stop()   # no frame comes: only the steps' own timer is left
    qtbot.waitUntil(lambda: len(taken) >= 2, timeout=10_000)
    painter.stop()
