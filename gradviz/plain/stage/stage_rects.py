"""The stage's parts as rects, and a room cut into them: the candidates the stage layout
(stage_layout.place) weighs for a slide's panels, the main one first."""
from __future__ import annotations

from dataclasses import dataclass

GAP = 6                 # px between the stage's parts
# of the room, for the main panel beside or above the others; the later ones only where
# the others' least sizes (three panels) need more of the room, or, the last two, where
# the main panel keeps the room it has at the normal text size after Ctrl+=
MAIN_SHARES = (0.62, 0.55, 0.50, 0.45, 0.40, 0.70, 0.78)
# the main panel's share beside a single other one is above half: the slide names it, and
# an error's What happened beside the graph (02/1, 08/2) took as much width as the graph
PAIR_SHARE_ABOVE = 0.5
# tried last, beside a single other panel: the main one still the wider, where the other
# is a text that needs the width to be whole (02/1's What happened was 9 px short at 0.55
# at 1024x768)
PAIR_LAST_SHARES = (0.53, 0.51)
# where the other of a pair is a text sized by its text (an error's What happened): the
# main one's shares tried after those, the text then the wider. At the narration's size
# an explanation needs about 660x440 px at 1024x768 (02/1: PyTorch's message of 361
# characters, Why and What to do), which no share above half leaves it; the main panel
# keeps its least size (a share of the room below it counts as a squeeze)
TEXT_PAIR_SHARES = (0.47, 0.43, 0.39, 0.35, 0.31)
# where the main one of a pair is that text (an error slide names What happened): its
# shares tried after those, the other one keeping its least width (02/1's explanation at
# 1024x768 needs 660 px, which 0.62 leaves 30 px short and 0.70 takes from the graph)
TEXT_MAIN_SHARES = (0.66, 0.58)


@dataclass(frozen=True)
class Rect:
    x: int
    y: int
    w: int
    h: int

    @property
    def right(self) -> int:
        return self.x + self.w

    @property
    def bottom(self) -> int:
        return self.y + self.h


def within(r: Rect, width: int, height: int) -> Rect:
    """r cut to the room (a room smaller than its gaps leaves parts of no size)."""
    x, y = min(r.x, width), min(r.y, height)
    return Rect(x, y, max(0, min(r.w, width - x)), max(0, min(r.h, height - y)))


def room_rect(x: int, y: int, w: int, h: int) -> Rect:
    return Rect(x, y, max(0, w), max(0, h))


def candidates(room: Rect, count: int, layout: str, weights: list[int] | None = None,
               text_beside: bool = False, text_main: bool = False):
    """weights: how the panels after the main one share the rest (default: equally);
    text_beside: a pair's second panel is a text sized by its text (TEXT_PAIR_SHARES);
    text_main: its first one is (TEXT_MAIN_SHARES)."""
    stacked = layout == "stacked"
    if count <= 1:
        yield "alone", [room] * count
        return
    if count == 2:
        order = ("column", "row") if stacked else ("row", "column")
        for share in MAIN_SHARES + PAIR_LAST_SHARES + (TEXT_PAIR_SHARES if text_beside
                                                       else ()) \
                + (TEXT_MAIN_SHARES if text_main else ()):
            if share <= PAIR_SHARE_ABOVE and share not in TEXT_PAIR_SHARES:
                continue   # the main panel the larger of the two, beside a chart
            for kind in order:
                yield kind, split(room, [share, 1 - share], kind == "row")
        return
    rest = count - 1
    order = ("main-top", "main-left") if stacked else ("main-left", "main-top")
    for share in MAIN_SHARES:
        for kind in order:
            beside = kind == "main-left"
            main, others = split(room, [share, 1 - share], beside)
            parts = weights if weights and beside else [1] * rest
            yield kind, [main] + split(others, [w / sum(parts) for w in parts], not beside)
    # one above another, the main one still the largest
    yield "column", split(room, [0.5] + [0.5 / rest] * rest, False)


def split(room: Rect, shares: list[float], across: bool) -> list[Rect]:
    """room cut into len(shares) parts with GAP between them, side by side (across) or
    one above another, each its share of what the gaps leave."""
    total = (room.w if across else room.h) - GAP * (len(shares) - 1)
    out, at = [], room.x if across else room.y
    for i, share in enumerate(shares):
        size = int(total * share) if i < len(shares) - 1 else \
            (room.right if across else room.bottom) - at
        size = max(0, min(size, (room.right if across else room.bottom) - at))
        out.append(Rect(at, room.y, size, room.h) if across else
                   Rect(room.x, at, room.w, size))
        at += size + GAP
    return out
