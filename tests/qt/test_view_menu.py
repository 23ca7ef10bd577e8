"""The View menu and the text-size keys, driven as a user does (the menu bar clicked, the
item clicked, Ctrl+= typed): each changes the window's model, and the widgets and the
menu's ticks follow the model, whoever changed it (a dock's own close button, a lesson)."""
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget, QMenu

from gradviz.plain.config.config import Config

from waits import WAIT_MS

SMALL = Config(batch_size=32, heads=3)
STEP = 1.15   # one Ctrl+=: each text 15% larger
IN_THE_MENU = ("controlsDock", "gradientsDock", "graphDock", "codeDock", "memoryDock",
               "eventsDock")


@pytest.fixture(autouse=True)
def _docks_and_theme_back(module_window):
    """The module's one window with every dock shown and the light theme after each test,
    as a new window has them (a test that fails half way leaves them changed)."""
    yield
    module_window.model.theme = "light"
    for name in IN_THE_MENU:
        module_window.model.show_dock(name, True)


def click_in_view_menu(qtbot, w, name: str) -> None:
    """The View title on the menu bar clicked, then the item named `name` in its menu."""
    bar, menu = w.menuBar(), w.findChild(QMenu, "viewMenu")
    qtbot.mouseClick(bar, Qt.LeftButton, pos=bar.actionGeometry(menu.menuAction()).center())
    qtbot.waitUntil(menu.isVisible, timeout=WAIT_MS)
    action = w.findChild(QAction, name)
    qtbot.mouseClick(menu, Qt.LeftButton, pos=menu.actionGeometry(action).center())
    qtbot.waitUntil(lambda: not menu.isVisible(), timeout=WAIT_MS)


def ticked(w, name: str) -> bool:
    return w.findChild(QAction, name).isChecked()


def test_ctrl_plus_and_minus_change_the_model_and_every_panel_follows(qtbot, shared_window):
    w = shared_window(SMALL)
    m, chart = w.model, w.cosine.minimumHeight()
    for _ in range(2):
        qtbot.keyClick(w, Qt.Key_Equal, Qt.ControlModifier)
    assert m.zoom == pytest.approx(STEP ** 2)
    assert w.theme.zoom == pytest.approx(STEP ** 2)           # the window shows the model's
    # the least sizes grew with it: the screen fitting tabs a panel rather than crush it
    assert w.cosine.minimumHeight() == int(150 * STEP ** 2) and chart == 150
    assert w.loss_plot.minimumHeight() == int(170 * STEP ** 2)
    qtbot.keyClick(w, Qt.Key_Minus, Qt.ControlModifier)
    assert m.zoom == pytest.approx(STEP) and w.theme.zoom == pytest.approx(STEP)
    click_in_view_menu(qtbot, w, "normalTextAction")
    assert m.zoom == 1.0 and w.theme.zoom == 1.0 and w.cosine.minimumHeight() == 150
    click_in_view_menu(qtbot, w, "largerTextAction")
    assert m.zoom == pytest.approx(STEP)


def test_the_dark_theme_tick_follows_the_model(qtbot, shared_window):
    w = shared_window(SMALL)
    assert not ticked(w, "darkThemeAction") and w.theme.name == "light"
    click_in_view_menu(qtbot, w, "darkThemeAction")
    assert w.model.theme == "dark" and w.theme.name == "dark" and ticked(w, "darkThemeAction")
    w.model.theme = "light"                    # not the menu: its tick follows all the same
    assert not ticked(w, "darkThemeAction") and w.theme.name == "light"


def dark(colour) -> bool:
    return colour.lightness() < 80


def mean_lightness(widget) -> float:
    """How light a widget is drawn, on average (0 black, 255 white)."""
    image = widget.grab().toImage()
    points = [image.pixelColor(x, y).lightness()
              for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)]
    return sum(points) / len(points)


def test_the_dark_theme_darkens_the_whole_window_over_a_light_desktops_palettes(
        qtbot, shared_window):
    """A desktop's platform theme (KDE's, GTK's) gives labels, docks, menus, text and
    buttons light palettes of their own, and gives them again when the desktop's theme
    changes: View > Dark theme darkened only the plots there. The window, each dock, the
    settings' labels, the run bar, the menu bar, the status bar, the lessons' page and
    the narration are all dark, and drawn dark."""
    from PySide6.QtGui import QPalette
    from PySide6.QtWidgets import QApplication, QLabel
    w = shared_window(SMALL)
    app = QApplication.instance()
    light = QPalette(app.palette())
    classes = ("QLabel", "QDockWidget", "QTextEdit", "QMenuBar", "QAbstractButton",
               "QAbstractItemView", "QStatusBar")
    for name in classes:                       # the desktop's, before...
        app.setPalette(light, name)
    click_in_view_menu(qtbot, w, "darkThemeAction")
    for name in classes:                       # ... and again after (its theme changed)
        app.setPalette(light, name)
    label = w.controls.findChildren(QLabel)[0]
    window, base = QPalette.ColorRole.Window, QPalette.ColorRole.Base
    for widget in (w, w.controls_dock, w.gradients_dock, w.run_bar, label, w.menuBar(),
                   w.statusBar(), w.lessons.start_page.heading, w.lessons.narration.heading):
        assert dark(widget.palette().color(window)), widget.objectName()
    for widget in (w.lessons.narration.text, w.lessons.start_page.list, w.events_view):
        assert dark(widget.palette().color(base)), widget.objectName()
    w.controls_dock.show()
    w.controls_dock.raise_()
    qtbot.waitUntil(w.controls_dock.isVisible, timeout=WAIT_MS)
    assert mean_lightness(w.controls_dock) < 90 and mean_lightness(w.menuBar()) < 90
    assert mean_lightness(w.statusBar()) < 90
    click_in_view_menu(qtbot, w, "darkThemeAction")   # light again, the same way
    assert not dark(label.palette().color(window)) and not dark(w.palette().color(window))


