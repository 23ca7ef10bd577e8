"""Where a lesson slide's narration and panels go on the stage: one pure function of the
room, the text size and the slide, so that "why is this panel here?" has one answer, and
the answer is the same however busy the machine is and in whatever order the window's
layout passes come (the dock layout it replaces applied its shares once and lost them).

The slide's first panel is its main one and gets most of the room, its second and third
share the rest; the narration is a strip across the top, as high as its text needs, or
a column beside the panels where a strip would take too much of the height. Every panel
keeps its least size (which grows with the text) where any arrangement allows it: when
the room runs out, a secondary panel moves below the main one, never behind a tab. The
main panel is the largest on screen, and a larger text size never makes it smaller than
it is at the normal one: the secondary panels give way first (below their least size),
then the narration wraps into a column. A panel of text (an error's explanation) whose
text cannot be whole at the larger text size is set smaller, down to the normal size,
rather than scrolled: its Why and What to do are the slide's point.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import NamedTuple

# the least size (px at text size 1) of each panel: below it its title, axes and legend
# take the plot's room, or the cosine matrix's numbers overlap (seen at 1024x768); the
# loop's: its title and three lines (on the stage it shows no Copy buttons)
LEAST: dict[str, tuple[int, int]] = {
    "loss": (300, 145), "global_norm": (300, 150), "grad_norms": (300, 190),
    "junction": (300, 190), "cosine": (240, 230), "memory": (320, 200),
    "graph": (340, 230), "code": (360, 125), "events": (320, 170),
}
# of each least size, the part that grows with the text (the rest is a picture fitted to
# any size): the graph's boxes are fitted to its panel, only its caption and buttons grow;
# the loop's font steps down in a smaller panel (FONT_STEPS) as the graph's boxes do:
# grown in full, beside an error after Ctrl+= twice at 1024x768 it left the error's
# explanation 94% of the height its text needs
# the cosine matrix's cells are fitted to the panel and its numbers to the cells (14 px
# in a 48 px cell): only its title and labels grow
GROWS: dict[str, float] = {"graph": 0.25, "code": 0.25, "cosine": 0.4}
# the panels whose font is set smaller, in TEXT_SHRINK steps down to the normal text
# size, where their rect is smaller than their least size grown in full with the text
FONT_STEPS = frozenset({"code"})
# the charts whose font is set smaller so, where they are a slide's second or third panel
# and no arrangement keeps every panel its least size at the text size: lesson 13's
# second slide after Ctrl+= twice at 1024x768 (a narration half the height, the cosine
# matrix, the loss chart and the loop below it) cut the loss chart's step axis; the main
# panel and the narration keep the lecturer's text size
SECONDARY_STEPS = frozenset({"loss", "global_norm", "junction", "memory", "cosine"})
GAP = 6                 # px between the stage's parts
STRIP_AT_MOST = 0.40    # of the stage's height, for the narration as a strip on top
COLUMN_SHARES = (0.30, 0.36, 0.42, 0.50)   # of the width, tried for a narration column
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
# the main panel keeps its room after Ctrl+= where its area is at least KEPT of the
# area it has at the normal text size (the rest: rounding of the shares), and neither
# side is below KEEP_SIDE of its side there (a chart as wide but a third lower lost
# its plot: the junction chart ~150 px tall on 01/2 after Ctrl+= twice)
KEPT, KEEP_SIDE = 0.97, 0.85
# of its least size, the least the main panel is given before the narration is (where no
# placement has room for both)
MAIN_AT_LEAST = 0.5
# how much larger than its least size the main panel is made (where the room allows)
# before a text panel beside it gets a font larger than it needs to be whole: lesson 05's
# explanation took the room at a size above the normal one, and the graph it names was
# left a 136 px strip of boxes after Ctrl+= twice at 1024x768
MAIN_COMFORT = 1.15
# a secondary panel lower than this share of its least height (at its font's step) is
# left out, and the others placed without it: its title, axes and legend (the graph's
# caption and buttons) take what is left, and nothing of it is read (03/2 after Ctrl+=
# twice at 1024x768: the graph 144 px high, one box of 18 in view). Only the height
# counts: the graph's boxes stack downwards, and 08/1's graph, 224 px wide beside the
# loss chart, showed its boxes whole
LEFT_OUT_BELOW = 2 / 3
# the panels of text, never left out: an error's Why and What to do, the loop's lines,
# are the slide's point; their font is set smaller and they scroll instead
NEVER_LEFT_OUT = frozenset({"events", "code"})
# each step a text panel's font may be made smaller (of the text size's) to be whole;
# never below the normal text size (1 / zoom)
TEXT_SHRINK = 0.93
# the screen's height (px, as Qt sees it) below which a lesson's stage takes the run
# bar's row too (Space, →, P and PageDown play a slide without it): at QT_SCALE_FACTOR=2
# on a 1280x720 screen (360 px to Qt) the bar's 33 px were a tenth of the window, and the
# narration showed one line of four
RUN_BAR_ROOM_AT_LEAST = 420


def run_bar_shown(in_lesson: bool, room_height: int | None) -> bool:
    """Whether the run bar is shown: always outside a lesson (the settings' run needs
    it), on a lesson's stage only where the screen has the room."""
    return not in_lesson or room_height is None or room_height >= RUN_BAR_ROOM_AT_LEAST


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


