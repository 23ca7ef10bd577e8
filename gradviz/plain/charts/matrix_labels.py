"""What the cosine matrix draws round its cells, decided as plain numbers: its axis labels
(names, or numbers keyed by the rows), their size, its cells' numbers' size, and whether
the colour bar is shown. The window measures text (a QFontMetrics, passed in as a
TextMeasure) and applies the result; these rules decide, so a test checks them on any
names and any cell size in milliseconds, with a made-up measure."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

LEAST_LABEL_PT = 6.0   # the smallest the labels get in a cramped matrix
ROW_GAP_PX = 2         # rows' labels a pixel or two apart
# of a cell, clear each side of its number: at 8% four heads on a lesson stage's matrix
# (11/2 at 1024x768, after Ctrl+= twice) had numbers 18 px high, capitals 13 px
NUMBER_MARGIN = 0.05
LEAST_NUMBER_PX = 8    # a cell's number is never drawn smaller
# of the text's own size, the numbers at which the colour bar is kept (beyond, hiding
# it to make them larger still is not worth what it says)
BAR_WORTH = 0.8


class TextMeasure(Protocol):
    """Text as the axes draw it, at a font size in points, in pixels."""

    def width(self, text: str, pt: float) -> float:
        """The drawn (inked) width of text."""

    def space(self, pt: float) -> float:
        """How far a space moves on: the gap kept between two columns' labels."""

    def height(self, pt: float) -> float:
        """A label's height as the axis gives it."""


@dataclass(frozen=True)
class AxisLabels:
    rows: tuple[str, ...]      # top to bottom; () where the cells have no room
    columns: tuple[str, ...]   # left to right
    pt: float                  # their font size


def axis_labels(names: Sequence[str], fit: Callable[[list[str]], bool]
                ) -> tuple[list[str], list[str]]:
    """(row labels, column labels). Each name under its column where every one fits in
    a column's width (fit says); else the columns are numbered and each row's label
    starts with its number, so the rows are the key to the columns ("0 quadrant" beside
    the row, "0" under the column: full names under narrow columns ran together, as
    "quadrantimage"). The built-in model's "head3" has its number in its name already:
    its column is "h3", or "3" where even that does not fit."""
    names = list(names)
    numbers = [str(k) for k in range(len(names))]
    if fit(names):
        return names, names
    if names == [f"head{k}" for k in numbers]:
        short = [f"h{k}" for k in numbers]
        return names, short if fit(short) else numbers
    return [f"{k} {n}" for k, n in zip(numbers, names)], numbers


def label_pt(text_pt: float, cell_px: float, measure: TextMeasure) -> tuple[float, bool]:
    """(the labels' font size, whether a label fits its row at it): the text's own size,
    smaller where a row's label is taller than its row (eight heads in a cramped tab:
    each row's name ran into the next), never below LEAST_LABEL_PT."""
    pt, room = text_pt, cell_px - ROW_GAP_PX
    tall = measure.height(pt)
    while tall > room and pt > LEAST_LABEL_PT:
        pt = max(LEAST_LABEL_PT, pt * max(0.5, room / tall) - 0.25)
        tall = measure.height(pt)
    return pt, tall <= room


def labels_fit(labels: Sequence[str], cell_px: float, pt: float,
               measure: TextMeasure) -> bool:
    """Whether every label fits under its column, a space between neighbours."""
    room = cell_px - measure.space(pt)
    return all(measure.width(n, pt) <= room for n in labels)


def matrix_labels(names: Sequence[str], cell_px: float, text_pt: float,
                  measure: TextMeasure) -> AxisLabels:
    """The labels a K x K matrix of cells cell_px wide (as drawn) gets: names that fit
    their columns, else numbered columns (axis_labels); none where the rows are lower
    than the smallest label, or not even the numbers fit (the panel squeezed to its
    least size: its numbers are unreadable too, and labels laid over each other would be
    worse than none)."""
    if cell_px <= 0:   # squeezed flat, or not laid out yet: no matrix to label
        return AxisLabels((), (), text_pt)
    pt, room = label_pt(text_pt, cell_px, measure)
    rows, columns = axis_labels(names, lambda ls: labels_fit(ls, cell_px, pt, measure))
    if not room or not labels_fit(columns, cell_px, pt, measure):
        return AxisLabels((), (), pt)
    return AxisLabels(tuple(rows), tuple(columns), pt)


def number_px(cell_px: float, widest_em: float) -> int:
    """The largest pixel size at which the widest number ("−0.45", widest_em of its font
    size wide) fits inside a cell, NUMBER_MARGIN of the cell clear on each side, and its
    height half the cell: a quarter of the cell (the rule this replaces) left the numbers
    13 px tall in the cells of lesson 13's crowded slide, where 17 px fit. 0 for no cell."""
    if cell_px <= 0:
        return 0
    room = cell_px * (1 - 2 * NUMBER_MARGIN)
    return max(1, int(min(room / max(widest_em, 1e-6), cell_px / 2)))


def shown_number_px(cell_px: float, wanted_px: int, widest_em: float) -> int:
    """The cells' numbers' size: as big as the text size asks, but no bigger than fits
    a cell (number_px), and never below LEAST_NUMBER_PX; as asked while there is no cell."""
    if cell_px <= 0:
        return wanted_px
    return max(LEAST_NUMBER_PX, min(wanted_px, number_px(cell_px, widest_em)))


@dataclass(frozen=True)
class Arrangement:
    """One way to lay the panel out, and what it would leave the matrix."""
    notes: int | None   # the notes' column width beside the matrix; None: below it
    bar: bool           # the colour bar shown
    cell: float         # a cell's side in px, so arranged
    whole: bool         # the notes shown whole, so arranged


def best_arrangement(options: Sequence[Arrangement], wide: bool, wanted_px: int,
                     widest_em: float, worth: float = BAR_WORTH) -> Arrangement:
    """Of the arrangements that leave the notes whole, the one whose numbers are largest;
    of equals, the colour bar shown, and the notes beside only in a wide panel, then the
    larger cell (then the wider notes). Numbers within BAR_WORTH of the text's own size
    count as equal: they gain nothing worth the colour bar (hidden for a pixel more, it
    left roomy panels). Four heads on lesson 11's stage after Ctrl+= twice at 1024x768:
    the notes below left the numbers 9 px; beside, the bar hidden, they are 16. worth:
    BAR_WORTH, or 1 where the numbers must reach the size wanted (a lesson's stage, whose
    narration points at them: 11/2's were 17 px with the bar, 20 without)."""
    cap = round(worth * wanted_px)

    def rank(a: Arrangement) -> tuple[bool, int, bool, bool, float, int]:
        number = min(cap, number_px(a.cell, widest_em))
        beside = a.notes is not None
        return (a.whole, number, a.bar, beside == wide, a.cell,
                -1 if a.notes is None else a.notes)

    return max(options, key=rank)
