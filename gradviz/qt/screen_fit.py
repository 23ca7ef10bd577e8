"""Keep the window on its screen (a 1024x768 or 1280x720 projector included): when the
panels' minimum sizes (which grow with the text size) add up to more than the screen,
panels are moved into tabs rather than crushed, and the window is never sized past the
screen's edge. Each move is made only for the direction it frees room in.

ScreenFit observes the window's model (plain.window.window_model) and the screen: a new text
size, a lesson's slide, a dock shown or closed, full screen asked for, a new screen or
resolution, a panel asking for room; it changes the model only where the screen decides
(the text made smaller where no layout fits, full screen left by other hands). A
lesson's stage is placed by plain.stage.stage_layout, not here.
"""
from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, QRect, Qt, QTimer, Signal
from PySide6.QtGui import QScreen
from PySide6.QtWidgets import QApplication, QDockWidget, QMainWindow, QScrollArea, QWidget

from ..plain.stage.stage_layout import run_bar_shown
from ..plain.window.window_model import WindowModel
from .own_layout import own_layout
from .run_bar import RunBar
from .theme import TEXT_STEP
from .widgets.gradients_panel import GradientsPanel
from .widgets.loss_plot import LossPlot
from .widgets.plot_stack import PlotStack

# the least size (px at text size 1, scaled with the zoom) of a panel: below it the
# curves would be crushed under their own title, legend and axes
LOSS_MIN_HEIGHT, NORM_MIN_HEIGHT, GRAPH_MIN_HEIGHT = 170, 130, 130
CHART_MIN_SIZE = (210, 150)   # a gradient chart: its axis, its legend and a plot between
# the three gradient charts side by side need about this much room (px at text size 1):
# in less, each title takes its plot's room (seen in the first layout at 1280x720 and
# 1024x768), and the charts go into tabs of their own, each the panel's full size
CHARTS_TOGETHER = (560, 420)
# the least height of the loss curves' data area (px at text size 1), under its title,
# legend and axis: where the middle column is narrow, the title wraps and takes the
# rest, and the loss curves and the gradient norm go into tabs of their own
LOSS_PLOT_LEAST = 70
FIT_EVERY_MS = 250   # panels ask for room often while training: fits at most this often
# each panel's least size at text size 1, by the name a lesson's slide gives it: (width,
# height), 0 where its width is left to its dock; the graph's is its canvas's
LEAST = {"grad_norms": CHART_MIN_SIZE, "junction": CHART_MIN_SIZE, "cosine": CHART_MIN_SIZE,
         "loss": (0, LOSS_MIN_HEIGHT), "global_norm": (0, NORM_MIN_HEIGHT),
         "graph": (0, GRAPH_MIN_HEIGHT)}


@dataclass(frozen=True)
class FitParts:
    """What screen fitting moves and measures, named once by the window."""
    graph_dock: QDockWidget          # the tab group the others join at the bottom
    gradients_dock: QDockWidget
    left_docks: tuple[QDockWidget, ...]   # the settings and the lessons' start page
    gradients_panel: GradientsPanel
    plot_stack: PlotStack
    loss_plot: LossPlot
    run_bar: RunBar
    # the panels by a slide's names (the graph's canvas for the graph): those in LEAST
    # have a least size that grows with the text
    least: Mapping[str, QWidget]


def available(window: QWidget) -> QRect:
    screen = window.screen() or QApplication.primaryScreen()
    return screen.availableGeometry()


def overflow(window: QWidget) -> tuple[bool, bool]:
    """(too wide, too tall) for the screen, at the panels' minimum sizes."""
    room, need = available(window), window.minimumSizeHint()
    return need.width() > room.width(), need.height() > room.height()


def too_big(window: QWidget) -> bool:
    return any(overflow(window))


def set_least_sizes(least: Mapping[str, QWidget], zoom: float,
                    staged: Collection[str] = ()) -> None:
    """Every panel's least size, grown with the text: where they no longer fit the
    screen, the fit moves panels into tabs rather than crush them. A lesson's stage
    keeps the least sizes of the panels it shows (staged) itself."""
    for name, widget in least.items():
        if name not in LEAST:
            continue
        w, h = (0, 0) if name in staged else (int(v * zoom) for v in LEAST[name])
        if LEAST[name][0]:
            widget.setMinimumSize(w, h)
        else:
            widget.setMinimumHeight(h)


def inside_room(frame: QRect, room: QRect) -> tuple[int, int] | None:
    """Where a window whose frame is frame goes to be inside room (None: it is): past
    the right or the bottom edge it moves left or up (at QT_SCALE_FACTOR=2 on a
    1280x720 screen the window, as high as the room, was placed 25 px down, its status
    bar off the screen), never past the left or top edge."""
    x = max(room.left(), min(frame.x(), room.right() + 1 - frame.width()))
    y = max(room.top(), min(frame.y(), room.bottom() + 1 - frame.height()))
    return None if (x, y) == (frame.x(), frame.y()) else (x, y)