@dataclass(frozen=True)
class Placement:
    narration: Rect
    narration_whole: bool           # False: the text is taller than its rect and scrolls
    panels: dict[str, Rect]         # the slide's panels in its order, the main one first
    arrangement: str                # "alone", "row", "column", "main-left", "main-top"
    fits: float                     # the most-squeezed panel's size over its least (>= 1: all fit)
    text_whole: bool = True         # every text panel (What happened) has its text's height
    text_fit: float = 1.0           # the most-cut text panel's height over its text's (<= 1)
    text_scale: float = 1.0         # the text panels' font, of the text size's (<= 1)
    # a FONT_STEPS panel's font, of the text size's (<= 1), by name
    font_scale: dict[str, float] = field(default_factory=dict)
    # the main panel has at least the room it has at the normal text size (KEPT)
    main_kept: bool = True
    # the narration's font, of the text size's (<= 1): smaller (down to the normal size)
    # where at the text size it leaves the main panel no room to keep
    narration_scale: float = 1.0
    # a part beside the slide (Compare's verdict): on top of a secondary panel's rect,
    # or under the narration (None: no such part)
    aside: Rect | None = None
    # the slide's secondary panels left out, too low to be read (LEFT_OUT_BELOW)
    left_out: tuple[str, ...] = ()


def least_size(panel: str, zoom: float, scale: float = 1.0) -> tuple[int, int]:
    """The least size at text size zoom, the panel's font set to scale of it."""
    w, h = LEAST.get(panel, (300, 180))
    grown = 1 + GROWS.get(panel, 1.0) * (zoom * scale - 1)
    return int(w * grown), int(h * grown)


def steps(names: list[str] | tuple[str, ...]) -> set[str]:
    """The slide's panels whose font may be set smaller than the text size: the loop
    anywhere, a chart where it is not the main panel."""
    return {n for i, n in enumerate(names)
            if n in FONT_STEPS or (i > 0 and n in SECONDARY_STEPS)}


