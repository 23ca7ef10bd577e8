"""The autograd graph drawn natively: zoom with the wheel, pan by dragging, fit to view.
Items are rebuilt only when the layout changes (the structure did), and restyled in place
every step, so the picture stays put and the room keeps its bearings. The presentation
zoom (Ctrl+=) scales the picture, and so every label in it, like the rest of the text."""
from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QFontInfo,
    QMouseEvent,
    QPainter,
    QResizeEvent,
    QTransform,
    QWheelEvent,
)
from PySide6.QtWidgets import QGraphicsScene, QGraphicsView

from ...plain.graph_data import GRAD, JUNCTION, LOSS, PARAM
from ...plain.graph_focus import snap_start
from ...plain.graph_room import window_start
from ...render import style
from ...render.layout import GraphLayout
from .graph_items import EdgeItem, NodeItem

DIM = 0.12          # opacity of what a hovered loss's gradient does not flow through
FOCUS_DIM = 0.3     # ... and of what a slide's focus leaves out (still there, for context)
CUT_LABEL_SCALE = 1.6   # a cut's label among module boxes, as large as theirs
ZOOM_STEP = 1.15
# the least height (view px, at normal text size) of a box's line of text in the module
# view: read from the back of a hall on a 1024x768 projector. A whole graph fitted into
# a slide's panel drew them at 6-8 px; framed larger instead, the rest a drag away
LEAST_LABEL_PX = 14.0
# of a focus's margin (scene px, of focus_rect's 40), what a larger text size may use up
FOCUS_SPARE = 30
# scene px kept clear around a box at the view's edge (a box flush with it read as cut;
# more than this, and rows whose badges hang into the gap between them left no room)
BOX_MARGIN = 1.5
# how much larger than the least the module view may be drawn so that its edges fall
# between boxes (the rows' pitch and the view's height rarely agree; a strip 1.8 rows
# tall after Ctrl+= twice shows one row whole rather than two cut through)
SNAP_SCALES = tuple(1.0 + k / 40 for k in range(41))
# ... and smaller, down to the least label size, where no larger one does (a dimmed
# neighbour beside a focus framed large read "hea / Lin" at the edge at every larger one)
SHRINK_SCALES = tuple(1.0 - k / 40 for k in range(1, 21))
# a focus is framed at most this much larger than the least label size: two boxes fitted
# to a wide panel drew "z now a leaf" at 35 px with nothing around it
FOCUS_MOST = 1.5


def drawn_rect(item) -> QRectF:
    """A box as drawn, in scene coordinates: with its state badge hung below it (a box
    framed without it lost its "changed in place" at the panel's bottom)."""
    rect = item.boundingRect()
    badge = getattr(item, "badge", None)
    if badge is not None and badge.isVisibleTo(item):   # (item itself may be hidden)
        rect = rect.united(badge.mapRectToParent(badge.boundingRect()))
    return item.mapRectToScene(rect)


def cut_through_label(seen: QRectF, item, slack: float = 0.0) -> bool:
    """Whether a view showing seen (scene) cuts item's name or kind, or shows them
    without the state badge below (a sliver of a box past the edge is no harm). slack
    (scene px) is the doubt about where the edge falls, counted against the framing
    both ways: text within slack of the edge is in view, and must be whole within it."""
    if not item.text.text():
        return False
    return _cuts_text(seen, item.text.mapRectToScene(item.text.boundingRect()),
                      drawn_rect(item), slack)


def _cuts_text(seen: QRectF, text: QRectF, drawn: QRectF, slack: float) -> bool:
    """cut_through_label on a box's text and drawn rectangles (scene), measured once."""
    if not seen.adjusted(-slack, -slack, slack, slack).intersects(text):
        return False
    inner = seen.adjusted(slack, slack, -slack, -slack)
    return not inner.contains(text) or not inner.contains(drawn)


def heat_range(graph) -> tuple[float, float] | None:
    """log10 of the smallest and largest non-zero gradient norm in graph."""
    norms = [n.grad_norm for n in graph.nodes if n.grad_norm]
    if not norms:
        return None
    lo, hi = math.log10(min(norms)), math.log10(max(norms))
    return (lo, hi if hi > lo else lo + 1.0)


def heat_fraction(value: float | None, rng: tuple[float, float] | None) -> float | None:
    if value is None or rng is None:
        return None
    if value <= 0:
        return 0.0
    lo, hi = rng
    return (math.log10(value) - lo) / (hi - lo)