def _into_tabs_of(window: QMainWindow, anchor: QDockWidget, docks) -> None:
    for dock in docks:
        hidden = dock.isHidden()   # a closed lesson stays closed
        # moved to the anchor's area first: Qt 6.12 leaves a dock that is tabbed in
        # another area where it is when asked to tabify it directly
        window.addDockWidget(window.dockWidgetArea(anchor), dock)
        window.tabifyDockWidget(anchor, dock)
        dock.setHidden(hidden)


def _beside_the_graph(window: QMainWindow, dock: QDockWidget) -> None:
    """dock at the bottom, to the right of the graph's tab group (added to the area, not
    split off the graph: Qt adds a dock split off a tabbed one as one more tab)."""
    hidden = dock.isHidden()
    window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock, Qt.Orientation.Horizontal)
    dock.setHidden(hidden)


def _bottom_to_the_right(window: QMainWindow, anchor: QDockWidget) -> None:
    """anchor, and every dock tabbed with it at the bottom, to the right of the charts."""
    bottom = Qt.DockWidgetArea.BottomDockWidgetArea
    others = tuple(d for d in window.findChildren(QDockWidget)
                   if d is not anchor and not d.isFloating()
                   and window.dockWidgetArea(d) == bottom)
    hidden = anchor.isHidden()
    window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, anchor)
    anchor.setHidden(hidden)
    _into_tabs_of(window, anchor, others)


def _scroll_sideways(docks: tuple[QDockWidget, ...]) -> None:
    for dock in docks:
        scroll = dock.widget()
        if isinstance(scroll, QScrollArea):
            scroll.setMinimumWidth(0)
            scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)