def test_a_dock_closed_anywhere_is_unticked_and_ticking_it_shows_it(qtbot, shared_window):
    w = shared_window(SMALL)
    memory = w.findChild(QDockWidget, "memoryDock")
    assert "memoryDock" in w.model.docks_shown and ticked(w, "show_memoryDock")
    click_in_view_menu(qtbot, w, "show_memoryDock")
    assert memory.isHidden() and "memoryDock" not in w.model.docks_shown
    assert not ticked(w, "show_memoryDock")
    click_in_view_menu(qtbot, w, "show_memoryDock")
    assert not memory.isHidden() and "memoryDock" in w.model.docks_shown
    # the dock's own close button: the model, and so the tick, follow
    events = w.findChild(QDockWidget, "eventsDock")
    events.close()
    assert "eventsDock" not in w.model.docks_shown and not ticked(w, "show_eventsDock")
    w.model.show_dock("eventsDock", True)     # the model asked: the dock is shown
    assert not events.isHidden() and ticked(w, "show_eventsDock")


def test_a_lesson_puts_the_docks_away_and_the_ticks_follow_there_and_back(qtbot, shared_window):
    w = shared_window(SMALL)
    shown_before = w.model.docks_shown
    assert set(IN_THE_MENU) <= shown_before and all(ticked(w, f"show_{n}") for n in IN_THE_MENU)
    w.lessons.open_named("backward-twice")
    assert w.model.docks_shown == frozenset()
    assert not any(ticked(w, f"show_{name}") for name in IN_THE_MENU)
    qtbot.keyClick(w, Qt.Key_Escape)
    qtbot.waitUntil(lambda: w.model.docks_shown == shown_before, timeout=WAIT_MS)
    assert all(ticked(w, f"show_{name}") for name in IN_THE_MENU)


def test_f11_and_the_full_screen_item_go_through_the_model(qtbot, shared_window):
    w = shared_window(SMALL)
    qtbot.keyClick(w, Qt.Key_F11)
    qtbot.waitUntil(w.isFullScreen, timeout=WAIT_MS)
    assert w.model.full_screen and ticked(w, "fullScreenAction")
    click_in_view_menu(qtbot, w, "fullScreenAction")
    qtbot.waitUntil(lambda: not w.isFullScreen(), timeout=WAIT_MS)
    assert not w.model.full_screen and not ticked(w, "fullScreenAction")
    # full screen by other hands (a lesson's F5): the model is told, and F11 leaves it
    w.showFullScreen()
    qtbot.waitUntil(lambda: w.model.full_screen, timeout=WAIT_MS)
    assert ticked(w, "fullScreenAction")
    qtbot.keyClick(w, Qt.Key_F11)
    qtbot.waitUntil(lambda: not w.isFullScreen(), timeout=WAIT_MS)


def test_the_model_knows_the_screens_room_and_the_window_keeps_within_it(qtbot, shared_window):
    w = shared_window(SMALL)
    room = w.screen().availableGeometry()
    qtbot.waitUntil(lambda: w.model.room is not None, timeout=WAIT_MS)
    assert w.model.room == (room.x(), room.y(), room.width(), room.height())
    # a window dragged larger than its screen comes back within it at the next fit
    w.resize(room.width() + 300, room.height() + 200)
    qtbot.waitUntil(lambda: w.width() <= room.width() and w.height() <= room.height(),
                    timeout=WAIT_MS)


def test_a_slides_panels_leave_their_least_size_to_the_stage_and_get_it_back(qtbot, shared_window):
    """The screen fitting follows the model's panels: a chart on a slide's stage keeps no
    least size of the docks' (the stage places it), and has it again, at the text size
    then in force, once the lesson is left."""
    w = shared_window(SMALL)
    w.drawn_off_screen = True   # a 1920x1080 projector: the slide has room at a larger text
    w.resize(1920, 1080)
    w.lessons.open_named("losses-disagree")
    assert w.model.panels == ("cosine", "junction")
    assert w.cosine.minimumHeight() == 0 and w.junction.minimumWidth() == 0
    assert w.grad_bars.minimumHeight() == 150                  # not on the slide: as ever
    qtbot.keyClick(w, Qt.Key_Equal, Qt.ControlModifier)
    assert w.cosine.minimumHeight() == 0
    assert w.grad_bars.minimumHeight() == int(150 * STEP)
    qtbot.keyClick(w, Qt.Key_Escape)
    assert w.model.panels == ()
    assert w.cosine.minimumSize().toTuple() == (int(210 * STEP), int(150 * STEP))
