"""The cosine matrix's labels never run together (issue 22: a model file's "quadrant" and
"image" under columns too narrow for them read "quadrantimage"), its numbers fit their
cells, and a crowded panel gives the colour bar's room to the numbers: the rules of
plain.charts.matrix_labels, on any names and any cell size, with text measured by a made-up
font whose every character is as wide (the window measures with the real font:
tests/qt/widgets/test_cosine_labels.py checks the panel draws what these decide)."""
import itertools
from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from gradviz.plain.charts.matrix_labels import (
    LEAST_LABEL_PT,
    NUMBER_MARGIN,
    Arrangement,
    best_arrangement,
    matrix_labels,
    number_px,
    shown_number_px,
)
from gradviz.plain.config.config import MAX_HEADS

PX_PER_PT = 96 / 72
TINY_CELL = 12   # px: a cell this small has no room for a label a room could read
TEXT_PT = 9.0    # the text size at zoom 1


@dataclass(frozen=True)
class Mono:
    """A font whose every character is char_em of its size wide (a space space_em), and
    a label's height 0.8 of line_em, as pyqtgraph gives it; by default about DejaVu
    Sans' digits and line."""
    char_em: float = 0.55
    space_em: float = 0.28
    line_em: float = 1.2

    def width(self, text: str, pt: float) -> float:
        return len(text) * self.char_em * pt * PX_PER_PT

    def space(self, pt: float) -> float:
        return self.space_em * pt * PX_PER_PT

    def height(self, pt: float) -> float:
        return 0.8 * self.line_em * pt * PX_PER_PT


MONO = Mono()
NAMES = st.lists(st.text(st.characters(min_codepoint=33, max_codepoint=126),
                         min_size=1, max_size=40),
                 min_size=1, max_size=MAX_HEADS, unique=True)
FONTS = st.builds(Mono, st.floats(0.4, 0.8), st.floats(0.2, 0.4), st.floats(1.0, 1.4))
TEXT_PTS = st.sampled_from([TEXT_PT * z for z in (1.0, 1.25, 1.5, 1.7)])


def _rects(labels, cell, measure):
    """Where the axes draw each label, (left, top, right, bottom), y down: each row's
    right-aligned left of the matrix and centred on its row, each column's centred under
    its column."""
    h, k = measure.height(labels.pt), len(labels.rows)
    out = []
    for i, text in enumerate(labels.rows):
        mid = (i + 0.5) * cell
        out.append((-measure.width(text, labels.pt), mid - h / 2, 0.0, mid + h / 2, text))
    for j, text in enumerate(labels.columns):
        mid, w = (j + 0.5) * cell, measure.width(text, labels.pt)
        out.append((mid - w / 2, k * cell, mid + w / 2, k * cell + h, text))
    return out


def _assert_apart(names, labels, cell, measure):
    """Every row and every column labelled, as the names or as numbers keyed by the
    rows, no two labels overlapping: rows a pixel apart, columns a space apart."""
    k, numbers = len(names), [str(i) for i in range(len(names))]
    rows, columns = list(labels.rows), list(labels.columns)
    assert columns in (list(names), [f"h{i}" for i in numbers], numbers), labels
    assert rows == list(names) or rows == [f"{i} {n}" for i, n in zip(numbers, names)], labels
    if columns != list(names) and rows == list(names):   # only the built-in heads
        assert rows == [f"head{i}" for i in numbers], labels
    rects = _rects(labels, cell, measure)
    for a, b in itertools.combinations(rects, 2):
        apart = a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
        assert apart, f"{a[4]!r} at {a[:4]} overlaps {b[4]!r} at {b[:4]}"
    for up, down in zip(rects[:k], rects[1:k]):
        assert down[1] - up[3] >= 1
    for left, right in zip(rects[k:], rects[k + 1:]):
        assert right[0] - left[2] >= measure.space(labels.pt) - 1e-9


def test_long_names_at_1024x768_are_numbered_and_keyed_by_the_rows():
    # about the cells of the agreement tab at 1024x768: "quadrant" does not fit
    labels = matrix_labels(["quadrant", "image"], 40.0, TEXT_PT, MONO)
    assert labels.rows == ("0 quadrant", "1 image") and labels.columns == ("0", "1")
    assert labels.pt == TEXT_PT
    _assert_apart(["quadrant", "image"], labels, 40.0, MONO)


def test_names_that_fit_stay_whole_under_their_columns():
    labels = matrix_labels(["a", "b"], 40.0, TEXT_PT, MONO)
    assert labels.rows == labels.columns == ("a", "b")


def test_the_built_in_models_heads_keep_their_names_and_short_columns():
    heads = [f"head{k}" for k in range(8)]
    assert matrix_labels(heads, 60.0, TEXT_PT, MONO).columns == tuple(heads)
    short = matrix_labels(heads, 30.0, TEXT_PT, MONO)
    assert short.rows == tuple(heads) and short.columns == tuple(f"h{k}" for k in range(8))
    # where even "h7" does not fit, the number alone; the rows still name the heads
    numbered = matrix_labels(heads, 15.0, TEXT_PT, MONO)
    assert numbered.rows == tuple(heads) and numbered.columns == tuple(map(str, range(8)))


