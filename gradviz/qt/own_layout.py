"""A widget's own layout, typed as there: Qt types `QWidget.layout()` as maybe none, and
the panels that measure their margins and spacing were each given one when made."""
from __future__ import annotations

from PySide6.QtWidgets import QLayout, QWidget


def own_layout(widget: QWidget) -> QLayout:
    layout = widget.layout()
    if layout is None:   # a panel that measures itself was built without its layout
        raise RuntimeError(f"{type(widget).__name__} has no layout to measure")
    return layout
