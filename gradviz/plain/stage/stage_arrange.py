"""The slide's panels in the room the narration leaves: of the candidate arrangements
(stage_rects.candidates), the one that keeps every panel its least size and a text
panel its text's height, else the least squeezed, at the largest font that does."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NamedTuple

from .stage_rects import Rect, candidates
from .stage_sizes import TEXT_SHRINK, font_step, keeps, least_size, steps

# how much larger than its least size the main panel is made (where the room allows)
# before a text panel beside it gets a font larger than it needs to be whole: lesson 05's
# explanation took the room at a size above the normal one, and the graph it names was
# left a 136 px strip of boxes after Ctrl+= twice at 1024x768
MAIN_COMFORT = 1.15


class Option(NamedTuple):
    arrangement: str
    rects: list[Rect]
    fits: float
    text: float
    scale: float
    kept: bool     # the main panel keeps its room at the normal text size


def arrange(room: Rect, names: list[str], zoom: float, layout: str,
            content: Mapping[str, Callable[[int, float], int]], floor: float,
            keep: Rect | None, reading: float | None = None) -> Option:
    """(arrangement, rects, fits, text fit, text scale): the first candidate in which
    every panel keeps its least size and a text panel its text's height; else, of those
    that keep the least sizes, the one whose text is whole at the largest font (the
    first of equals: the larger main panel), or if none, the least cut at the normal
    size; else the one that squeezes its most-squeezed panel least. A text that cannot
    be whole never counts as a squeeze (its panel then scrolls, as a dock's does).
    All at the text size first; only where no candidate keeps every panel its least
    size so, again with the secondary charts' and the loop's fonts set smaller
    (font_step), their least sizes with them. Before all of it: the main panel keeps
    the area keep (its room at the normal text size), the others giving way. reading:
    the least font scale a panel's font steps to (default: the normal text size)."""
    at_size = _arrange_at(room, names, zoom, layout, content, floor, set(), keep, reading)
    if at_size.fits >= 1 and at_size.kept:
        return at_size
    smaller = _arrange_at(room, names, zoom, layout, content, floor, steps(names), keep,
                          reading)
    def rank(o: Option) -> tuple[bool, bool, float]:
        return o.kept, _main_largest(names, o.rects, content), o.fits
    return smaller if rank(smaller) > rank(at_size) else at_size


def _arrange_at(room: Rect, names: list[str], zoom: float, layout: str,
                content: Mapping[str, Callable[[int, float], int]], floor: float,
                stepped: set[str], keep: Rect | None, reading: float | None) -> Option:
    best: Option | None = None
    best_text: Option | None = None
    # set smaller, the secondary panels share the rest as their least heights do (equal
    # halves left lesson 13's loss chart's step axis 3 px short beside the loop)
    weights = [least_size(n, 1.0)[1] for n in names[1:]] if stepped else None
    text_beside = len(names) == 2 and names[1] in content
    text_main = len(names) == 2 and names[0] in content
    for arrangement, rects in candidates(room, len(names), layout, weights, text_beside,
                                         text_main):
        fits = min((fit(r, least_size(n, zoom, font_step(n, r, zoom, reading)
                                       if n in stepped else 1.0))
                    for n, r in zip(names, rects)), default=1.0)
        text, scale = _text_fit(names, rects, zoom, content, floor)
        kept = not rects or keeps(rects[0], keep)
        if fits >= 1 and text >= 1 and scale >= 1 and kept and \
                _main_largest(names, rects, content):
            return Option(arrangement, rects, fits, 1.0, 1.0, True)
        option = Option(arrangement, rects, fits, text, scale, kept)
        def legible(o: Option) -> tuple[bool, bool, float, float, float]:
            return (o.kept, _main_largest(names, o.rects, content), min(1.0, o.text),
                    comfort(dict(zip(names, o.rects)), names, zoom), o.scale)
        if fits >= 1 and (best_text is None or legible(option) > legible(best_text)):
            best_text = option
        if best is None or (kept, _main_largest(names, rects, content), fits) > \
                (best.kept, _main_largest(names, best.rects, content), best.fits):
            best = option
    if best_text is not None and (best is None or best_text.kept >= best.kept):
        return best_text
    return best if best is not None else Option("alone", [], 1.0, 1.0, 1.0, True)


def _main_largest(names: list[str], rects: list[Rect],
                  content: Mapping[str, Callable[[int, float], int]]) -> bool:
    """The main panel at least as large as each other one that is not a text sized by its
    text: squeezed, a third panel of a large least size (the cosine matrix's) took more
    than the panel the slide names."""
    area = [r.w * r.h for r in rects]
    return all(area[0] >= a for n, a in zip(names[1:], area[1:]) if n not in content)


def _text_fit(names: list[str], rects: list[Rect], zoom: float,
              content: Mapping[str, Callable[[int, float], int]],
              floor: float) -> tuple[float, float]:
    """(the most-cut text panel's fit, the font scale it has it at): the largest scale,
    in TEXT_SHRINK steps down to floor, at which every text panel is
    whole, else the floor's fit."""
    def at(scale: float) -> float:
        return min((fit(r, _least(n, r, zoom, content, scale)) for n, r in zip(names, rects)
                    if n in content), default=1.0)
    scale, least_scale = 1.0, max(0.1, floor)
    while True:
        text = at(scale)
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


def fit(rect: Rect, least: tuple[int, int]) -> float:
    return min(rect.w / max(1, least[0]), rect.h / max(1, least[1]))


def comfort(rects: Mapping[str, Rect], names: list[str], zoom: float) -> float:
    """The main panel's size over its least, up to MAIN_COMFORT."""
    if not names or names[0] not in rects:
        return MAIN_COMFORT
    return round(min(MAIN_COMFORT, fit(rects[names[0]], least_size(names[0], zoom))), 2)