def test_labels_taller_than_their_rows_shrink_but_not_below_the_least_size():
    labels = matrix_labels(["a", "b"], 14.0, TEXT_PT * 1.5, MONO)
    assert LEAST_LABEL_PT <= labels.pt < TEXT_PT * 1.5
    assert MONO.height(labels.pt) <= 14.0 - 1 and labels.rows == ("a", "b")
    # a row lower than even the least size: no labels at all
    assert matrix_labels(["a", "b"], 8.0, TEXT_PT, MONO).rows == ()


def test_a_matrix_not_laid_out_yet_has_no_labels():
    labels = matrix_labels(["a", "b"], 0.0, TEXT_PT, MONO)
    assert labels.rows == labels.columns == ()


@settings(max_examples=200, deadline=None)
@given(names=NAMES, cell=st.floats(0.5, 160.0), text_pt=TEXT_PTS, measure=FONTS)
def test_no_names_at_any_size_overlap(names, cell, text_pt, measure):
    labels = matrix_labels(names, cell, text_pt, measure)
    assert LEAST_LABEL_PT <= labels.pt <= text_pt
    if measure.height(text_pt) <= cell - 2:   # the text's own size where it fits
        assert labels.pt == text_pt
    if labels.rows:
        _assert_apart(names, labels, cell, measure)
    else:
        assert labels.columns == ()


@settings(max_examples=100, deadline=None)
@given(names=NAMES, cell=st.floats(0.5, 160.0), text_pt=TEXT_PTS)
def test_only_a_tiny_cell_goes_unlabelled(names, cell, text_pt):
    """With a font of real proportions, labels are left out only where a cell is
    smaller than any label a room could read."""
    shown = matrix_labels(names, cell, text_pt, MONO).rows != ()
    assert shown == (cell >= MONO.height(LEAST_LABEL_PT) + 2)
    if not shown:
        assert cell < TINY_CELL


@given(cell=st.floats(1.0, 300.0), widest_em=st.floats(1.5, 3.5))
def test_a_cells_number_is_the_largest_that_fits_inside_it(cell, widest_em):
    px = number_px(cell, widest_em)
    room = cell * (1 - 2 * NUMBER_MARGIN)
    assert px * widest_em <= room or px == 1
    assert px <= cell / 2 or px == 1
    assert (px + 1) * widest_em > room or px + 1 > cell / 2


@given(cell=st.floats(0.0, 300.0), wanted=st.integers(8, 40), widest_em=st.floats(1.5, 3.5))
def test_numbers_are_as_asked_but_fit_and_never_below_8_px(cell, wanted, widest_em):
    px = shown_number_px(cell, wanted, widest_em)
    assert 8 <= px <= wanted
    if cell > 0 and px > 8:
        assert px * widest_em <= cell * (1 - 2 * NUMBER_MARGIN) and px <= cell / 2
    if cell == 0 or number_px(cell, widest_em) >= wanted:
        assert px == wanted


WIDEST_EM = 2.4   # "−0.45" in a bold sans: about 2.4 of its pixel size wide
WANTED = 20       # px: the numbers' size at the text size


def _options(bar_cell, plain_cell, beside=None):
    below = [Arrangement(None, True, bar_cell, True), Arrangement(None, False, plain_cell, True)]
    return below + (beside or [])


def test_a_roomy_panel_keeps_its_colour_bar():
    # with the bar the numbers reach 0.8 of the text size: hiding it gains nothing worth it
    cell = 16 * WIDEST_EM / (1 - 2 * NUMBER_MARGIN) + 1
    assert number_px(cell, WIDEST_EM) >= 16
    assert best_arrangement(_options(cell, cell + 30), False, WANTED, WIDEST_EM).bar


def test_a_crowded_panel_hides_its_colour_bar_for_larger_numbers():
    # lesson 11's four heads after Ctrl+= twice at 1024x768: 9 px numbers with the bar
    chosen = best_arrangement(_options(26.0, 40.0), False, WANTED, WIDEST_EM)
    assert not chosen.bar and chosen.cell == 40.0


def test_notes_shown_whole_come_before_larger_numbers():
    cut = Arrangement(200, False, 90.0, False)
    chosen = best_arrangement(_options(30.0, 35.0, [cut]), True, WANTED, WIDEST_EM)
    assert chosen.whole and chosen.notes is None


def test_the_notes_go_beside_only_in_a_wide_panel_of_equal_numbers():
    beside = [Arrangement(150, True, 60.0, True), Arrangement(180, True, 60.0, True)]
    options = _options(60.0, 60.0, beside)
    assert best_arrangement(options, False, WANTED, WIDEST_EM).notes is None
    # in a wide one, of equal cells, the wider column (it wraps the notes the least)
    assert best_arrangement(options, True, WANTED, WIDEST_EM).notes == 180
    # larger numbers beside win even in a tall panel
    bigger = Arrangement(150, True, 30.0, True)
    assert best_arrangement(_options(20.0, 22.0, [bigger]), False, WANTED,
                            WIDEST_EM).notes == 150