class GraphCanvas(QGraphicsView):
    paramClicked = Signal(str)          # a parameter's name
    nodeHovered = Signal(str, bool)     # node id, entering
    nodeDoubleClicked = Signal(str)     # node id (a module box opens in place)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("graphCanvas")
        self.setScene(QGraphicsScene(self))
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        # a drag pans and the wheel zooms; scroll bars only took room from the picture,
        # and coming and going as it was framed, they left a fitted graph cut off
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setBackgroundBrush(QColor("white"))  # Graphviz-style card in both themes
        self.nodes: dict[str, NodeItem] = {}
        self.edges: list[EdgeItem] = []
        self.graph = None
        self.graph_layout: GraphLayout | None = None
        self.heat: tuple[float, float] | None = None
        self.highlighted: int | None = None
        self._heads_by_node: dict[str, tuple[int, ...]] = {}
        self.text_zoom = 1.0   # the theme's zoom: the fitted picture is drawn this much larger
        self.focus_ids: frozenset[str] = frozenset()   # what the slide is about: framed
        self.least_label_px = 0.0   # > 0: fit() never draws a box's text smaller than this
        self._hidden_labels: list = []   # edge labels fit() hid, cut by the view's edges
        # the user zoomed or panned since the last fit: a resize then keeps their view
        # (else it fits again: a panel that grew or shrank cut the graph off on the right)
        self.user_framed = False
        # the view is as fit() framed it: the Fit button's next press shows the whole
        self.fitted = False

    # ---- content ----------------------------------------------------------------------
    def show_graph(self, graph, layout: GraphLayout) -> None:
        rebuilt = layout is not self.graph_layout
        if rebuilt:
            self._rebuild(layout)
        self.graph = graph
        self._heads_by_node = style.heads_by_node(graph)
        self.heat = heat_range(graph)
        names = style.head_names(graph)
        boxes = any(n.kind in style.BOX_KINDS for n in graph.nodes)
        for node in graph.nodes:
            node_item = self.nodes.get(node.id)
            if node_item is not None:
                node_item.restyle(node, heat_fraction(node.grad_norm, self.heat), names, boxes)
        paths = {(e.src, e.dst, e.kind): e for e in graph.edges}
        badges = [n.badge.mapRectToScene(n.badge.boundingRect())
                  for n in self.nodes.values() if n.badge.isVisibleTo(n)]
        rects = [n.mapRectToScene(n.rect()) for n in self.nodes.values()]
        drawing = QRectF(-20, -20, layout.width + 40, layout.height + 40)   # as Graphviz drew it
        for item in self.edges:
            item.label_scale = CUT_LABEL_SCALE if boxes else 1.0
            item.clear_of, item.boxes, item.bounds = badges, rects, drawing
            p = item.edge_path
            edge = paths.get((p.src, p.dst, p.kind))
            if edge is not None:
                item.restyle(edge, style.heads_along_edge(p.src, p.dst, self._heads_by_node),
                             self._edge_width(edge))
        self.highlight_head(self.highlighted)
        self._cover_items()
        if rebuilt:
            self.fit()

    def _cover_items(self) -> None:
        """The scene as large as what is drawn: a cut's label beside its bar can lie past
        the layout Graphviz made, and a view cannot scroll past its scene (framed on a
        cut at the right, the room read "deta")."""
        scene = self.scene()
        drawn = scene.itemsBoundingRect().adjusted(-20, -20, 20, 20)
        if not scene.sceneRect().contains(drawn):
            scene.setSceneRect(scene.sceneRect().united(drawn))

    def _edge_width(self, edge) -> float | None:
        """Edges carry their gradient as thickness, on the same log scale as the heat
        (None: not measured, drawn as render.style says)."""
        frac = heat_fraction(edge.grad_norm, self.heat) if edge.kind == GRAD else None
        return None if frac is None else 1.5 + 5.0 * frac

    def _rebuild(self, layout: GraphLayout) -> None:
        scene = self.scene()
        scene.clear()
        self.graph_layout = layout
        self.nodes = {}
        self._hidden_labels = []   # (deleted with the scene's items)
        for node_id, box in layout.nodes.items():
            node_item = NodeItem(node_id, box)
            node_item.on_hover = self._hovered
            node_item.on_click = self._clicked
            node_item.on_double_click = self._double_clicked
            scene.addItem(node_item)
            self.nodes[node_id] = node_item
        self.edges = [EdgeItem(p) for p in layout.edges if len(p.points) >= 4]
        for item in self.edges:
            scene.addItem(item)
        scene.setSceneRect(-20, -20, layout.width + 40, layout.height + 40)

    # ---- interaction --------------------------------------------------------------------
    def highlight_head(self, head: int | None) -> None:
        """Dim everything that head's gradient does not flow through (None: undim; then
        what is out of the focus stays dimmed)."""
        self.highlighted = head
        focus = self.focus_ids & set(self.nodes)
        for node_id, node_item in self.nodes.items():
            if head is not None:
                on = head in self._heads_by_node.get(node_id, ())
            else:
                on = not focus or node_id in focus
            node_item.setOpacity(1.0 if on else DIM if head is not None else FOCUS_DIM)
        for item in self.edges:
            p = item.edge_path
            if head is not None:
                on = head in style.heads_along_edge(p.src, p.dst, self._heads_by_node)
            else:
                on = not focus or (p.src in focus and p.dst in focus)
            item.setOpacity(1.0 if on else DIM if head is not None else FOCUS_DIM)

    def set_focus(self, node_ids) -> None:
        """Frame these nodes, the rest dimmed (empty: the whole graph, nothing dimmed)."""
        self.focus_ids = frozenset(node_ids)
        self.highlight_head(self.highlighted)
        self.fit()

    def focus_parts(self) -> list[QRectF]:
        """The scene rectangles of the focus's boxes (badges too) and of a cut's
        "detach()" between two of them (empty: no focus)."""
        parts = [drawn_rect(self.nodes[i]) for i in self.focus_ids if i in self.nodes]
        for item in self.edges:   # a cut's "detach()" between two framed boxes, whole
            p = item.edge_path
            if p.src in self.focus_ids and p.dst in self.focus_ids and item.label.isVisible():
                parts.append(item.label.mapRectToScene(item.label.boundingRect()))
        return parts if any(i in self.nodes for i in self.focus_ids) else []

    def focus_rect(self) -> QRectF | None:
        """The scene rectangle of the focus's boxes, with a margin (None: no focus)."""
        parts = self.focus_parts()
        if not parts:
            return None
        rect = parts[0]
        for r in parts[1:]:
            rect = rect.united(r)
        return rect.adjusted(-40, -40, 40, 40)

    def _hovered(self, node_id: str, entering: bool) -> None:
        item = self.nodes.get(node_id)
        node = item.node if item else None
        if node is not None and node.kind == LOSS and node.heads_reaching:
            self.highlight_head(node.heads_reaching[0] if entering else None)
        self.nodeHovered.emit(node_id, entering)

    def _double_clicked(self, node_id: str) -> None:
        # after the event: opening a box rebuilds the scene, and the item whose event
        # this is must not be deleted inside it
        QTimer.singleShot(0, lambda: self.nodeDoubleClicked.emit(node_id))

    def _clicked(self, node_id: str) -> None:
        node = self.nodes[node_id].node
        if node is not None and node.kind == PARAM:
            self.paramClicked.emit(node.label)

    def fit(self) -> None:
        """The whole graph in view, but never its boxes' text below least_label_px: where
        it fits only smaller, the slide's focus (else the junction z where the heads meet)
        framed at that size or larger; at a larger text zoom, that much larger still
        (labels grow with every other text; drag pans, the wheel zooms out). A focus
        grows with the text only as far as it stays whole: the text size applied on top
        of its fit cut the boxes the slide is about. Framed larger than the whole, the
        view is shifted so that its edges cut through no box (see snap_start); a focus
        is framed at most FOCUS_MOST times the least label size. The op
        view (least_label_px 0) frames the focus, else the whole picture."""
        if self.graph_layout is None:
            return
        self.user_framed = False
        self._show_all()
        focus = self.focus_rect()
        whole = self.scene().sceneRect()
        base = self._fit_scale(whole)
        least = self.least_label_px / self._label_px_per_scale()
        legible_whole = bool(self.least_label_px) and base >= least
        if focus is not None and not legible_whole:
            base = max(min(self._fit_scale(focus), least * FOCUS_MOST), least)
        else:
            base = max(base, least)
        factor = self.text_zoom
        if focus is not None and factor != 1.0:   # (never below 1: least_label_px holds)
            spare = focus.adjusted(FOCUS_SPARE, FOCUS_SPARE, -FOCUS_SPARE, -FOCUS_SPARE)
            factor = min(factor, max(1.0, self._fit_scale(spare) / base))
        target = focus or (whole if legible_whole else None)
        self.fitted = True
        # the boxes and the focus in scene units: the same at every scale tried below
        snap = self._snap_rects()
        if not self.least_label_px or legible_whole and factor == 1.0:
            self._frame_at(base * factor, self._placed(target, base * factor, snap))
            return
        # larger where that lets the edges fall between boxes (smaller, down to the least
        # label size, only where no larger one does): the fewest of the focus's parts out
        # of view, then a box whole in view (an empty view cuts no name: lesson 01 slide
        # 2 after Ctrl+= twice at 1024x768 showed a blank panel), then the fewest names
        # cut, then not smaller, then the most boxes whole, then the nearest size (a
        # sliver of a box past the edge, its name out, is no harm). What the edges still
        # cut through is hidden, never shown sliced.
        options = []
        shapes = self._shapes()   # the same at every scale: measured once, not per option
        for more in SNAP_SCALES + SHRINK_SCALES:
            scale = base * factor * more
            if scale < least * 0.999:
                continue
            middle = self._placed(target, scale, snap)
            options.append((self._framing_cost(scale, middle, shapes), more, scale, middle))
        _cost, _more, scale, middle = min(options, key=lambda o: (
            o[0][0], o[0][2] == 0, o[0][1], o[1] < 1.0, o[0][2], abs(o[1] - 1.0), o[0]))
        self._frame_at(scale, middle)
        self._hide_cut_through()

    def fit_or_whole(self) -> None:
        """The Fit button: fit(), its text at a size read from a hall; pressed again where
        that leaves part of the graph out of view, the whole graph however small its text
        (a real model's 18 boxes in a 450x135 panel: the wheel zooms in, drag pans), and
        pressed again, fit() once more."""
        if self.graph_layout is None:
            return
        if not (self.fitted and not self.whole_legible()):
            self.fit()
            return
        self._show_all()
        whole = self.scene().sceneRect()
        self._frame_at(self._fit_scale(whole), whole.center())
        self.user_framed, self.fitted = True, False

    def whole_legible(self) -> bool:
        """Whether the whole graph fits the view with its boxes' text at least
        least_label_px (always, in the op view, which has no least size)."""
        if self.graph_layout is None or not self.least_label_px:
            return True
        least = self.least_label_px / self._label_px_per_scale()
        return self._fit_scale(self.scene().sceneRect()) >= least * 0.999

    def _hide_cut_through(self) -> None:
        """Hide the boxes (not the focus's) the view's edges still cut through their text:
        where no framing at a legible size keeps every box whole or out (the rows' and
        columns' pitch against the panel's), a box sliced to "hea / Lin" read as broken
        from the back of a hall, dimmed or not; its edges still lead off that way."""
        # text within a pixel of the edge counts as in view (a whole one there is whole)
        seen = self.mapToScene(self.viewport().rect()).boundingRect().adjusted(-1, -1, 1, 1)
        for node_id, item in self.nodes.items():
            # never the focus: framed first, and the part the slide is about is better
            # shown a pixel short than not at all
            if node_id not in self.focus_ids and cut_through_label(seen, item):
                item.setVisible(False)
        for edge in self.edges:   # and a cut's "detach()" that would read "deta"
            label = edge.label
            rect = label.mapRectToScene(label.boundingRect())
            if label.isVisible() and rect.intersects(seen) and not seen.contains(rect):
                label.setVisible(False)
                self._hidden_labels.append(label)

    def _show_all(self) -> None:
        """Every box shown again (a new framing, or the user's own, hides none)."""
        for item in self.nodes.values():
            if not item.isVisible():
                item.setVisible(True)
        for label in self._hidden_labels:
            label.setVisible(True)
        self._hidden_labels = []

    def _frame_at(self, scale: float, middle: QPointF) -> None:
        self.setTransform(QTransform.fromScale(scale, scale))
        self.centerOn(middle)

    def _shapes(self) -> tuple[list[QRectF], list[tuple[QRectF, QRectF]], list[QRectF],
                               list[QRectF]]:
        """What a framing is judged on, in scene rectangles: the focus's parts, each
        named box's (text, drawn) pair, every box drawn, and the shown edge labels."""
        named = [(item.text.mapRectToScene(item.text.boundingRect()), drawn_rect(item))
                 for item in self.nodes.values() if item.text.text()]
        drawn = [drawn_rect(item) for item in self.nodes.values()]
        labels = [item.label.mapRectToScene(item.label.boundingRect())
                  for item in self.edges if item.label.isVisible()]
        return self.focus_parts(), named, drawn, labels

    def _framing_cost(self, scale: float, middle: QPointF, shapes
                      ) -> tuple[int, int, int, int]:
        """Of a view at scale centred on middle: the focus's parts not whole in it, the
        boxes cut through their text (or shown without their badge), fewer boxes whole
        in it (minus their number), the boxes cut. shapes: what self._shapes() measured."""
        focus, named, drawn, labels = shapes
        # the edges judged a pixel either way: Qt rounds where it puts the view to whole
        # pixels, and a box judged flush with the edge came out a pixel cut
        # (the focus, a pixel past the edge, still counts as whole: a tight focus would
        # otherwise count as lost at the very size it was fitted at)
        slack = max(1.0, 1.0 / scale)
        exact = self._seen_at(scale, middle)
        lost = sum(not exact.adjusted(-1, -1, 1, 1).contains(r) for r in focus)
        seen = exact.adjusted(slack, slack, -slack, -slack)
        read = sum(_cuts_text(exact, text, box, slack) for text, box in named)
        # a cut's "detach()" sliced at the edge ("deta") is a name cut through as well
        near = exact.adjusted(-slack, -slack, slack, slack)
        read += sum(near.intersects(r) and not seen.contains(r) for r in labels)
        cut = sum(seen.intersects(r) and not seen.contains(r) for r in drawn)
        return lost, read, -sum(seen.contains(r) for r in drawn), cut

    def _seen_at(self, scale: float, middle: QPointF) -> QRectF:
        """The scene rectangle a view at scale centred on middle shows, as Qt places it:
        within the scene, and centred on it along an axis where the scene is the shorter
        (there centerOn is ignored: a framing judged where it asked to be cut x (input)
        at the edge where the view really was)."""
        vw, vh = self.viewport().width() / scale, self.viewport().height() / scale
        scene = self.scene().sceneRect()

        def start(want: float, length: float, lo: float, hi: float) -> float:
            if length >= hi - lo:
                return (lo + hi - length) / 2
            return min(max(want - length / 2, lo), hi - length)

        return QRectF(start(middle.x(), vw, scene.left(), scene.right()),
                      start(middle.y(), vh, scene.top(), scene.bottom()), vw, vh)

    def _fit_scale(self, rect: QRectF) -> float:
        """The scale at which rect (scene) just fits the view, as fitInView's."""
        view = self.viewport().rect().adjusted(2, 2, -2, -2)   # fitInView's margin
        if rect.width() <= 0 or rect.height() <= 0:
            return 1.0
        return min(view.width() / rect.width(), view.height() / rect.height())

    def _label_px_per_scale(self) -> float:
        """A box's smallest text in view pixels at scene scale 1 (1: no boxes)."""
        sizes = [QFontInfo(item.text.font()).pixelSize() * item.text.scale()
                 for item in self.nodes.values() if item.text.text()]
        return min(sizes, default=1.0) or 1.0

    def _snap_rects(self) -> tuple[list[QRectF], list[QRectF], list[QRectF]]:
        """The focus's parts, and each box (its badge too) with a margin around it, then
        the focus's parts with that margin: what _placed judges a view by."""
        m = BOX_MARGIN
        parts = self.focus_parts()
        boxes = [drawn_rect(item).adjusted(-m, -m, m, m) for item in self.nodes.values()]
        return parts, boxes, [r.adjusted(-m, -m, m, m) for r in parts]

    def _placed(self, target: QRectF | None, scale: float,
                snap: tuple[list[QRectF], list[QRectF], list[QRectF]]) -> QPointF:
        """The scene point to centre the view on at scale: target's middle (None: the
        junction's, else the scene's); along an axis where target is longer than the
        view, where the most of the focus's boxes are whole (see window_start: from the
        focus's start, lesson 02's heads lay below a view of the input and the trunk),
        else the whole's start. In the module view, shifted so that no box is cut
        through by the view's edges."""
        vw = self.viewport().width() / scale
        vh = self.viewport().height() / scale
        middle = self._middle(target or self.scene().sceneRect())
        x0, y0 = middle.x() - vw / 2, middle.y() - vh / 2
        parts, boxes, keep = snap   # what _snap_rects() measured
        if target is not None:
            scene = self.scene().sceneRect()
            if target.width() > vw:
                x0 = window_start(vw, [(r.left(), r.right()) for r in parts],
                                  (scene.left(), scene.right()), target.left())
            if target.height() > vh:
                y0 = window_start(vh, [(r.top(), r.bottom()) for r in parts],
                                  (scene.top(), scene.bottom()), target.top())
        if self.least_label_px:
            x0, y0 = self._snapped(x0, y0, vw, vh, boxes, keep)
        return QPointF(x0 + vw / 2, y0 + vh / 2)

    def _snapped(self, x0: float, y0: float, vw: float, vh: float, boxes: list[QRectF],
                 keep: list[QRectF]) -> tuple[float, float]:
        """x0, y0 moved so each box (its badge too) is whole in the view or out of it
        (boxes, keep: the boxes and the focus's parts with their margin)."""
        scene = self.scene().sceneRect()
        for axis in "yxy":   # across the rows first (a top-down graph), then the columns
            # the boxes beside the view along the other axis do not matter (a focus box
            # far to the right, whole along y, held a strip's view on an empty band)
            if axis == "y":
                near = [r for r in boxes if r.right() > x0 and r.left() < x0 + vw]
                near_keep = [r for r in keep if r.right() > x0 and r.left() < x0 + vw]
                y0 = snap_start(y0, vh, [(r.top(), r.bottom()) for r in near],
                                [(r.top(), r.bottom()) for r in near_keep],
                                (scene.top(), scene.bottom()))
            else:
                near = [r for r in boxes if r.bottom() > y0 and r.top() < y0 + vh]
                near_keep = [r for r in keep if r.bottom() > y0 and r.top() < y0 + vh]
                x0 = snap_start(x0, vw, [(r.left(), r.right()) for r in near],
                                [(r.left(), r.right()) for r in near_keep],
                                (scene.left(), scene.right()))
        return x0, y0

    def _middle(self, framed: QRectF):
        if not self.focus_ids:
            junction = next((item for item in self.nodes.values()
                             if item.node is not None and item.node.kind == JUNCTION), None)
            if junction is not None:
                return junction.mapRectToScene(junction.boundingRect()).center()
        return framed.center()

    def label_line_px(self) -> float:
        """The smallest text of a box on screen, as its font's pixel size (0: no boxes)."""
        scale = self.transform().m11()
        sizes = [QFontInfo(item.text.font()).pixelSize() * item.text.scale() * scale
                 for item in self.nodes.values() if item.text.text()]
        return min(sizes, default=0.0)

    def set_text_zoom(self, zoom: float) -> None:
        """Ctrl+= / Ctrl+-: the picture, labels and all, scales as the text does (fitted
        again, as fit says; where the user zoomed or panned, about the middle of their
        view: what the room is looking at stays in view)."""
        factor, self.text_zoom = zoom / self.text_zoom, zoom
        if self.graph_layout is None or factor == 1.0:
            return
        if self.user_framed:
            self._scale_about_centre(factor)
        else:
            self.fit()

    def height_px(self, item) -> float:
        """How tall an item (a node's label, an edge's) is drawn on screen, in view pixels."""
        return self.viewportTransform().mapRect(
            item.mapRectToScene(item.boundingRect())).height()

    def _scale_about_centre(self, factor: float) -> None:
        self._show_all()
        self.fitted = False
        anchor = self.transformationAnchor()
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.scale(factor, factor)
        self.setTransformationAnchor(anchor)

    def zoom(self, factor: float) -> None:
        self.scale(factor, factor)
        self.user_framed, self.fitted = True, False
        self._show_all()

    def wheelEvent(self, event: QWheelEvent) -> None:   # noqa: N802 (Qt's name)
        steps = event.angleDelta().y() / 120
        if steps:
            self.zoom(ZOOM_STEP ** steps)
        event.accept()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:   # noqa: N802 (Qt's name)
        if event.buttons():   # a drag pans the picture
            self.user_framed, self.fitted = True, False
            self._show_all()
        super().mouseMoveEvent(event)

    def resizeEvent(self, event: QResizeEvent) -> None:   # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        if not self.user_framed:
            self.fit()
