"""What happened as rich text: the error PyTorch raised (its message word for word, every
field escaped), where, why and what to do; in a dock, or on a lesson's stage, where it is
read from the back of the hall beside the slide's other panels."""
from __future__ import annotations

import html

from ...plain.records.events import Event

# the headline's font, of the explanation's: its cap height 18 px where the body's is the
# narration's 14 px (the stage's explanation at 1024x768)
HEADLINE = 1.3
# where a long run of code may wrap: after these, a zero-width space (Qt's rich text has
# no <wbr>); "torch.autograd.set_detect_anomaly(True," could not break, and a narrow
# dock cut every line of the explanation at its width
_BREAK_AFTER = "._(=/,:["
ZWSP = "\u200b"
# on the stage, the space after a paragraph, of the font's pixel size: Qt's default
# 12 px a paragraph, four paragraphs, cost 02/1's explanation a line and a half
STAGE_PARAGRAPH = 0.35


def breakable(text: str) -> str:
    return "".join(c + ZWSP if c in _BREAK_AFTER else c for c in text)


def _fields(event: Event) -> dict[str, str]:
    return {k: breakable(html.escape(str(v))) for k, v in event.to_dict().items()}


def _who(e: dict[str, str], event: Event) -> str:
    return "gradviz" if event.phase == "engine" else e["source"]


def _headline(e: dict[str, str], colour: str, pt: float, margins: str = "") -> str:
    return (f"<p style='{margins}color:{colour}; font-size:{HEADLINE * pt:.2f}pt'>"
            f"<b>{e['title']}</b></p>")


def dock_html(event: Event, colour: str, pt: float) -> str:
    """The explanation in its dock: PyTorch's message in a monospace block, Where, Why,
    What to do, and what the window does now (on a lesson's stage the slide says what
    comes next)."""
    e = _fields(event)
    engine = event.phase == "engine"   # the engine's process itself stopped
    # "forward — forward" said the same thing twice
    where = e["phase"] if e["call"] == e["phase"] else f"{e['phase']} — {e['call']}"
    tail = ("Everything shown so far is kept." if engine else
            "Training is paused; change a setting, reset, or press play to try again.")
    return (_headline(e, colour, pt)
            # a model file's error: its own traceback lines below the message, one a line
            + f"<p><b>{_who(e, event)} says</b> ({e['type']}):<br>"
            f"<code>{e['message'].replace(chr(10), '<br>')}</code></p>"
            f"<p><b>Where:</b> step {e['step']}, {where}</p>"
            f"<p><b>Why:</b> {e['explanation']}</p>"
            f"<p><b>What to do:</b> {e['hint']}</p>"
            f"<p><i>{tail}</i></p>")


def stage_html(event: Event, colour: str, pt: float, font_px: int) -> str:
    """The explanation on a lesson's stage, at the narration's size, in as few lines as
    say it all: the headline; who said what, where (one paragraph: PyTorch's message in
    full, quoted, in the text's own font, narrower than a monospace font: 02/1's 361
    characters took two lines less); Why; What to do. pt: the body's size,
    the headline HEADLINE of it; font_px: its pixels, which the paragraphs' spacing
    follows."""
    e = _fields(event)
    gap = max(2, round(STAGE_PARAGRAPH * font_px))
    p = f"<p style='margin-top:0px; margin-bottom:{gap}px'>"
    where = f"step {e['step']}" + ("" if e["call"] == e["phase"] else f", {e['call']}")
    message = e["message"].replace(chr(10), "<br>")
    return (_headline(e, colour, pt, f"margin-top:0px; margin-bottom:{gap}px; ")
            + f"{p}<b>{_who(e, event)} says</b> ({e['type']}, {where}): "
            f"“{message}”</p>"
            f"{p}<b>Why:</b> {e['explanation']}</p>"
            f"<p style='margin:0px'><b>What to do:</b> {e['hint']}</p>")
