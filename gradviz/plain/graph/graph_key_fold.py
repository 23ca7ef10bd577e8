"""Whether the graph panel's key folds away (a button brings it back): where neither
below the graph nor beside it leaves the graph the room to show a few boxes whole. At
1024x768 the first layout's graph panel (about 450x215 px under its caption) kept 86 px
of it for the key below, and the graph showed 2 of its 18 boxes."""
from __future__ import annotations

# the least room (px at text size 1) the graph keeps beside or above its key: three rows
# of boxes at the least label size (a box and its badge about 60 px), and a box's width
CANVAS_LEAST = (300, 200)


def key_folds(width: int, height: int, below: int, beside: int, zoom: float = 1.0) -> bool:
    """Whether a key below the graph (below px high) and a key beside it (beside px wide)
    would each leave a width x height panel's graph less than CANVAS_LEAST (grown with
    the text)."""
    least_w, least_h = (v * max(zoom, 1e-6) for v in CANVAS_LEAST)
    below_leaves = width >= least_w and height - below >= least_h
    beside_leaves = width - beside >= least_w and height >= least_h
    return not (below_leaves or beside_leaves)
