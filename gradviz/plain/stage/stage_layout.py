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

The panels' least sizes are stage_sizes', the rects a room is cut into stage_rects', and
the choice among them for the panels stage_arrange's; this module places the narration
and weighs what each placement leaves the slide.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from .stage_arrange import MAIN_COMFORT, arrange, comfort, fit
from .stage_rects import GAP, MAIN_SHARES, Rect, room_rect, within
from .stage_sizes import (
    FONT_STEPS,
    GROWS,
    KEEP_SIDE,
    KEPT,
    LEAST,
    SECONDARY_STEPS,
    TEXT_SHRINK,
    font_step,
    keeps,
    least_size,
    steps,
)

__all__ = ["COLUMN_SHARES", "FONT_STEPS", "GAP", "GROWS", "KEEP_SIDE", "KEPT", "LEAST",
           "LEFT_OUT_BELOW", "MAIN_AT_LEAST", "MAIN_COMFORT", "MAIN_SHARES", "NEVER_LEFT_OUT",
           "Placement", "RUN_BAR_ROOM_AT_LEAST", "Rect", "SECONDARY_STEPS", "STRIP_AT_MOST",
           "TEXT_SHRINK", "font_step", "keeps", "least_size", "normal_main", "place",
           "reading_floor", "run_bar_shown", "steps", "too_low"]

STRIP_AT_MOST = 0.40    # of the stage's height, for the narration as a strip on top
COLUMN_SHARES = (0.30, 0.36, 0.42, 0.50)   # of the width, tried for a narration column
# of its least size, the least the main panel is given before the narration is (where no
# placement has room for both)
MAIN_AT_LEAST = 0.5
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
# the screen's height (in its own pixels) below which a lesson's stage takes the run
# bar's row too (Space, →, P and PageDown play a slide without it). Not in Qt's pixels:
# at QT_SCALE_FACTOR=2 on a 1280x720 screen (360 px to Qt) the bar was taken, and with it
# Play, Step and Reset; the stage's text is set smaller there instead (reading_floor)
RUN_BAR_ROOM_AT_LEAST = 420
# on a scaled screen, the share of its area a main panel whose font is stepped down
# gains by a secondary panel left out, for that panel to be left out (_room_for_main)
SCALED_GAIN = 1.25


def run_bar_shown(in_lesson: bool, room_height: int | None, ratio: float = 1.0) -> bool:
    """Whether the run bar is shown: always outside a lesson (the settings' run needs
    it), on a lesson's stage only where the screen has the room. room_height: in Qt's
    pixels, ratio of the screen's own each."""
    return not in_lesson or room_height is None or \
        room_height * max(ratio, 1.0) >= RUN_BAR_ROOM_AT_LEAST


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


def place(width: int, height: int, panels: tuple[str, ...] | list[str], zoom: float = 1.0,
          layout: str = "side-by-side",
          narration_height: Callable[[int], int] = lambda width: 0,
          content_height: Mapping[str, Callable[[int, float], int]] | None = None,
          text_floor: float | None = None, ratio: float = 1.0) -> Placement:
    """The stage's parts in a width x height room. narration_height(w): the height the
    narration needs to be read whole at width w (text reflows, so it is a function).
    content_height: for a panel of text (What happened), the height its text needs at a
    width and a font scale (1: the text size); a rect lower than that squeezes it as a
    rect below its least size does, and where no arrangement leaves it whole, its font
    may be set smaller (text_scale), never below text_floor (default: the normal text
    size, 1 / zoom).
    layout: "stacked" prefers the panels one above another, anything else beside.
    ratio: the screen's pixels per pixel of the room (QT_SCALE_FACTOR): the text the
    stage sets smaller to fit (the narration, a text panel, the loop, the matrix) stops
    at the normal size's height in the screen's pixels, 1 / ratio of it in the room's
    (at 2 on a 1280x720 screen, a room of 640x360, the narration at the normal size
    showed one line of four, and the figures were drawn over the slide's title)."""
    width, height = max(1, width), max(1, height)
    names = list(panels)
    reading = reading_floor(zoom, ratio)
    floor = reading if text_floor is None else min(1.0, text_floor / max(ratio, 1e-6))
    # the main panel's room at the normal text size, with every panel of the slide: a
    # panel left out at a larger size gives it no claim to more
    keep = normal_main(width, height, names, zoom, layout, narration_height,
                       content_height, ratio)
    left_out: list[str] = []
    while True:
        chosen = _place_names(width, height, names, zoom, layout, narration_height,
                              content_height, floor, keep, reading)
        low = too_low(chosen, zoom)
        if low is None:
            low = _room_for_main(chosen, names, set(content_height or {}),
                                 ratio > 1 and reading < 1, lambda rest:
                                 _place_names(width, height, rest, zoom, layout,
                                              narration_height, content_height, floor,
                                              keep, reading))
        if low is None:
            return replace(chosen, left_out=tuple(left_out),
                           narration_scale=_as_text(chosen, set(content_height or {})))
        names.remove(low)
        left_out.append(low)


