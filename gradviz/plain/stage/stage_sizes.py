"""Each panel's least size on the lesson stage at a text size, and how far a panel's font
may step down where its rect is smaller: the sizes the stage layout keeps."""
from __future__ import annotations

from .stage_rects import Rect

# the least size (px at text size 1) of each panel: below it its title, axes and legend
# take the plot's room; the loop's: its title and three lines (on the stage it shows no
# Copy buttons); the cosine matrix's: its cells' numbers and the line under it (the
# update, the step's readout) at the narration's size, which a slide's narration points
# at, its notes beside it (three heads and the readout needed about 580x330 px, four
# heads 580x370: in less, the notes go below it and its numbers were 7 px)
LEAST: dict[str, tuple[int, int]] = {
    "loss": (300, 145), "global_norm": (300, 150), "grad_norms": (300, 190),
    "junction": (300, 190), "cosine": (580, 330), "memory": (320, 200),
    "graph": (340, 230), "code": (360, 125), "events": (320, 170),
}
# of each least size, the part that grows with the text (the rest is a picture fitted to
# any size): the graph's boxes are fitted to its panel, only its caption and buttons grow;
# the loop's font steps down in a smaller panel (FONT_STEPS) as the graph's boxes do:
# grown in full, beside an error after Ctrl+= twice at 1024x768 it left the error's
# explanation 94% of the height its text needs
GROWS: dict[str, float] = {"graph": 0.25, "code": 0.25}
# the panels whose font is set smaller, in TEXT_SHRINK steps down to the normal text
# size, where their rect is smaller than their least size grown in full with the text
FONT_STEPS = frozenset({"code", "cosine"})
# the charts whose font is set smaller so, where they are a slide's second or third panel
# and no arrangement keeps every panel its least size at the text size: lesson 13's
# second slide after Ctrl+= twice at 1024x768 (a narration half the height, the cosine
# matrix, the loss chart and the loop below it) cut the loss chart's step axis; the main
# panel and the narration keep the lecturer's text size
SECONDARY_STEPS = frozenset({"loss", "global_norm", "junction", "memory", "cosine"})
# each step a text panel's font may be made smaller (of the text size's) to be whole;
# never below the normal text size (1 / zoom)
TEXT_SHRINK = 0.93
# the main panel keeps its room after Ctrl+= where its area is at least KEPT of the
# area it has at the normal text size (the rest: rounding of the shares), and neither
# side is below KEEP_SIDE of its side there (a chart as wide but a third lower lost
# its plot: the junction chart ~150 px tall on 01/2 after Ctrl+= twice)
KEPT, KEEP_SIDE = 0.97, 0.85


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


def keeps(rect: Rect, normal: Rect | None) -> bool:
    """rect keeps the room of normal (the main panel's at the normal text size)."""
    if normal is None:
        return True
    return (rect.w * rect.h >= KEPT * normal.w * normal.h
            and rect.w >= KEEP_SIDE * normal.w and rect.h >= KEEP_SIDE * normal.h)


def font_step(name: str, rect: Rect, zoom: float, floor: float | None = None) -> float:
    """The font (of the text size's) of a FONT_STEPS panel in rect: the largest
    TEXT_SHRINK step at which rect holds its least size grown in full with the text
    (as much text as at the normal size), never below floor (default: the normal text
    size)."""
    w, h = LEAST.get(name, (300, 180))
    floor = min(1.0, 1 / max(zoom, 1e-6)) if floor is None else floor
    scale = 1.0
    while scale > floor and (rect.w < w * zoom * scale or rect.h < h * zoom * scale):
        scale = max(floor, scale * TEXT_SHRINK)
    return scale