class ScreenFit(QObject):
    notice = Signal(str)   # the text was made smaller for the screen, and why
    fitted = Signal()      # a fit was made (a lesson's stage is laid out again for it)

    def __init__(self, window: QMainWindow, model: WindowModel, parts: FitParts):
        super().__init__(window)
        self.window, self.model, self.parts = window, model, parts
        self.timer = QTimer(self)   # fits asked for in a burst, made once
        self.timer.setSingleShot(True)
        self.timer.setInterval(FIT_EVERY_MS)
        self.timer.timeout.connect(self.fit)
        self._screen: QScreen | None = None
        self._watching_screen = False
        window.installEventFilter(self)
        model.events.zoom.connect(self._least_sizes)
        model.events.panels.connect(self._least_sizes)
        for field in (model.events.room, model.events.docks_shown,
                      model.events.drawn_off_screen, model.events.lesson):
            field.connect(self.ask)
        model.events.full_screen.connect(self._full_screen)
        # a lesson's stage found no room at the text size asked for
        model.events.text_too_large.connect(self._cramped)
        self._least_sizes()

    # ---- what is observed -----------------------------------------------------------------
    def _cramped(self, cramped: bool) -> None:
        if cramped:
            self.text_too_large()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:   # noqa: N802 (Qt's name)
        if watched is self.window:
            kind = event.type()
            if kind in (QEvent.Type.LayoutRequest, QEvent.Type.Resize):
                # a panel grew (a history plot shown, a larger text), or the window was
                # sized by hand: does it still fit?
                self.ask()
            elif kind == QEvent.Type.WindowStateChange:
                # F11, a lesson's F5, or the window manager: the model says what is so
                self.model.full_screen = self.window.isFullScreen()
            elif kind == QEvent.Type.Show and not self._watching_screen \
                    and self.window.windowHandle() is not None:
                # the window's own handle exists once it is shown: its screen from then on
                handle = self.window.windowHandle()
                handle.screenChanged.connect(self._on_screen)
                self._watching_screen = True
                self._on_screen(handle.screen())
        return False

    def _on_screen(self, screen: QScreen | None) -> None:
        """The window on another screen: its room, now and as its resolution changes."""
        if self._screen is not None and self._screen is not screen:
            self._screen.availableGeometryChanged.disconnect(self._on_room)
        if screen is not None and screen is not self._screen:
            screen.availableGeometryChanged.connect(self._on_room)
        self._screen = screen
        self._on_room()

    def _on_room(self, *_changed) -> None:
        room = available(self.window)
        self.model.room = (room.x(), room.y(), room.width(), room.height())

    def _least_sizes(self, *_changed) -> None:
        set_least_sizes(self.parts.least, self.model.zoom, self.model.panels)

    def _full_screen(self, on: bool) -> None:
        if on != self.window.isFullScreen():
            self.window.showFullScreen() if on else self.window.showNormal()

    def ask(self, *_changed) -> None:
        """A fit soon (once for a burst of asks), while the window is on screen."""
        if self.window.isVisible() and not self.timer.isActive():
            self.timer.start()

    # ---- what is changed ------------------------------------------------------------------
    def text_too_large(self) -> None:
        """The panels at this text size need more than the screen even in tabs (or a
        lesson's stage cannot place them): one step smaller, never below normal, and why."""
        zoom = max(1.0, self.model.zoom / TEXT_STEP)
        self.model.zoom = zoom
        room = available(self.window)
        self.notice.emit(f"Text size {zoom:.0%} is the largest this {room.width()}x"
                         f"{room.height()} screen has room for (closing a panel makes more)")

    def fit(self) -> None:
        """Tab panels in until the window's minimum fits, then keep its size within reach.

        A window drawn for a picture (--screenshot, at a projector's 1920x1080 whatever
        the screen) is left as it is."""
        if not self.model.drawn_off_screen:
            self._fit()
        self.fitted.emit()

    def _fit(self) -> None:
        window, parts, model = self.window, self.parts, self.model
        self._on_room()
        room = available(window)
        self.parts.run_bar.setVisible(run_bar_shown(model.in_lesson, room.height(),
                                                     window.devicePixelRatioF()))
        if not model.in_lesson:
            # a lesson's stage places its panels itself (plain.stage.stage_layout), none in
            # tabs; the docks are put away, and the panels' tabs are not the stage's
            self._tab_panels_in()
            tabs_for_cramped_charts(parts.gradients_panel, model.zoom)
            _tabs_for_cramped_plots(parts.plot_stack, parts.loss_plot, model.zoom)
        if too_big(window) and model.zoom > 1.0:
            # even with its panels in tabs, the window needs more than the screen at this
            # text size (Ctrl+= a few times at 1280x720): one step smaller, whose layout
            # comes back here, rather than the run bar or the graph's tabs past the edge
            self.text_too_large()
        width, height = min(window.width(), room.width()), min(window.height(), room.height())
        if (width, height) != (window.width(), window.height()) and not window.isFullScreen():
            window.resize(width, height)
        move_to = inside_room(window.frameGeometry(), room)
        if move_to is not None:
            window.move(*move_to)

    def _tab_panels_in(self) -> None:
        window, parts = self.window, self.parts
        # (what it frees: w(idth), h(eight)), the move
        moves = [
            # the gradient charts below, beside the graph: one column less, and the
            # settings stay in view beside them (tabbed with the settings, a student
            # could not flip a toggle and watch its effect at 1024x768)
            ("w", lambda: _beside_the_graph(window, parts.gradients_dock)),
            # the three gradient charts go into tabs of their own: half the height
            ("wh", lambda: parts.gradients_panel.set_compact(True)),
            # the loss curves and the gradient norm go into tabs: neither is crushed
            ("h", lambda: parts.plot_stack.set_compact(True)),
            # the left column joins the graph's tabs at the bottom: the loss curves get
            # the width
            ("w", lambda: _into_tabs_of(window, parts.graph_dock,
                                        parts.left_docks + (parts.gradients_dock,))),
        ]
        # for a screen too small at the normal text size only (a larger text is made a
        # step smaller instead: taken at 175% on an 800x800 screen, these moves left the
        # window too wide at 152%, and one Ctrl+= past the largest size stepped the text
        # down to 115%)
        if self.model.zoom <= 1.0:
            moves += [
                # the graph's tab group beside the charts, not below them: one row less
                # (at QT_SCALE_FACTOR=2 on a 1280x720 screen, 640x360 to Qt, the two rows
                # needed 532 px and the window ran 344 px past the screen's bottom)
                ("h", lambda: _bottom_to_the_right(window, parts.graph_dock)),
                # beside the charts, the settings' width was the tab group's: they scroll
                # sideways rather than push the window past the screen's right edge
                ("w", lambda: _scroll_sideways(parts.left_docks)),
                ("w", parts.run_bar.allow_least),
            ]
        for dims, move in moves:
            wide, tall = overflow(window)
            if not (wide or tall):
                break
            if (wide and "w" in dims) or (tall and "h" in dims):
                move()
                parts.graph_dock.raise_()   # the graph stays the tab in front of its group
                own_layout(window).activate()


def tabs_for_cramped_charts(panel: GradientsPanel, zoom: float) -> None:
    """The gradient charts into tabs where their panel is smaller than they need side by
    side (only this way: going back is a lesson's or the View menu's choice, not a
    resize's, so the charts never flip between the two as a dock is dragged)."""
    if panel.compact or not panel.isVisible():
        return
    if panel.width() < CHARTS_TOGETHER[0] * zoom or panel.height() < CHARTS_TOGETHER[1] * zoom:
        panel.set_compact(True)


def _tabs_for_cramped_plots(stack: PlotStack, panel: LossPlot, zoom: float) -> None:
    """The loss curves and the gradient norm into tabs where the loss curves' data area
    is lower than LOSS_PLOT_LEAST (only this way, as for the charts)."""
    if stack.compact or not panel.plot_widget.isVisible() or len(stack.shown) < 2:
        return
    if panel.plot.getViewBox().height() < LOSS_PLOT_LEAST * zoom:
        stack.set_compact(True)
