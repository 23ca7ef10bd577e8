"""The autograd graph panel: the native graph canvas, its legend and colour bar, a
parameter's gradient-norm history on click, fit and export. Layout happens on another
thread; the newest graph waiting replaces older ones, and a graph of a new structure
cancels a layout still running for an old one."""
from __future__ import annotations

import html
import threading
from collections import Counter

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import (
    QGuiApplication,
    QKeyEvent,
    QKeySequence,
    QResizeEvent,
    QShortcut,
)
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QLabel,
    QMenu,
    QPushButton,
    QScrollArea,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ...plain.files.atomic_write import write_text
from ...plain.graph.graph_data import EARLIER, JUNCTION, MODULE, GraphData
from ...plain.graph.graph_focus import focus_ids
from ...plain.graph.graph_room import fold_blocks
from ...plain.graph.module_graph import module_graph, open_key
from ...plain.graph.module_runs import CallTree, foldable_blocks
from ...plain.graph.sweep_pace import paced_sweep_ms
from ...render.dot import to_dot
from . import plot_style as ps
from .backward_sweep import BackwardSweep
from .graph_canvas import LEAST_LABEL_PX, GraphCanvas
from .graph_export import write_scene
from .graph_heat import heat_range
from .graph_key_room import KeyRoom
from .graph_legend import GraphLegend
from .title_row import TitleRow

HINT = "hover a loss to see where its gradient flows"
MODULE_HINT = "double-click a box (or Enter on it) to open it in place, Backspace to close"
# a projector's screen: there the module view is what opens (a room reads boxes, not ops)
LECTURE_SCREEN = (1366, 800)


def forward_passes(graph) -> int:
    """How many forward passes' graphs graph holds: the most calls of one module (an rnn's
    calls per time step are one pass's; 0: no modules)."""
    calls = Counter(c.path for c in graph.modules if c.step is None)
    return max(calls.values(), default=0)


def module_view_default() -> bool:
    """The module view on screens up to 1366x800 (projectors, small laptops)."""
    screen = QGuiApplication.primaryScreen()
    if screen is None:
        return True
    size = screen.size()
    return size.width() <= LECTURE_SCREEN[0] and size.height() <= LECTURE_SCREEN[1]