def place(width: int, height: int, panels: tuple[str, ...] | list[str], zoom: float = 1.0,
          layout: str = "side-by-side",
          narration_height: Callable[[int], int] = lambda width: 0,
          content_height: Mapping[str, Callable[[int, float], int]] | None = None,
          text_floor: float | None = None) -> Placement:
    """The stage's parts in a width x height room. narration_height(w): the height the
    narration needs to be read whole at width w (text reflows, so it is a function).
    content_height: for a panel of text (What happened), the height its text needs at a
    width and a font scale (1: the text size); a rect lower than that squeezes it as a
    rect below its least size does, and where no arrangement leaves it whole, its font
    may be set smaller (text_scale), never below text_floor (default: the normal text
    size, 1 / zoom).
    layout: "stacked" prefers the panels one above another, anything else beside."""
    width, height = max(1, width), max(1, height)
    names = list(panels)
    # the main panel's room at the normal text size, with every panel of the slide: a
    # panel left out at a larger size gives it no claim to more
    keep = normal_main(width, height, names, zoom, layout, narration_height,
                       content_height)
    left_out: list[str] = []
    while True:
        chosen = _place_names(width, height, names, zoom, layout, narration_height,
                              content_height, text_floor, keep)
        low = too_low(chosen, zoom)
        if low is None:
            return replace(chosen, left_out=tuple(left_out))
        names.remove(low)
        left_out.append(low)


def too_low(p: Placement, zoom: float) -> str | None:
    """The secondary chart or graph of p lowest for its least height, where that is
    below LEFT_OUT_BELOW of it (None: every one is read)."""
    def share(name: str) -> float:
        least = least_size(name, zoom, p.font_scale.get(name, 1.0))[1]
        return p.panels[name].h / max(1, least)
    secondary = [n for n in list(p.panels)[1:] if n not in NEVER_LEFT_OUT]
    lowest = min(secondary, key=share, default=None)
    return lowest if lowest is not None and share(lowest) < LEFT_OUT_BELOW else None


def _place_names(width: int, height: int, names: list[str], zoom: float, layout: str,
                 narration_height: Callable[[int], int],
                 content_height: Mapping[str, Callable[[int, float], int]] | None,
                 text_floor: float | None, keep: Rect | None) -> Placement:
    chosen = _choose(width, height, names, zoom, layout, narration_height,
                     content_height, text_floor, keep)
    if keep is not None and not (chosen.main_kept and chosen.narration_whole):
        chosen = _narration_smaller(width, height, names, zoom, layout,
                                    narration_height, content_height, text_floor,
                                    keep) or chosen
    stepped = steps(list(chosen.panels))
    return replace(chosen, font_scale={n: font_step(n, r, zoom)
                                       for n, r in chosen.panels.items() if n in stepped})


def normal_main(width: int, height: int, names: list[str], zoom: float, layout: str,
                narration_height: Callable[[int], int],
                content_height: Mapping[str, Callable[[int, float], int]] | None
                ) -> Rect | None:
    """The main panel's rect at the normal text size, which it keeps at text size zoom
    (None at or below the normal size: nothing to keep). The narration at the normal
    size is taken as its text at zoom in a room zoom times as wide, set 1 / zoom as high
    (the same lines); a text panel's, at the font scale 1 / zoom."""
    if zoom <= 1 or not names:
        return None
    def narration_at_normal(w: int) -> int:
        return math.ceil(narration_height(int(w * zoom)) / zoom)
    content = {name: (lambda w, scale, f=f: f(w, scale / zoom))
               for name, f in (content_height or {}).items()}
    normal = _choose(width, height, names, 1.0, layout, narration_at_normal, content, None,
                     None)
    return normal.panels.get(names[0])


def _narration_smaller(width: int, height: int, names: list[str], zoom: float, layout: str,
                       narration_height: Callable[[int], int],
                       content_height: Mapping[str, Callable[[int, float], int]] | None,
                       text_floor: float | None, keep: Rect) -> Placement | None:
    """The placement with the narration's font the largest TEXT_SHRINK step (down to
    the normal text size) at which it is whole and the main panel keeps its room; None
    where none is. At scale s its text is taken as at the text size in a room 1 / s as
    wide, s as high (the same lines)."""
    scale, floor = 1.0, 1 / zoom
    while scale > floor:
        scale = max(floor, scale * TEXT_SHRINK)
        def smaller(w: int, s: float = scale) -> int:
            return math.ceil(s * narration_height(int(w / s)))
        p = _choose(width, height, names, zoom, layout, smaller, content_height,
                    text_floor, keep)
        if p.main_kept and p.narration_whole:
            return replace(p, narration_scale=scale)
    return None


