"""How big and how deeply nested a lesson's narration may be: a pure check of its Markdown
text (no Qt), shared by lesson loading and the window, so that a hostile lesson file is
refused in one line instead of freezing the projector while Qt lays it out."""
from __future__ import annotations

import re

# The bundled narrations are under 600 characters, one level of lists at most; these
# leave a lecturer over six times the room and refuse what takes Qt seconds to lay out.
MAX_NARRATION_CHARS = 4000
MAX_NESTING = 5            # lists and block quotes inside one another
MAX_TABLE_CELLS = 200

# one container opener at the start of what is left of a line: a quote marker, or a
# bullet / ordered-list marker followed by a space (or the end of the line)
_CONTAINER = re.compile(r" {0,3}(>|[-+*](?=[ \t]|$)|\d{1,9}[.)](?=[ \t]|$))[ \t]?")
_FENCE = re.compile(r"\s*(```|~~~)")


def _indent(line: str) -> int:
    """Leading white space in columns (a tab is 4, as in Markdown)."""
    columns = 0
    for c in line:
        if c == " ":
            columns += 1
        elif c == "\t":
            columns += 4 - columns % 4
        else:
            break
    return columns


def line_depth(line: str) -> int:
    """An upper bound on how many lists and quotes this line sits in: the openers at its
    start, plus one per two columns of indentation (a nested list item's usual step).
    It may count too many (never too few), so text that passes here passes in Qt too."""
    depth = _indent(line) // 2
    rest = line.lstrip(" \t")
    while rest:
        opener = _CONTAINER.match(rest)
        if opener is None:
            break
        depth += 1
        rest = rest[opener.end():]
    return depth


def _outside_fences(text: str) -> list[str]:
    """The lines that are not inside a fenced code block (code is shown as it is)."""
    lines, fenced = [], False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def table_cells(text: str) -> int:
    """An upper bound on the table cells the text makes: each line with a `|` has at
    most one cell more than it has bars."""
    return sum(line.count("|") + 1 for line in text.splitlines() if "|" in line)


def narration_problem(text: str) -> str | None:
    """Why this narration cannot be shown, as one line ("it is …"), or None when it is
    within the limits."""
    if not isinstance(text, str):
        return f"it is {type(text).__name__}, not text"
    if len(text) > MAX_NARRATION_CHARS:
        return (f"it is {len(text):,} characters long; a slide's narration may have "
                f"at most {MAX_NARRATION_CHARS:,}")
    depth = max((line_depth(line) for line in _outside_fences(text)), default=0)
    if depth > MAX_NESTING:
        return (f"it nests lists or quotes {depth} levels deep; a narration may nest "
                f"them at most {MAX_NESTING} deep")
    cells = table_cells(text)
    if cells > MAX_TABLE_CELLS:
        return (f"its tables have up to {cells:,} cells; a narration may have at most "
                f"{MAX_TABLE_CELLS}")
    return None
