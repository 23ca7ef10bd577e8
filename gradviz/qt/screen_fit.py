"""Keep the window on its screen (a 1024x768 or 1280x720 projector included): when the
panels' minimum sizes (which grow with the text size) add up to more than the screen,
panels are moved into tabs rather than crushed, and the window is never sized past the
screen's edge. Each move is made only for the direction it frees room in."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

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


def set_least_sizes(window, zoom: float) -> None:
    """Every panel's least size, grown with the text: where they no longer fit the
    screen, fit_to_screen moves panels into tabs rather than crush them."""
    staged = window.lessons.staged_panels()   # a lesson's stage keeps theirs itself

    def least(panel, size: int) -> int:
        return 0 if panel in staged else int(size * zoom)
    for panel in (window.grad_bars, window.junction, window.cosine):
        panel.setMinimumSize(least(panel, CHART_MIN_SIZE[0]), least(panel, CHART_MIN_SIZE[1]))
    window.loss_plot.setMinimumHeight(least(window.loss_plot, LOSS_MIN_HEIGHT))
    window.global_norm.setMinimumHeight(least(window.global_norm, NORM_MIN_HEIGHT))
    window.graph_view.canvas.setMinimumHeight(least(window.graph_view, GRAPH_MIN_HEIGHT))


def available(window):
    screen = window.screen() or QApplication.primaryScreen()
    return screen.availableGeometry()


def overflow(window) -> tuple[bool, bool]:
    """(too wide, too tall) for the screen, at the panels' minimum sizes."""
    room, need = available(window), window.minimumSizeHint()
    return need.width() > room.width(), need.height() > room.height()


def too_big(window) -> bool:
    return any(overflow(window))


def _into_tabs_of(window, anchor, docks) -> None:
    for dock in docks:
        hidden = dock.isHidden()   # a closed lesson stays closed
        # moved to the anchor's area first: Qt 6.12 leaves a dock that is tabbed in
        # another area where it is when asked to tabify it directly
        window.addDockWidget(window.dockWidgetArea(anchor), dock)
        window.tabifyDockWidget(anchor, dock)
        dock.setHidden(hidden)


def _beside_the_graph(window, dock) -> None:
    """dock at the bottom, to the right of the graph's tab group (added to the area, not
    split off the graph: Qt adds a dock split off a tabbed one as one more tab)."""
    hidden = dock.isHidden()
    window.addDockWidget(Qt.BottomDockWidgetArea, dock, Qt.Horizontal)
    dock.setHidden(hidden)


def fit_to_screen(window) -> None:
    """Tab panels in until the window's minimum fits, then keep its size within reach.

    A window drawn for a picture (--screenshot, at a projector's 1920x1080 whatever the
    screen) sets `drawn_off_screen` and is left as it is."""
    if window.drawn_off_screen:
        return
    bottom = window.graph_dock
    # (what it frees: w(idth), h(eight)), the move
    # the gradient charts below, beside the graph: one column less, and the settings stay
    # in view beside them (tabbed with the settings, a student could not flip a toggle and
    # watch its effect at 1024x768)
    gradients_below = ("w", lambda: _beside_the_graph(window, window.gradients_dock))
    left = (window.controls_dock, window.lessons.start_dock)
    left_down = ("w", lambda: _into_tabs_of(window, bottom, left + (window.gradients_dock,)))
    moves = [
        gradients_below,
        # the three gradient charts go into tabs of their own: half the height
        ("wh", lambda: window.gradients_panel.set_compact(True)),
        # the loss curves and the gradient norm go into tabs: neither is crushed
        ("h", lambda: window.plot_stack.set_compact(True)),
        # the left column joins the graph's tabs at the bottom: the loss curves get the width
        left_down,
    ]
    if window.lessons.staging:
        # a lesson's stage places its panels itself (plain.stage_layout), none in tabs;
        # the docks are put away, and the panels' tabs are not the stage's to change
        moves = []
    for dims, move in moves:
        wide, tall = overflow(window)
        if not (wide or tall):
            break
        if (wide and "w" in dims) or (tall and "h" in dims):
            move()
            window.graph_dock.raise_()   # the graph stays the tab in front of its group
            window.layout().activate()
    if not window.lessons.staging:
        _tabs_for_cramped_charts(window)
        _tabs_for_cramped_plots(window)
    if too_big(window) and window.theme.zoom > 1.0:
        # even with its panels in tabs, the window needs more than the screen at this text
        # size (Ctrl+= a few times at 1280x720): one step smaller, whose layout comes back
        # here, rather than the run bar or the graph's tabs past the screen's edge
        window.text_too_large()
    room = available(window)
    width, height = min(window.width(), room.width()), min(window.height(), room.height())
    if (width, height) != (window.width(), window.height()) and not window.isFullScreen():
        window.resize(width, height)
    if window.x() + window.width() > room.right() + 1 or window.y() < room.top():
        window.move(max(room.left(), min(window.x(), room.right() + 1 - width)),
                    max(room.top(), window.y()))


def _tabs_for_cramped_charts(window) -> None:
    """The gradient charts into tabs where their panel is smaller than they need side by
    side (only this way: going back is a lesson's or the View menu's choice, not a
    resize's, so the charts never flip between the two as a dock is dragged)."""
    panel = window.gradients_panel
    if panel.compact or not panel.isVisible():
        return
    zoom = window.theme.zoom
    if panel.width() < CHARTS_TOGETHER[0] * zoom or panel.height() < CHARTS_TOGETHER[1] * zoom:
        panel.set_compact(True)


def _tabs_for_cramped_plots(window) -> None:
    """The loss curves and the gradient norm into tabs where the loss curves' data area
    is lower than LOSS_PLOT_LEAST (only this way, as for the charts)."""
    stack, panel = window.plot_stack, window.loss_plot
    if stack.compact or not panel.plot_widget.isVisible() or len(stack.shown) < 2:
        return
    if panel.plot.getViewBox().height() < LOSS_PLOT_LEAST * window.theme.zoom:
        stack.set_compact(True)
