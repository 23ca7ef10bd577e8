"""Compare's verdict on a lesson slide: the stage's placement (stage_layout.place) with
a part beside the slide, put where the slide's main panel keeps its room."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from .stage_layout import GAP, Placement, Rect, font_step, least_size, place, reading_floor


def place_with_aside(width: int, height: int, panels: tuple[str, ...] | list[str],
                     zoom: float = 1.0, layout: str = "side-by-side",
                     narration_height: Callable[[int], int] = lambda width: 0,
                     content_height: Mapping[str, Callable[[int, float], int]] | None = None,
                     text_floor: float | None = None,
                     aside_height: Callable[[int], int] | None = None,
                     ratio: float = 1.0) -> Placement:
    """place(), with a part of aside_height(w) px at width w (Compare's verdict) put where
    the main panel keeps its room: on top of a secondary panel that keeps its least
    height below it (a secondary panel gives way first), else under the narration."""
    p = place(width, height, panels, zoom, layout, narration_height, content_height,
              text_floor, ratio)
    if aside_height is None:
        return p
    beside = _aside_on_secondary(p, zoom, aside_height, reading_floor(zoom, ratio))
    if beside is not None:
        return beside
    under = place(width, height, panels, zoom, layout,
                  lambda w: narration_height(w) + aside_height(w) + GAP, content_height,
                  text_floor, ratio)
    n = under.narration
    high = min(aside_height(n.w), n.h)
    return replace(under, narration=replace(n, h=n.h - high - GAP),
                   aside=Rect(n.x, n.bottom - high, n.w, high))


def _aside_on_secondary(p: Placement, zoom: float, aside_height: Callable[[int], int],
                        reading: float) -> Placement | None:
    """p with the aside on top of its tallest secondary panel that keeps its least
    height (at its font's step) below it; else in the place of the tallest secondary
    panel that holds it (that panel left out while the aside is shown: a panel below
    its least size is not read); None where no secondary panel holds it."""
    secondary = sorted(list(p.panels.items())[1:], key=lambda kv: -kv[1].h)
    for name, rect in secondary:
        high = aside_height(rect.w)
        cut = Rect(rect.x, rect.y + high + GAP, rect.w, rect.h - high - GAP)
        scale = font_step(name, cut, zoom, reading) if name in p.font_scale else 1.0
        if 0 < high and cut.h >= least_size(name, zoom, scale)[1]:
            fonts = {**p.font_scale, name: scale} if name in p.font_scale else p.font_scale
            return replace(p, panels={**p.panels, name: cut}, font_scale=fonts,
                           aside=Rect(rect.x, rect.y, rect.w, high))
    for name, rect in secondary:
        high = aside_height(rect.w)
        if 0 < high <= rect.h:
            panels = {n: r for n, r in p.panels.items() if n != name}
            return replace(p, panels=panels, aside=Rect(rect.x, rect.y, rect.w, high),
                           font_scale={n: f for n, f in p.font_scale.items() if n != name},
                           left_out=(*p.left_out, name))
    return None
