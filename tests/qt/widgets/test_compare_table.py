"""The Compare dock's table: every header whole, at a projector's width and text size."""
import pytest
from PySide6.QtCore import Qt

from gradviz.qt.theme import LIGHT, TEXT_STEP
from gradviz.qt.widgets.compare_view import CompareView


@pytest.mark.parametrize("zoom", [1.0, TEXT_STEP ** 2])
@pytest.mark.parametrize("live", [True, False])
def test_every_header_line_is_whole_in_a_narrow_dock(qtbot, zoom, live):
    view = CompareView()
    qtbot.addWidget(view)
    view.apply_theme(LIGHT.zoomed(zoom))
    view._live(live)
    view.resize(480, 360)          # the Compare dock's width in a 1024x768 window
    view.show()
    qtbot.waitExposed(view)
    header = view.table.horizontalHeader()
    metrics = header.fontMetrics()
    for column in range(view.table.columnCount()):
        text = view.table.horizontalHeaderItem(column).text()
        needed = max(metrics.horizontalAdvance(line) for line in text.split("\n"))
        assert header.sectionSize(column) >= needed + 8, (text, header.sectionSize(column))
    assert view.table.horizontalScrollBarPolicy() != Qt.ScrollBarAlwaysOff