class GraphView(QWidget):
    requestLayout = Signal(object, str, str, object)   # graph, caption, rankdir, cancel
    showSavedChanged = Signal(bool)
    torchvizRequested = Signal(str)                    # path: the engine writes it
    # the newest graph shown (as show_graph was given it) is drawn, none other waiting
    drawn = Signal(object)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("graphView")
        self.caption = QLabel("The autograd graph appears after the first forward pass.")
        self.caption.setObjectName("graphCaption")
        self.caption.setTextFormat(Qt.TextFormat.PlainText)   # "Graph not drawn: <reason>"
        self.caption.setWordWrap(True)
        self.show_saved = QCheckBox("saved tensors")
        self.show_saved.setObjectName("showSavedCheck")
        self.show_saved.setToolTip("Draw each tensor that backward needs, beside its op")
        self.show_saved.toggled.connect(self.showSavedChanged.emit)
        self.module_toggle = QPushButton("Modules")
        self.module_toggle.setObjectName("graphModuleViewToggle")
        self.module_toggle.setCheckable(True)
        self.module_toggle.setChecked(module_view_default())
        self.module_toggle.setToolTip("Module view (M): one box per module call, named as "
                                      f"its parameters are; off: every autograd op. "
                                      f"{MODULE_HINT.capitalize()}")
        self.module_toggle.toggled.connect(self._module_view_changed)
        self.module_key = QShortcut(QKeySequence(Qt.Key.Key_M), self)
        self.module_key.setContext(Qt.ShortcutContext.WindowShortcut)
        self.module_key.activated.connect(self.module_toggle.toggle)
        # saved tensors fold into their box: the check box only where they can be drawn
        self.show_saved.setVisible(not self.module_toggle.isChecked())
        # module calls and runs of blocks opened in place, in the order they were opened
        # (Backspace closes the last one)
        self._expanded: dict[str, None] = {}
        # blocks of layers folded into one box each (plain.graph.graph_room.fold_blocks), and
        # the model (its module calls) that decision was made for
        self._fold = False
        self._fold_model: tuple[str, ...] = ()
        self._hovered = ""                  # the box under the mouse: Enter opens it
        self._focus = ""                    # what the slide is about (set_focus)
        self._op_graph = None               # the graph as captured, and its caption
        self._op_caption = ""
        self.fit_button = QPushButton("Fit")
        self.fit_button.setObjectName("fitGraphButton")
        self.fit_button.setToolTip("Fit the graph in view, its text at a size read from a "
                                   "hall; press again for the whole graph, however small "
                                   "(wheel zooms, drag pans)")
        self.export_button = QToolButton()
        self.export_button.setObjectName("exportGraphButton")
        self.export_button.setText("Export")
        self.export_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.export_button)
        for text, kind in (("SVG (as on screen)…", "svg"), ("PNG (as on screen)…", "png"),
                           ("DOT…", "dot"), ("torchviz DOT…", "torchviz")):
            def export(_checked: bool = False, k: str = kind) -> None:
                self.export_dialog(k)
            menu.addAction(text, export)
        self.export_button.setMenu(menu)
        self.canvas = GraphCanvas()
        self.sweep = BackwardSweep(self.canvas, self)   # the backward pass, animated
        self._sweep_due_ms: int | None = None   # the next graph's last sweep: animate it
        self._sweep_box_ms = 0                  # ... at a slide's own turn per box
        self.canvas.least_label_px = LEAST_LABEL_PX if self.module_view else 0.0
        self.canvas.paramClicked.connect(self.show_param_history)
        self.canvas.nodeDoubleClicked.connect(self._toggle_open)
        self.canvas.nodeHovered.connect(self._hover)
        self.fit_button.clicked.connect(lambda _checked=False: self.canvas.fit_or_whole())
        self.legend = GraphLegend()
        self.history_plot = pg.PlotWidget()
        self.history_plot.setObjectName("paramHistoryPlot")
        self.history_plot.setMinimumHeight(160)
        self.history_plot.setVisible(False)
        self.history_curve = self.history_plot.plot(pen=pg.mkPen("#0072B2", width=2.5))
        self.history_plot.setLabel("bottom", "optimizer step")
        self.param_history_source = None     # callable(name) -> (steps, norms)
        self.history_param: str | None = None

        side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(0, 0, 0, 0)
        side_layout.addWidget(self.legend)
        side_layout.addWidget(self.history_plot)
        side_layout.addStretch(1)
        # the legend and the history plot scroll rather than set the panel's height: on a
        # 720-pixel projector they would push the window past the screen's edge
        self.side_scroll = QScrollArea()
        self.side_scroll.setObjectName("graphSideScroll")
        self.side_scroll.setWidgetResizable(True)
        self.side_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.side_scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self.side_scroll.setWidget(side)
        self.side_scroll.setMinimumWidth(side.minimumSizeHint().width() + 16)
        self.split = QSplitter(Qt.Orientation.Horizontal)
        self.split.setObjectName("graphKeySplitter")
        self.split.addWidget(self.canvas)
        self.split.addWidget(self.side_scroll)
        self.split.setStretchFactor(0, 1)
        self.split.setStretchFactor(1, 0)
        self.split.setChildrenCollapsible(False)
        self.split.setSizes([1000, 280])
        side.setMaximumWidth(420)
        self.side = side
        self.key_shown = True   # set_key_shown(False): a lesson's small graph panel
        # where the key would leave the graph too little room, it folds away behind this
        self.key_button = QPushButton("Key")
        self.key_button.setObjectName("graphKeyButton")
        self.key_button.setCheckable(True)
        self.key_button.setToolTip("Show the graph's key (folded away: this panel has "
                                   "no room for it beside or below the graph)")
        self.key_button.hide()
        self.key_button.toggled.connect(lambda _on: self._unfold())
        self.key_room = KeyRoom(self.split, self.canvas, side, self.side_scroll, self.legend,
                                self.key_button)
        self._drawing: tuple[float, float] | None = None   # the layout's size, in points
        self._drawing_boxes = False
        self._caption_text, self._caption_hint = self.caption.text(), ""
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self._top = TitleRow(layout, self.caption,
                             [self.module_toggle, self.show_saved, self.fit_button,
                              self.export_button, self.key_button])
        self._top.buttons = self._title_buttons()
        layout.addWidget(self.split, 1)
        # the key placed again when the split changes size, the panel's size alone (a
        # caption on one line instead of two): placed only on the panel's, it kept the
        # share of the split's old height
        self.split.installEventFilter(self)
        self._busy = False
        self._waiting: tuple | None = None
        self._cancel = threading.Event()
        self._asked_key = None      # (structure, rankdir) of the layout asked for
        self._drawn_key = None      # ... and of the one on screen
        self.graph = None

    # ---- graphs in, layouts back ---------------------------------------------------------
    @property
    def module_view(self) -> bool:
        return self.module_toggle.isChecked()

    def set_module_view(self, on: bool) -> None:
        self.module_toggle.setChecked(on)

    def _module_view_changed(self, on: bool) -> None:
        self.show_saved.setVisible(not on)   # saved tensors fold into their box
        # a box per module call is the view for a room: never fitted below legible; the
        # op view's point is the whole picture, however small
        self.canvas.least_label_px = LEAST_LABEL_PX if on else 0.0
        self._top.buttons = self._title_buttons()
        self._fit_caption()
        self._redraw()

    def _title_buttons(self) -> list:
        """The buttons beside the caption, as shown (a hidden one takes no room)."""
        return [b for b in (self.module_toggle, self.show_saved, self.fit_button,
                            self.export_button, self.key_button) if not b.isHidden()]

    def _redraw(self) -> None:
        if self._op_graph is not None:
            self.show_graph(self._op_graph, self._op_caption)

    def _toggle_open(self, node_id: str) -> None:
        """Double-click: a module box opens in place into its ops, a run of repeated
        blocks into its blocks; an op of an opened call closes it again."""
        if not self.module_view or self.graph is None:
            return
        key = open_key(self.graph, node_id)
        if key is None:
            return
        if key in self._expanded:
            del self._expanded[key]
        else:
            self._expanded[key] = None
        self._redraw()

    def _hover(self, node_id: str, entering: bool) -> None:
        if entering:
            self._hovered = node_id
        elif self._hovered == node_id:
            self._hovered = ""

    def keyPressEvent(self, event: QKeyEvent) -> None:   # noqa: N802 (Qt's name)
        """Enter: the box under the mouse opens (or its call closes), as a double-click;
        Backspace closes what was opened last. Keys the canvas leaves unused come here,
        so a key typed in a field of the controls is never the graph's."""
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self._hovered:
            self._toggle_open(self._hovered)
        elif event.key() == Qt.Key.Key_Backspace and self.module_view and self._expanded:
            self.close_last_opened()
        else:
            super().keyPressEvent(event)

    def close_last_opened(self) -> None:
        """Backspace: the box or run opened last closes again (a run's blocks, then the
        run itself: as many presses as there were opens)."""
        if self.module_view and self._expanded:
            self._expanded.pop(next(reversed(self._expanded)))
            self._redraw()

    def set_focus(self, name: str | None) -> str | None:
        """Frame what a slide is about, the rest dimmed: "cut", "junction", "trunk",
        "head K", "freed", "changed", "state" (the rnn's carried state); None or "" for
        the whole graph. Returns None, or a one-line reason the name is not known."""
        try:
            # checked without a graph too: a slide may name it before the first one comes
            ids = focus_ids(self.graph or GraphData(), name or "")
        except ValueError as exc:
            return str(exc)
        self._focus = name or ""
        self.canvas.set_focus(ids)
        return None

    def show_graph(self, graph, caption: str) -> None:
        self._op_graph, self._op_caption = graph, caption
        wide = 1.6
        if self.module_view:
            model = tuple(c.id for c in graph.modules)
            self._fold = fold_blocks(self._fold, True, 0, model == self._fold_model)
            self._fold_model = model
            graph = module_graph(graph, frozenset(self._expanded), self._fold)
            # module graphs are deep and narrow (a few heads side by side): top-down fits
            # them larger unless the panel is very wide
            wide = 2.5
        room_w, room_h = self.key_room.room_for_layout(self.key_shown)
        rankdir = "LR" if room_w > wide * room_h else "TB"
        key = (graph.structure_key(), rankdir)
        if self._busy:
            if key != self._asked_key:
                self._cancel.set()        # a toggle changed the structure: stop the old one
            # waits even where its shape is on screen: restyled at once, it was then
            # replaced by the older graph whose layout came back after it
            self._waiting = (self._op_graph, caption)
            return
        if self.canvas.graph_layout is not None and key == self._drawn_key:
            self._draw(graph, self.canvas.graph_layout, caption)   # same shape: restyle only
            self._say_drawn()
            return
        self._busy, self._asked_key = True, key
        self._cancel = threading.Event()
        self.requestLayout.emit(graph, caption, rankdir, self._cancel)

    def on_layout(self, graph, layout, caption: str) -> None:
        self._drawn_key = self._asked_key
        self._draw(graph, layout, caption)
        self._next()
        self._say_drawn()

    def _say_drawn(self) -> None:
        if self.idle:
            self.drawn.emit(self._op_graph)

    def _draw(self, graph, layout, caption: str) -> None:
        self.graph = graph
        # the key first: its new lines can widen it, and the graph is fitted to the
        # room the key leaves (fitted first, its right end went out of view)
        self.legend.set_graph(graph, heat_range(graph))
        # a module graph's size decides where its key goes (beside a tall one)
        self._drawing_boxes = any(n.kind in (MODULE, JUNCTION, EARLIER) for n in graph.nodes)
        self._drawing = (layout.width + 40, layout.height + 40) if self._drawing_boxes \
            else None
        self._place_key()
        try:
            self.canvas.focus_ids = frozenset(focus_ids(graph, self._focus))
        except ValueError:
            self.canvas.focus_ids = frozenset()
        self.sweep.stop()   # a new graph: the old sweep's boxes as this one draws them
        self.canvas.show_graph(graph, layout)
        self._fold_if_too_large()
        # the first graph with a sweep after the backward call: a graph drawn before it
        # (the forward's, laid out late when the clicks come fast) has none
        if self._sweep_due_ms is not None and graph.sweeps:
            self._start_sweep(graph.sweeps[-1])
        # the dock's title already says "Autograd graph"
        if self._drawing_boxes:
            # micro-batches summed before one backward: their graphs are all alive, side
            # by side, and a panel framed on one showed no sign of the others
            alive = forward_passes(graph)
            alive_text = f" · {alive} graphs alive" if alive > 1 else ""
            self._set_caption(f"Graph {caption}{alive_text} · {len(graph.nodes)} boxes", HINT)
        else:
            self._set_caption(f"Graph {caption} · {len(graph.nodes)} nodes", HINT)
        if self.history_param:
            self.show_param_history(self.history_param)

    def _fold_if_too_large(self) -> None:
        """The module view laid out again with its blocks folded where the whole model
        does not fit the panel at the least label size (queued behind this layout)."""
        if not self.module_view or self._fold or self._op_graph is None:
            return
        tree = CallTree(self._op_graph.modules)
        fold = fold_blocks(False, self.canvas.whole_legible(), len(foldable_blocks(tree)), True)
        if fold:
            self._fold = True
            self.show_graph(self._op_graph, self._op_caption)

    def on_failed(self, reason: str) -> None:
        self._set_caption(f"Graph not drawn: {reason}")
        self._next()
        self._say_drawn()   # (as drawn as it will be: the caption says why not)

    def on_cancelled(self) -> None:
        self._next()

    def _next(self) -> None:
        self._busy = False
        if self._waiting is not None:
            graph, caption = self._waiting
            self._waiting = None
            self.show_graph(graph, caption)

    def cancel_layout(self) -> None:
        """Stop a layout in flight (closing the window must not wait for Graphviz)."""
        self._cancel.set()

    @property
    def idle(self) -> bool:
        return not self._busy and self._waiting is None

    # ---- the caption and the key, fitted to the panel ------------------------------------
    def _set_caption(self, text: str, hint: str = "") -> None:
        self._caption_text, self._caption_hint = text, hint
        self._fit_caption()

    def _fit_caption(self) -> None:
        """The caption beside the buttons, with the hint where the line has room for
        both; on a line of its own where even the caption has none (see TitleRow). The
        hint, when left out, is the caption's tooltip."""
        text, hint = self._caption_text, self._caption_hint
        full = f"{text} — {hint}" if hint else text
        room = self._top.fit(self.width(), text)
        fits = self.caption.fontMetrics().horizontalAdvance(full) <= room
        self.caption.setText(full if fits or not hint else text)
        self.caption.setToolTip(hint)

    def caption_above(self) -> bool:
        """Whether the caption is on a line of its own, above the buttons."""
        return self._top.above

    def animate_next_backward(self, total_ms: int, box_turn_ms: int = 0) -> None:
        """The graph that comes after a backward call: light its boxes in the order that
        call computed their gradients, over about total_ms (the pace's), or box_turn_ms
        a box where a slide sets its sweep pace."""
        self._sweep_due_ms, self._sweep_box_ms = total_ms, box_turn_ms

    def _start_sweep(self, order: list[str]) -> None:
        total_ms = self._sweep_due_ms or 0
        if self._sweep_box_ms and self._op_graph is not None:
            # within what the engine holds the phase for (the module view's boxes at
            # the slide's turn): the op view's longer sweep goes faster, never cut short
            total_ms = paced_sweep_ms(self._op_graph, self._sweep_box_ms) or total_ms
        self.sweep.start(order, total_ms, self._sweep_box_ms)
        self._sweep_due_ms = None

    def set_key_shown(self, shown: bool) -> None:
        """The key beside or below the graph, or none (a slide's graph beside its main
        chart: there the key took half the panel, and the narration says what is drawn)."""
        self.key_shown = shown
        self.key_room.placed = None   # placed afresh when it comes back
        self._place_key()

    def _unfold(self) -> None:
        """The key button toggled: the folded key shown (or folded again)."""
        self.key_room.placed = None
        self._place_key()

    def key_beside(self) -> bool:
        """Whether the key is beside the graph (a wide panel) rather than below it."""
        return self.key_room.beside()

    def _place_key(self) -> None:
        shown = not self.key_button.isHidden()
        self.key_room.place(self.key_shown, self._drawing)
        if shown != (not self.key_button.isHidden()):   # the title row's buttons changed
            # after this pass: placed while the window's layout runs (a resize of the
            # split), the caption moved between the rows under it, and Qt crashed
            QTimer.singleShot(0, self._refit_title)

    def _refit_title(self) -> None:
        self._top.buttons = self._title_buttons()
        self._fit_caption()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's)
        if watched is self.split and event.type() == QEvent.Type.Resize:
            self._place_key()
        return super().eventFilter(watched, event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._place_key()
        self._fit_caption()

    # ---- inspection ----------------------------------------------------------------------
    def show_param_history(self, name: str) -> None:
        if self.param_history_source is None:
            return
        steps, norms = self.param_history_source(name)
        self.history_param = name
        finite = np.isfinite(norms)
        self.history_curve.setData(np.asarray(steps)[finite], np.asarray(norms)[finite])
        self.history_plot.setTitle(f"‖grad‖ of {html.escape(name)}")   # pyqtgraph: HTML
        self.history_plot.setVisible(True)
        self.key_room.placed = None   # the key's part of the panel now holds the plot too
        self._place_key()

    # ---- export ---------------------------------------------------------------------------
    def export_dialog(self, kind: str) -> None:
        filters = {"svg": "SVG (*.svg)", "png": "PNG (*.png)", "dot": "DOT (*.dot)",
                   "torchviz": "DOT (*.dot)"}
        suggested = f"graph.{'dot' if kind == 'torchviz' else kind}"
        path, _ = QFileDialog.getSaveFileName(self, "Export the graph", suggested, filters[kind])
        if path:
            self.export(kind, path)

    def export(self, kind: str, path: str) -> str | None:
        """Write what is on screen (svg, png), our DOT, or (via the engine) torchviz's.
        Returns None when written (or handed on), else a one-line reason, also shown."""
        if kind not in ("svg", "png", "dot", "torchviz"):
            return self._export_failed(f"cannot export as {kind!r}")
        if kind == "torchviz":
            self.torchvizRequested.emit(path)
            return None
        if self.graph is None:
            return self._export_failed("there is no graph yet")
        try:
            if kind == "dot":
                write_text(path, to_dot(self.graph))
            elif not write_scene(self.canvas.scene(), kind, path):
                return self._export_failed(f"could not write {path}")
        except OSError as exc:
            return self._export_failed(f"could not write {path}: {exc.strerror or exc}")
        self._set_caption(f"Graph exported to {path}")
        return None

    def _export_failed(self, reason: str) -> str:
        self._set_caption(f"Export failed: {reason}")
        return reason

    def apply_theme(self, theme) -> None:
        font = self.caption.font()
        font.setPointSizeF(theme.font_pt)
        self.caption.setFont(font)
        self.legend.set_font_pt(theme.font_pt * 0.95)
        # the legend's lines whole, beside the scroll bar
        bar = self.side_scroll.verticalScrollBar().sizeHint().width()
        self.side_scroll.setMinimumWidth(self.legend.minimumWidth() + bar + 4)
        self.key_room.placed = None
        self.key_room.zoom = theme.zoom
        self._place_key()
        self._fit_caption()
        self.canvas.set_text_zoom(theme.zoom)   # node and edge labels, with the picture
        ps.style_plot(self.history_plot.getPlotItem(), theme)
        self.history_plot.setBackground(theme.background)
        self.history_plot.setMinimumHeight(int(160 * theme.zoom))


if __name__ == "__main__":  # one real step's graph, laid out here, alone in a window
    import sys

    from PySide6.QtWidgets import QApplication

    from gradviz.qt.graph_renderer import GraphRenderer

    from .demo import recorded_graph

    app = QApplication(sys.argv)
    view = GraphView()
    renderer = GraphRenderer()   # on this thread: a demo waits for its one layout
    view.requestLayout.connect(renderer.render)
    renderer.layoutReady.connect(view.on_layout)
    view.resize(1024, 768)
    view.show()
    view.show_graph(recorded_graph(), "after one step")   # recorded: no torch here
    raise SystemExit(app.exec())