def _as_text(p: Placement, texts: set[str]) -> float:
    """The narration's font: where a text panel is shown more than one TEXT_SHRINK step
    smaller than the narration (to be whole), as the text's (whole at the smaller font
    too; never larger than placed, which left 12/7's explanation cut once the narration
    was laid out again); set smaller so, the stage says the text size is too large for
    the slide. At QT_SCALE_FACTOR=2 on a 1280x720 screen 08/2's explanation was read at
    0.74 of the narration's height beside it, and after Ctrl+= twice at 1024x768 05/1's
    at 0.75; both are read from the same seats. A step apart (Ctrl+= once on 05/1 at
    1024x768), the narration keeps the text size."""
    if not texts & set(p.panels) or p.text_scale >= TEXT_SHRINK * p.narration_scale - 1e-6:
        return p.narration_scale
    return min(p.narration_scale, p.text_scale)


def _room_for_main(p: Placement, names: list[str], texts: set[str], scaled: bool,
                   placed: Callable[[list[str]], Placement]) -> str | None:
    """A secondary panel to leave out so the main one is read (None: none; texts: the
    panels sized by their text, never left out): where the main panel is a text (an
    error's What happened) that is not whole even at its least font, the one whose room
    makes it whole; on a scaled screen (scaled), where the main panel's font is stepped
    down, the lowest one, if the main panel gains SCALED_GAIN of its
    area by it. At QT_SCALE_FACTOR=2 on a 1280x720 screen (a room of 640x266) 02/1's
    explanation was two thirds in view beside the graph, whose caption and buttons took
    half of its own rect, and 07/1's beside the loop; 13/1's cosine matrix, 312x182 px
    above the loss chart, drew its numbers 8 px high and its notes over each other."""
    if not names:
        return None
    # on a scaled screen, the loop too: beside 07/1's explanation it showed three lines,
    # below 13/2's matrix (its call quoted by the narration) it left the cells 20 px
    kept = texts if scaled else texts | NEVER_LEFT_OUT
    secondary = [n for n in names[1:] if n not in kept]
    if not secondary:
        return None
    if names[0] in texts:
        if p.text_whole:
            return None
        return next((n for n in secondary
                     if placed([m for m in names if m != n]).text_whole), None)
    main = p.panels.get(names[0])
    if not scaled or main is None or names[0] not in p.font_scale \
            or p.font_scale[names[0]] >= 1:
        return None
    lowest = min(secondary, key=lambda n: p.panels[n].h if n in p.panels else 0)
    wider = placed([m for m in names if m != lowest]).panels.get(names[0])
    gained = wider is not None and wider.w * wider.h >= SCALED_GAIN * main.w * main.h
    return lowest if gained else None


def reading_floor(zoom: float, ratio: float = 1.0) -> float:
    """The least font scale (of the text size's) the stage sets its reading text to: the
    normal text size, as many of the screen's pixels high as on a screen of one pixel per
    pixel of the room (ratio: the screen's pixels per pixel of the room)."""
    return min(1.0, 1 / max(zoom * max(ratio, 1.0), 1e-6))


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
                 text_floor: float, keep: Rect | None, reading: float) -> Placement:
    chosen = _choose(width, height, names, zoom, layout, narration_height,
                     content_height, text_floor, keep, reading)
    if not (chosen.main_kept and chosen.narration_whole and chosen.text_whole
            and _seen(chosen, names, zoom, reading)):
        chosen = _narration_smaller(width, height, names, zoom, layout,
                                    narration_height, content_height, text_floor,
                                    keep, reading) or chosen
    stepped = steps(list(chosen.panels))
    return replace(chosen, font_scale={n: font_step(n, r, zoom, reading)
                                       for n, r in chosen.panels.items() if n in stepped})


