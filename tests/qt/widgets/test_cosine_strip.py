"""A slide's bottom strip is wide and low (lesson 13 slide 2 gives the cosine matrix about
620x285 px at 1024x768): with its key and update line below it, the matrix's cells were
about 30 px and their numbers 5-8 px, unreadable from a seat. In a wide, low panel the
notes now stand beside the matrix, and the numbers reach 14 px; in a tall one they stay
below, where the matrix already has the width."""
import numpy as np
import pytest
from PySide6.QtWidgets import QBoxLayout

from gradviz.qt.theme import LIGHT
from gradviz.qt.widgets.cosine_heatmap import CosineHeatmap

MATRIX = np.array([[1.0, 0.06, 0.43], [0.06, 1.0, -0.09], [0.43, -0.09, 1.0]])


def _shown(qtbot, size):
    panel = CosineHeatmap()
    qtbot.addWidget(panel)
    panel.apply_theme(LIGHT)
    panel.set_model(["head0", "head1", "head2"], [])
    panel._show(MATRIX)
    panel.resize(*size)
    panel.show()
    qtbot.waitExposed(panel)
    qtbot.waitUntil(lambda: panel.plot.getViewBox().width() > 0)
    return panel


def _number_px(panel) -> int:
    return panel._texts[0][1].textItem.font().pixelSize()


def test_in_a_wide_low_strip_the_notes_stand_beside_and_numbers_are_legible(qtbot):
    panel = _shown(qtbot, (620, 285))
    assert panel.body.direction() == QBoxLayout.Direction.LeftToRight
    qtbot.waitUntil(lambda: _number_px(panel) >= 14)
    # the key is beside the matrix, not under it
    plot = panel.plot_widget.geometry()
    assert panel.caption.geometry().left() >= plot.right()
    assert panel.cell_text(0, 2) == "0.43"


@pytest.mark.parametrize("size", [(300, 400), (420, 420)])
def test_in_a_tall_panel_the_notes_stay_below(qtbot, size):
    panel = _shown(qtbot, size)
    assert panel.body.direction() == QBoxLayout.Direction.TopToBottom
    assert panel.caption.geometry().top() >= panel.plot_widget.geometry().bottom()