def keeps(rect: Rect, normal: Rect | None) -> bool:
    """rect keeps the room of normal (the main panel's at the normal text size)."""
    if normal is None:
        return True
    return (rect.w * rect.h >= KEPT * normal.w * normal.h
            and rect.w >= KEEP_SIDE * normal.w and rect.h >= KEEP_SIDE * normal.h)


def font_step(name: str, rect: Rect, zoom: float) -> float:
    """The font (of the text size's) of a FONT_STEPS panel in rect: the largest
    TEXT_SHRINK step at which rect holds its least size grown in full with the text
    (as much text as at the normal size), never below the normal text size."""
    w, h = LEAST.get(name, (300, 180))
    floor = min(1.0, 1 / max(zoom, 1e-6))
    scale = 1.0
    while scale > floor and (rect.w < w * zoom * scale or rect.h < h * zoom * scale):
        scale = max(floor, scale * TEXT_SHRINK)
    return scale


def _choose(width: int, height: int, names: list[str], zoom: float, layout: str,
            narration_height: Callable[[int], int],
            content_height: Mapping[str, Callable[[int, float], int]] | None,
            text_floor: float | None, keep: Rect | None) -> Placement:
    options = []
    for narration, whole, room in _narration_options(width, height, narration_height):
        o = _arrange(room, names, zoom, layout, content_height or {},
                     min(1.0, text_floor if text_floor is not None else 1 / max(zoom, 1e-6)),
                     keep)
        inside = [_within(r, width, height) for r in o.rects]
        options.append(Placement(_within(narration, width, height), whole,
                                 dict(zip(names, inside)), o.arrangement, o.fits,
                                 o.text >= 1, min(1.0, o.text), o.scale, main_kept=o.kept))
    whole = [p for p in options if p.narration_whole and p.fits >= 1 and p.main_kept]
    if whole:
        # the text panels as whole as any arrangement leaves them, at the largest font
        # that does: after Ctrl+= twice an error's explanation cannot be whole at
        # 1024x768 at that size, and a column of narration beside it left it a third of
        # its lines
        def legible(p: Placement) -> tuple[float, float, float]:
            return (round(p.text_fit, 2), _comfort(p.panels, names, zoom),
                    round(p.text_scale, 3))
        most = max(legible(p) for p in whole)
        whole = [p for p in whole if legible(p) >= most]
        # everything fits: the largest main panel, less the room a column of narration
        # leaves empty below its text (a third of the width, half of it blank, was the
        # dock layout's way at 1024x768); the earliest of equals
        def score(p: Placement) -> int:
            text = p.narration
            empty = text.w * max(0, text.h - narration_height(text.w)) if text.w else 0
            return _main_area(p) - empty
        return max(whole, key=score)
    # nothing fits whole: the narration read whole first (a strip, else a column), then
    # the main panel keeping its room, then the least squeezed secondary panels; where
    # the main panel cannot keep its room so, the text size is too large for the slide
    # (the lesson takes a Ctrl+= back: it never makes the named panel smaller). Before
    # all that, the main panel at least MAIN_AT_LEAST of its least size: a 1280x720
    # screen at QT_SCALE_FACTOR=2 (640x360 to Qt) left it ~10 px below a whole
    # narration; a narration that scrolls is read, a panel that thin is not
    def order(p: Placement) -> tuple[bool, bool, bool, float]:
        main = p.panels.get(names[0]) if names else None
        seen = main is None or _fit(main, least_size(names[0], zoom)) >= MAIN_AT_LEAST
        return seen, p.narration_whole, p.main_kept, round(p.fits, 3)
    return max(options, key=order)


