"""The cosine matrix's labels never run together (issue 22): a model file's head names
("quadrant", "image") stood under columns too narrow for them and read "quadrantimage".
Where a name does not fit its column, the columns are numbered and each row's label
starts with its number. The rules, on any names and cell size, are checked without Qt in
tests/plain/test_matrix_labels.py; here, on the rects pyqtgraph draws the labels in, that
the panel draws what they decide for the cells it has, measured with its real font."""
import itertools

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QTabWidget

from gradviz.plain.charts.matrix_labels import matrix_labels
from gradviz.plain.config.config import Config
from gradviz.qt.model_menu import example_path
from gradviz.qt.theme import LIGHT
from gradviz.qt.widgets import plot_style as ps
from gradviz.qt.widgets.cosine_heatmap import CosineHeatmap
from gradviz.qt.widgets.matrix_axes import FontMeasure

from waits import WAIT_MS

# the panel's size in the Gradients dock's "agreement" tab of the window at 1024x768 on a
# real X server (measured on Xvfb, the window fitted to its screen at launch)
AT_1024 = (450, 270)
TINY_CELL = 12   # px: a cell this small has no room for a label a room could read


def _drawn(qtbot, panel, names, size, zoom=1.0):
    panel.apply_theme(LIGHT.zoomed(zoom))
    panel.set_model(list(names), [])
    panel.resize(*size)
    panel.show()
    qtbot.waitExposed(panel)
    qtbot.waitUntil(lambda: panel.plot.getViewBox().width() > 0)
    # the row labels' axis widens to them once it has measured them (a paint), and the
    # view shrinks beside it: wait until each label sits at its own row or column
    qtbot.waitUntil(lambda: _settled(panel, len(names)), timeout=WAIT_MS)
    return panel.tick_labels()


def _cell_px(panel) -> float:
    """A cell's side as drawn, in pixels."""
    one, right, down = _centre(panel, 0, 0), _centre(panel, 1, 0), _centre(panel, 0, 1)
    return min(abs(right.x() - one.x()), abs(down.y() - one.y()))


def _centre(panel, x: float, y: float) -> QPointF:
    """A point of the matrix (column x, row y) in the panel's pixels."""
    view, canvas = panel.plot.getViewBox(), panel.plot_widget
    return QPointF(canvas.mapTo(panel, canvas.mapFromScene(view.mapViewToScene(QPointF(x, y)))))


def _settled(panel, k: int) -> bool:
    """Every label drawn (or, in a cell too small for any, none), each centred on its
    row (left) or its column (below), to a pixel or two."""
    labels = panel.tick_labels()
    if not labels:
        return _cell_px(panel) < TINY_CELL
    if len(labels) != 2 * k:
        return False
    rows, columns = labels[:k], labels[k:]
    return all(abs(rect.center().y() - _centre(panel, 0, i).y()) <= 2
               for i, (rect, _) in enumerate(rows)) and \
        all(abs(rect.center().x() - _centre(panel, j, 0).x()) <= 2
            for j, (rect, _) in enumerate(columns))


def _assert_apart(labels, names, panel=None) -> None:
    """Every row and every column labelled (none left out), as names or numbers keyed by
    the rows, and no two labels overlapping; or, where a cell is drawn smaller than the
    smallest label could be read in (a panel squeezed to its least size), none."""
    texts, k = [text for _, text in labels], len(names)
    if panel is not None and not texts:
        assert _cell_px(panel) < TINY_CELL
        return
    rows, columns = texts[:k], texts[k:]
    numbers = [str(i) for i in range(k)]
    assert columns in (list(names), [f"h{i}" for i in numbers], numbers), texts
    assert rows == list(names) or rows == [f"{i} {n}" for i, n in zip(numbers, names)], texts
    if columns == numbers != list(names) and rows == list(names):   # the built-in heads
        assert rows == [f"head{i}" for i in numbers], texts
    for (a, ta), (b, tb) in itertools.combinations(labels, 2):
        assert not a.intersects(b), f"{ta!r} at {a} overlaps {tb!r} at {b}"


