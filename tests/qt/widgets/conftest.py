"""Panels shown at a realistic size, for the widget tests."""
from __future__ import annotations

import pytest

from panel_data import head_names, param_names


@pytest.fixture
def show(qtbot):
    """Make a panel for `heads` heads, shown at 700 x 450 (a dock on a projector)."""
    def make(panel_type, heads: int = 3, size=(700, 450)):
        panel = panel_type()
        qtbot.addWidget(panel)
        panel.set_model(head_names(heads), param_names(heads))
        panel.resize(*size)
        panel.show()
        qtbot.waitExposed(panel)
        return panel
    return make
