"""Light and dark themes and the presentation zoom: colours and font sizes every panel reads.

Head colours come from the renderer's palette so the plots, the graph and the legend
agree on which colour is which loss.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from ..render import style

BASE_FONT_PT = 11.0
TEXT_STEP = 1.15   # one Ctrl+= (Larger text): every font this much larger
# the narration's text, of the text size's: read from the back of the hall (its capitals
# 14 px high at 1024x768); an error's explanation on a lesson's stage is read as it is
READING = 1.35


@dataclass(frozen=True)
class Theme:
    name: str
    background: str
    foreground: str
    panel: str          # background of plot areas
    grid_alpha: float
    total_colour: str   # the total loss curve
    zoom: float = 1.0   # presentation zoom: every font scales by this

    @property
    def font_pt(self) -> float:
        return BASE_FONT_PT * self.zoom

    def head_colour(self, k: int) -> str:
        return style.head_colour(k)

    def zoomed(self, zoom: float) -> Theme:
        return replace(self, zoom=max(0.6, min(3.0, zoom)))


LIGHT = Theme("light", background="#FFFFFF", foreground="#1A1A1A", panel="#FFFFFF",
              grid_alpha=0.25, total_colour="#1A1A1A")
DARK = Theme("dark", background="#1E1E1E", foreground="#EAEAEA", panel="#121212",
             grid_alpha=0.3, total_colour="#FFFFFF")
THEMES = {t.name: t for t in (LIGHT, DARK)}
