"""Text a stranger wrote (a loss's or a parameter's name, a folder's name) made fit for
one line of a terminal or a label.

A terminal obeys the control characters it prints: ESC starts a sequence that can clear
the screen, retitle the window or plant a link (OSC 8), BEL rings, CR writes over the
line, a bidirectional override reorders what follows, a lone surrogate (a file name
that is not UTF-8) makes print() itself raise. So each of them is shown as its escape
(\\x1b, \\u202e, \\udcff) and never sent; everything else is shown as written. A name
can be a megabyte long: it is cut, with an ellipsis, to what a line holds.
"""
from __future__ import annotations

import re

SHOWN_NAME_CHARS = 80       # a name in a line of the report or the window
SHOWN_PATH_CHARS = 160      # a file's path in a line

# C0 and C1 controls, DEL, the line and paragraph separators, bidirectional marks and
# overrides, and lone surrogates (what Python makes of bytes that are not UTF-8)
_UNSHOWN = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e"
                      "\u2066-\u2069\ufeff\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escaped(text: str) -> str:
    """text with every control character shown as its escape (see the module)."""
    return _UNSHOWN.sub(_escape, text)


def shown_name(text: str, limit: int = SHOWN_NAME_CHARS) -> str:
    """A name as a line shows it: escaped, and cut to limit characters with an
    ellipsis."""
    text = escaped(text[: limit * 4 + 1])   # an escape is at most 6 characters
    return text if len(text) <= limit else text[: limit - 1] + "…"


def shown_path(path: object) -> str:
    """A path as a line shows it (escaped, and cut in the middle: its end names the
    file)."""
    text = escaped(str(path))
    if len(text) <= SHOWN_PATH_CHARS:
        return text
    half = (SHOWN_PATH_CHARS - 1) // 2
    return text[:half] + "…" + text[-half:]