def _comfort(rects: Mapping[str, Rect], names: list[str], zoom: float) -> float:
    """The main panel's size over its least, up to MAIN_COMFORT."""
    if not names or names[0] not in rects:
        return MAIN_COMFORT
    return round(min(MAIN_COMFORT, _fit(rects[names[0]], least_size(names[0], zoom))), 2)


def _main_area(p: Placement) -> int:
    main = next(iter(p.panels.values()), None)
    return 0 if main is None else main.w * main.h


def _narration_options(width: int, height: int, needed: Callable[[int], int]):
    """(narration rect, whether its text is whole there, the room left for the panels),
    the most preferred first: a strip on top of at most STRIP_AT_MOST of the height, then
    ever wider columns on the left, then a strip as high as its text (after Ctrl+= the
    text of a 1024x768 slide needs half the height, and its panels still fit below)."""
    strip = needed(width)
    if strip <= 0:
        yield Rect(0, 0, width, 0), True, Rect(0, 0, width, height)
        return
    if strip <= height * STRIP_AT_MOST:
        yield _strip(width, height, strip, True)
    for share in COLUMN_SHARES:
        column = int(width * share)
        yield (Rect(0, 0, column, height), needed(column) <= height,
               _room(column + GAP, 0, width - column - GAP, height))
    if height * STRIP_AT_MOST < strip < height:
        yield _strip(width, height, strip, True)
    # the strip no higher than it may be, its text scrolling: where nothing else fits
    yield _strip(width, height, min(strip, int(height * STRIP_AT_MOST)),
                 strip <= height * STRIP_AT_MOST)


def _within(r: Rect, width: int, height: int) -> Rect:
    """r cut to the room (a room smaller than its gaps leaves parts of no size)."""
    x, y = min(r.x, width), min(r.y, height)
    return Rect(x, y, max(0, min(r.w, width - x)), max(0, min(r.h, height - y)))


def _strip(width: int, height: int, high: int, whole: bool):
    return Rect(0, 0, width, high), whole, _room(0, high + GAP, width, height - high - GAP)


def _room(x: int, y: int, w: int, h: int) -> Rect:
    return Rect(x, y, max(0, w), max(0, h))


class _Option(NamedTuple):
    arrangement: str
    rects: list[Rect]
    fits: float
    text: float
    scale: float
    kept: bool     # the main panel keeps its room at the normal text size


def _arrange(room: Rect, names: list[str], zoom: float, layout: str,
             content: Mapping[str, Callable[[int, float], int]], floor: float,
             keep: Rect | None) -> _Option:
    """(arrangement, rects, fits, text fit, text scale): the first candidate in which
    every panel keeps its least size and a text panel its text's height; else, of those
    that keep the least sizes, the one whose text is whole at the largest font (the
    first of equals: the larger main panel), or if none, the least cut at the normal
    size; else the one that squeezes its most-squeezed panel least. A text that cannot
    be whole never counts as a squeeze (its panel then scrolls, as a dock's does).
    All at the text size first; only where no candidate keeps every panel its least
    size so, again with the secondary charts' and the loop's fonts set smaller
    (font_step), their least sizes with them. Before all of it: the main panel keeps
    the area keep (its room at the normal text size), the others giving way."""
    at_size = _arrange_at(room, names, zoom, layout, content, floor, set(), keep)
    if at_size.fits >= 1 and at_size.kept:
        return at_size
    smaller = _arrange_at(room, names, zoom, layout, content, floor, steps(names), keep)
    return smaller if (smaller.kept, smaller.fits) > (at_size.kept, at_size.fits) \
        else at_size


