"""The first launch's dock sizes, as plain numbers: how much of the window's height the
docks below the charts get, and how much of that row the graph gets where the gradient
charts sit beside it (a small screen). At 1024x768 the graph's dock had 42% of the height
and 45% of the row beside the gradient charts, and the graph showed 2 of its 18 boxes."""
from __future__ import annotations

BOTTOM_SHARE = 0.42   # of the window's height, for the docks below the charts
# on a small screen (a projector's, a laptop's: up to SMALL_SCREEN): the graph is what a
# room reads there, and its boxes never get smaller than a hall can read (14 px), so it
# shows more of them only with more of the screen
SMALL_SCREEN = (1366, 800)
SMALL_BOTTOM_SHARE = 0.5
GRAPH_SHARE_BESIDE = 0.6   # of the bottom row, beside the gradient charts


def small(width: int, height: int) -> bool:
    return width <= SMALL_SCREEN[0] and height <= SMALL_SCREEN[1]


def bottom_share(width: int, height: int) -> float:
    """The docks below the charts' share of a width x height window's height."""
    return SMALL_BOTTOM_SHARE if small(width, height) else BOTTOM_SHARE


def graph_beside(width: int, height: int, row: int) -> int | None:
    """The graph's width in a bottom row row px wide that it shares with the gradient
    charts, in a width x height window (None: as the docks are)."""
    return int(row * GRAPH_SHARE_BESIDE) if small(width, height) else None
