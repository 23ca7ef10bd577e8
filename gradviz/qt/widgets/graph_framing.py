"""How a framing of the graph canvas is judged, in scene rectangles: what a view at a
scale shows, which boxes its edges cut through (a name sliced to "hea / Lin" reads as
broken from the back of a hall), which framing among the sizes tried cuts the fewest,
and where to shift a view so that every box is whole in it or out of it. The canvas
(graph_canvas) measures its items and frames the view; the rules are here."""
from __future__ import annotations

from collections.abc import Callable, Iterable

from PySide6.QtCore import QPointF, QRectF, QSize

from ...plain.graph.graph_focus import snap_start

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

Shapes = tuple[list[QRectF], list[tuple[QRectF, QRectF]], list[QRectF], list[QRectF]]


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
    return cuts_text(seen, item.text.mapRectToScene(item.text.boundingRect()),
                     drawn_rect(item), slack)


def cuts_text(seen: QRectF, text: QRectF, drawn: QRectF, slack: float) -> bool:
    """cut_through_label on a box's text and drawn rectangles (scene), measured once."""
    if not seen.adjusted(-slack, -slack, slack, slack).intersects(text):
        return False
    inner = seen.adjusted(slack, slack, -slack, -slack)
    return not inner.contains(text) or not inner.contains(drawn)


def framing_shapes(nodes: Iterable, edges: Iterable, focus_parts: list[QRectF],
                   drawn: list[QRectF]) -> Shapes:
    """What a framing is judged on, in scene rectangles: the focus's parts, each
    named box's (text, drawn) pair, every box drawn (drawn: drawn_rect of each of
    nodes, in their order), and the shown edge labels."""
    nodes, edges = list(nodes), list(edges)
    named = [(item.text.mapRectToScene(item.text.boundingRect()), rect)
             for item, rect in zip(nodes, drawn) if item.text.text()]
    labels = [item.label.mapRectToScene(item.label.boundingRect())
              for item in edges if item.label.isVisible()]
    return focus_parts, named, drawn, labels


def framing_cost(exact: QRectF, scale: float, shapes: Shapes) -> tuple[int, int, int, int]:
    """Of a view at scale showing exact (scene, seen_at): the focus's parts not whole in
    it, the boxes cut through their text (or shown without their badge), fewer boxes
    whole in it (minus their number), the boxes cut. shapes: what framing_shapes measured."""
    focus, named, drawn, labels = shapes
    # the edges judged a pixel either way: Qt rounds where it puts the view to whole
    # pixels, and a box judged flush with the edge came out a pixel cut
    # (the focus, a pixel past the edge, still counts as whole: a tight focus would
    # otherwise count as lost at the very size it was fitted at)
    slack = max(1.0, 1.0 / scale)
    lost = sum(not exact.adjusted(-1, -1, 1, 1).contains(r) for r in focus)
    seen = exact.adjusted(slack, slack, -slack, -slack)
    read = sum(cuts_text(exact, text, box, slack) for text, box in named)
    # a cut's "detach()" sliced at the edge ("deta") is a name cut through as well
    near = exact.adjusted(-slack, -slack, slack, slack)
    read += sum(near.intersects(r) and not seen.contains(r) for r in labels)
    cut = sum(seen.intersects(r) and not seen.contains(r) for r in drawn)
    return lost, read, -sum(seen.contains(r) for r in drawn), cut


def seen_at(viewport: QSize, scene: QRectF, scale: float, middle: QPointF) -> QRectF:
    """The scene rectangle a view of viewport's size at scale centred on middle shows,
    as Qt places it: within the scene, and centred on it along an axis where the scene
    is the shorter (there centerOn is ignored: a framing judged where it asked to be cut
    x (input) at the edge where the view really was)."""
    vw, vh = viewport.width() / scale, viewport.height() / scale

    def start(want: float, length: float, lo: float, hi: float) -> float:
        if length >= hi - lo:
            return (lo + hi - length) / 2
        return min(max(want - length / 2, lo), hi - length)

    return QRectF(start(middle.x(), vw, scene.left(), scene.right()),
                  start(middle.y(), vh, scene.top(), scene.bottom()), vw, vh)


def best_framing(start: float, least: float, placed: Callable[[float], QPointF],
                 cost: Callable[[float, QPointF], tuple[int, int, int, int]],
                 shrink_to_clear: bool = True) -> tuple[float, QPointF]:
    """The scale and middle, among start times SNAP_SCALES and SHRINK_SCALES (none below
    least), whose framing cuts the least. placed: the middle at a scale; cost: what
    framing_cost says of a view at a scale centred on a middle. shrink_to_clear False:
    smaller than start only where no larger size shows a box whole, never to cut fewer
    names (those are hidden instead)."""
    # larger where that lets the edges fall between boxes (smaller, down to the least
    # label size, only where no larger one does): the fewest of the focus's parts out
    # of view, then a box whole in view (an empty view cuts no name: lesson 01 slide
    # 2 after Ctrl+= twice at 1024x768 showed a blank panel), then the fewest names
    # cut, then not smaller, then the most boxes whole, then the nearest size (a
    # sliver of a box past the edge, its name out, is no harm)
    options = []
    for more in SNAP_SCALES + SHRINK_SCALES:
        scale = start * more
        if scale < least * 0.999:
            continue
        middle = placed(scale)
        options.append((cost(scale, middle), more, scale, middle))
    _cost, _more, scale, middle = min(options, key=lambda o: (
        o[0][0], o[0][2] == 0, o[0][1] if shrink_to_clear else 0, o[1] < 1.0, o[0][1],
        o[0][2], abs(o[1] - 1.0), o[0]))
    return scale, middle


def snapped(x0: float, y0: float, vw: float, vh: float, boxes: list[QRectF],
            keep: list[QRectF], scene: QRectF) -> tuple[float, float]:
    """x0, y0 (a view vw by vh, scene px) moved so each of boxes (drawn_rect: its badge
    too) is whole in the view or out of it, those of keep (the focus's parts) in it."""
    m = BOX_MARGIN
    boxes = [r.adjusted(-m, -m, m, m) for r in boxes]
    keep = [r.adjusted(-m, -m, m, m) for r in keep]
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