def _assert_as_decided(panel, names) -> None:
    """The labels drawn are what matrix_labels decides for the cells as drawn and the
    panel's text size, measured with its font, and drawn at the size it decides (to a
    fraction of a point: the cells are measured here to a whole pixel)."""
    font = ps.font(panel.theme)
    decided = matrix_labels(names, _cell_px(panel), font.pointSizeF(), FontMeasure(font))
    drawn = [text for _, text in panel.tick_labels()]
    assert drawn == list(decided.rows) + list(decided.columns)
    if decided.rows:
        for side in ("left", "bottom"):
            drawn_pt = panel.plot.getAxis(side).style["tickFont"].pointSizeF()
            assert drawn_pt == pytest.approx(decided.pt, abs=0.25)
            assert drawn_pt <= font.pointSizeF()


@pytest.fixture
def panel(qtbot):
    made = CosineHeatmap()
    qtbot.addWidget(made)
    return made


def test_long_names_at_1024x768_are_numbered_and_apart(qtbot, panel):
    labels = _drawn(qtbot, panel, ["quadrant", "image"], AT_1024)
    assert sorted(t for _, t in labels) == ["0", "0 quadrant", "1", "1 image"]
    _assert_apart(labels, ["quadrant", "image"])
    _assert_as_decided(panel, ["quadrant", "image"])


def test_the_built_in_models_heads_keep_their_short_columns(qtbot, panel):
    labels = _drawn(qtbot, panel, [f"head{k}" for k in range(8)], AT_1024)
    assert [t for _, t in labels][:8] == [f"head{k}" for k in range(8)]   # as they are
    _assert_apart(labels, [f"head{k}" for k in range(8)])
    _assert_as_decided(panel, [f"head{k}" for k in range(8)])


# a few sizes the rules give different answers at: every label shrunk to its row, long
# names numbered at 1.5 times the text size, names whole in a roomy panel, and a panel
# squeezed so small no label has room
@pytest.mark.parametrize(("names", "size", "zoom"), [
    ([f"loss_{k}" for k in range(8)], (500, 380), 1.5),
    (["a", "quadrant", "image", "x1"], (700, 500), 1.5),
    (["a", "quadrant", "image", "x1"], (900, 600), 1.0),
    ([f"head{k}" for k in range(8)], (210, 150), 1.5),
])
def test_no_names_at_these_sizes_overlap_and_are_as_decided(qtbot, panel, names, size, zoom):
    _assert_apart(_drawn(qtbot, panel, names, size, zoom), names, panel)
    _assert_as_decided(panel, names)


def test_in_the_window_on_the_cnn_example_the_labels_are_apart(qtbot, make_window):
    w = make_window(Config(device="cpu"), model_path=example_path("cnn_two_heads"))
    qtbot.waitUntil(lambda: w.model.model_name == "cnn_two_heads.py", timeout=WAIT_MS)
    w.resize(1024, 768)
    tabs = w.gradients_panel.findChild(QTabWidget, "gradientsTabs")
    if w.gradients_panel.compact:   # cramped: the "agreement" tab, clicked
        bar = tabs.tabBar()
        qtbot.mouseClick(bar, Qt.LeftButton, pos=bar.tabRect(2).center())
    qtbot.waitUntil(lambda: w.cosine.isVisible() and len(w.cosine.tick_labels()) == 4)
    _assert_apart(w.cosine.tick_labels(), ["quadrant", "image"])


def test_a_roomy_panel_keeps_its_colour_bar_and_a_crowded_one_hides_it(qtbot):
    """A panel whose numbers are near the text's own size with the colour bar keeps it
    (hidden for a pixel more, it left roomy panels); lesson 11's four heads after Ctrl+=
    twice at 1024x768 hide it, for numbers a room can read."""
    panel = CosineHeatmap()
    qtbot.addWidget(panel)
    _drawn(qtbot, panel, ["head0", "head1", "head2"], (480, 330))
    assert panel.colour_bar.isVisible()
    crowded = CosineHeatmap()
    qtbot.addWidget(crowded)
    _drawn(qtbot, crowded, [f"head{k}" for k in range(4)], (557, 361), zoom=1.3225)
    assert not crowded.colour_bar.isVisible()
