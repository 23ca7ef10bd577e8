"""Where a graph's view goes when what a slide names does not fit in it at the least
label size, and where a cut's label goes beside its bar: plain rectangles in, a
position out (the window's canvas measures, these decide)."""
from __future__ import annotations

import math
from collections.abc import Sequence

# a rectangle as (left, top, right, bottom), y down as on screen
Rect = tuple[float, float, float, float]
Point = tuple[float, float]


def _whole(start: float, length: float, span: tuple[float, float]) -> bool:
    return span[0] >= start - 0.5 and span[1] <= start + length + 0.5


def window_start(length: float, parts: list[tuple[float, float]],
                 bounds: tuple[float, float], prefer: float | None = None) -> float:
    """Where a view `length` long starts along one axis: at prefer (the focus's own start,
    whose edge cuts no box of it; a focus spread over the whole graph, lesson 02's
    "freed", reads from the trunk's top down) where that holds some of parts (the focus's
    boxes, each (start, end)) whole; else where the most of them are whole, then the
    fewest cut by its edges, then its middle nearest theirs. In a panel shorter than the
    focus's first box and its margin, the view framed from the focus's start showed none
    of it. The view stays within bounds (the scene) where the scene is the longer."""
    lo, hi = bounds[0], max(bounds[0], bounds[1] - length)
    if not parts:
        return min(max((bounds[0] + bounds[1] - length) / 2, lo), hi)
    middle = (min(a for a, _ in parts) + max(b for _, b in parts)) / 2
    options = {min(max(x, lo), hi) for a, b in parts for x in (a, b - length)}
    options.add(min(max(middle - length / 2, lo), hi))

    def cut(at: float) -> int:   # parts the view's edges cut through
        return sum(p[0] < at + length and p[1] > at and not _whole(at, length, p)
                   for p in parts)

    def held(at: float) -> int:
        return sum(_whole(at, length, p) for p in parts)

    if prefer is not None and held(prefer) > 0:
        return prefer   # as asked: the view's snapping keeps it within the scene
    return min(sorted(options), key=lambda at: (-held(at), cut(at),
                                                abs(at + length / 2 - middle)))


def _overlap(a: Rect, b: Rect) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def _outside(rect: Rect, bounds: Rect) -> float:
    """The area of rect past bounds."""
    area = (rect[2] - rect[0]) * (rect[3] - rect[1])
    return area - _overlap(rect, bounds)


def label_candidates(size: tuple[float, float], anchors: list[Point],
                     gap: float) -> list[Rect]:
    """A label of size (w, h) beside each anchor: right, left, above, below and at the
    four corners, gap away; first the right of the first anchor (as a cut's label read)."""
    w, h = size
    out = []
    for x, y in anchors:
        for left, top in ((x + gap, y - h / 2), (x - gap - w, y - h / 2),
                          (x - w / 2, y - gap - h), (x - w / 2, y + gap),
                          (x + gap, y - gap - h), (x - gap - w, y - gap - h),
                          (x + gap, y + gap), (x - gap - w, y + gap)):
            out.append((left, top, left + w, top + h))
    return out


def label_spot(size: tuple[float, float], anchors: list[Point], boxes: list[Rect],
               bounds: Rect, avoid: Sequence[Rect] = (), gap: float = 6.0) -> Point:
    """The top-left of a cut's label ("detach_()") of size (w, h) beside the anchors (its
    bar's ends and middle, then points further along its edge): the spot of
    label_candidates that covers the least of boxes (a label under a box read "ach()";
    one over it hid the box's name), then lies least past bounds (the drawing, which a
    framed view can show), then least over avoid (the bar itself, the edge's other
    labels), then is nearest the first anchor."""
    first = anchors[0]

    def cost(rect: Rect) -> tuple[float, float, float, float]:
        centre = ((rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2)
        return (round(sum(_overlap(rect, b) for b in boxes), 1),
                round(_outside(rect, bounds), 1),
                round(sum(_overlap(rect, a) for a in avoid), 1),
                math.dist(centre, first))

    best = min(label_candidates(size, anchors, gap), key=cost)
    return best[0], best[1]


def segment_hits(p: Point, q: Point, rect: Rect, pad: float = 0.0) -> bool:
    """Whether the segment p-q passes within pad of rect (a bar across an edge, drawn
    over a box, hid its border and read as part of it)."""
    left, top, right, bottom = rect[0] - pad, rect[1] - pad, rect[2] + pad, rect[3] + pad
    steps = max(2, int(math.dist(p, q) / 2) + 1)
    for i in range(steps + 1):
        t = i / steps
        x, y = p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t
        if left <= x <= right and top <= y <= bottom:
            return True
    return False


def fold_blocks(folded: bool, whole_legible: bool, foldable: int, same_model: bool) -> bool:
    """Whether the module view folds each block of layers into one box: once the whole
    model, each layer a box, does not fit the panel at the least label size (a CNN's 24
    boxes showed 2 in a 450x120 panel) and some block can fold; kept while the model is
    the same (a model folded to fit would otherwise unfold, overflow and fold again), so
    a new model (a slide on another file) starts unfolded."""
    if not same_model:
        folded = False
    return folded or (not whole_legible and foldable > 0)