def _arrange_at(room: Rect, names: list[str], zoom: float, layout: str,
                content: Mapping[str, Callable[[int, float], int]], floor: float,
                stepped: set[str], keep: Rect | None) -> _Option:
    best: _Option | None = None
    best_text: _Option | None = None
    # set smaller, the secondary panels share the rest as their least heights do (equal
    # halves left lesson 13's loss chart's step axis 3 px short beside the loop)
    weights = [least_size(n, 1.0)[1] for n in names[1:]] if stepped else None
    for arrangement, rects in _candidates(room, len(names), layout, weights):
        fits = min((_fit(r, least_size(n, zoom, font_step(n, r, zoom) if n in stepped
                                       else 1.0))
                    for n, r in zip(names, rects)), default=1.0)
        text, scale = _text_fit(names, rects, zoom, content, floor)
        kept = not rects or keeps(rects[0], keep)
        if fits >= 1 and text >= 1 and scale >= 1 and kept:
            return _Option(arrangement, rects, fits, 1.0, 1.0, True)
        option = _Option(arrangement, rects, fits, text, scale, kept)
        def legible(o: _Option) -> tuple[bool, float, float, float]:
            return (o.kept, min(1.0, o.text), _comfort(dict(zip(names, o.rects)), names, zoom),
                    o.scale)
        if fits >= 1 and (best_text is None or legible(option) > legible(best_text)):
            best_text = option
        if best is None or (kept, fits) > (best.kept, best.fits):
            best = option
    if best_text is not None and (best is None or best_text.kept >= best.kept):
        return best_text
    return best if best is not None else _Option("alone", [], 1.0, 1.0, 1.0, True)


def _text_fit(names: list[str], rects: list[Rect], zoom: float,
              content: Mapping[str, Callable[[int, float], int]],
              floor: float) -> tuple[float, float]:
    """(the most-cut text panel's fit, the font scale it has it at): the largest scale,
    in TEXT_SHRINK steps down to floor, at which every text panel is
    whole, else the floor's fit."""
    def fit(scale: float) -> float:
        return min((_fit(r, _least(n, r, zoom, content, scale)) for n, r in zip(names, rects)
                    if n in content), default=1.0)
    scale, least_scale = 1.0, max(0.1, floor)
    while True:
        text = fit(scale)
        if text >= 1 or scale <= least_scale:
            return text, scale
        scale = max(least_scale, scale * TEXT_SHRINK)


def _least(name: str, rect: Rect, zoom: float,
           content: Mapping[str, Callable[[int, float], int]],
           scale: float = 1.0) -> tuple[int, int]:
    w, h = least_size(name, zoom)
    needed = content.get(name)
    if needed is None or rect.w <= 0:
        return w, h
    return w, max(h, needed(rect.w, scale))


def _fit(rect: Rect, least: tuple[int, int]) -> float:
    return min(rect.w / max(1, least[0]), rect.h / max(1, least[1]))


def _candidates(room: Rect, count: int, layout: str, weights: list[int] | None = None):
    """weights: how the panels after the main one share the rest (default: equally)."""
    stacked = layout == "stacked"
    if count <= 1:
        yield "alone", [room] * count
        return
    if count == 2:
        order = ("column", "row") if stacked else ("row", "column")
        for share in MAIN_SHARES + PAIR_LAST_SHARES:
            if share <= PAIR_SHARE_ABOVE:   # the main panel the larger of the two
                continue
            for kind in order:
                yield kind, _split(room, [share, 1 - share], kind == "row")
        return
    rest = count - 1
    order = ("main-top", "main-left") if stacked else ("main-left", "main-top")
    for share in MAIN_SHARES:
        for kind in order:
            beside = kind == "main-left"
            main, others = _split(room, [share, 1 - share], beside)
            parts = weights if weights and beside else [1] * rest
            yield kind, [main] + _split(others, [w / sum(parts) for w in parts], not beside)
    # one above another, the main one still the largest
    yield "column", _split(room, [0.5] + [0.5 / rest] * rest, False)


def _split(room: Rect, shares: list[float], across: bool) -> list[Rect]:
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