def _seen(p: Placement, names: list[str], zoom: float, reading: float) -> bool:
    """The main panel at least MAIN_AT_LEAST of its least size (at its font's least
    step, where it has one: its own text set smaller)."""
    main = p.panels.get(names[0]) if names else None
    if main is None:
        return True
    scale = font_step(names[0], main, zoom, reading) if names[0] in steps(names) else 1.0
    return fit(main, least_size(names[0], zoom, scale)) >= MAIN_AT_LEAST


def normal_main(width: int, height: int, names: list[str], zoom: float, layout: str,
                narration_height: Callable[[int], int],
                content_height: Mapping[str, Callable[[int, float], int]] | None,
                ratio: float = 1.0) -> Rect | None:
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
    reading = reading_floor(1.0, ratio)
    normal = _choose(width, height, names, 1.0, layout, narration_at_normal, content,
                     reading, None, reading)
    return normal.panels.get(names[0])


def _narration_smaller(width: int, height: int, names: list[str], zoom: float, layout: str,
                       narration_height: Callable[[int], int],
                       content_height: Mapping[str, Callable[[int, float], int]] | None,
                       text_floor: float, keep: Rect | None,
                       reading: float) -> Placement | None:
    """The placement with the narration's font the largest TEXT_SHRINK step (down to
    reading: the normal text size) at which it is whole, the main panel keeping its
    room (and MAIN_AT_LEAST of its least size), and a text panel whole too where any
    step leaves it so (at QT_SCALE_FACTOR=2 on 1280x720 the narration, whole in a column,
    left 02/1's explanation scrolled); None where none is. At scale s its text is taken
    as at the text size in a room 1 / s as wide, s as high (the same lines)."""
    scale, most = 1.0, None
    while scale > reading:
        scale = max(reading, scale * TEXT_SHRINK)
        def smaller(w: int, s: float = scale) -> int:
            return math.ceil(s * narration_height(int(w / s)))
        p = _choose(width, height, names, zoom, layout, smaller, content_height,
                    text_floor, keep, reading)
        if p.main_kept and p.narration_whole and _seen(p, names, zoom, reading):
            if p.text_whole:
                return replace(p, narration_scale=scale)
            # none whole yet: the step that shows the most of the text panels' lines
            if most is None or round(p.text_fit, 2) > round(most.text_fit, 2):
                most = replace(p, narration_scale=scale)
    return most


def _choose(width: int, height: int, names: list[str], zoom: float, layout: str,
            narration_height: Callable[[int], int],
            content_height: Mapping[str, Callable[[int, float], int]] | None,
            text_floor: float, keep: Rect | None, reading: float) -> Placement:
    options = []
    for narration, whole, room in _narration_options(width, height, narration_height):
        o = arrange(room, names, zoom, layout, content_height or {}, text_floor, keep,
                    reading)
        inside = [within(r, width, height) for r in o.rects]
        options.append(Placement(within(narration, width, height), whole,
                                 dict(zip(names, inside)), o.arrangement, o.fits,
                                 o.text >= 1, min(1.0, o.text), o.scale, main_kept=o.kept))
    whole = [p for p in options if p.narration_whole and p.fits >= 1 and p.main_kept]
    if whole:
        # the text panels as whole as any arrangement leaves them, at the largest font
        # that does: after Ctrl+= twice an error's explanation cannot be whole at
        # 1024x768 at that size, and a column of narration beside it left it a third of
        # its lines
        def legible(p: Placement) -> tuple[float, float, float]:
            return (round(p.text_fit, 2), comfort(p.panels, names, zoom),
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
        seen = main is None or fit(main, least_size(names[0], zoom)) >= MAIN_AT_LEAST
        return seen, p.narration_whole, p.main_kept, round(p.fits, 3)
    return max(options, key=order)


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
               room_rect(column + GAP, 0, width - column - GAP, height))
    if height * STRIP_AT_MOST < strip < height:
        yield _strip(width, height, strip, True)
    # the strip no higher than it may be, its text scrolling: where nothing else fits
    yield _strip(width, height, min(strip, int(height * STRIP_AT_MOST)),
                 strip <= height * STRIP_AT_MOST)


def _strip(width: int, height: int, high: int, whole: bool):
    return Rect(0, 0, width, high), whole, room_rect(0, high + GAP, width, height - high - GAP)


