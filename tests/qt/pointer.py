"""The mouse as offscreen Qt lacks it: moves sent as the window system would send them."""
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication


def hover(widget, pos: QPoint) -> None:
    """Move the mouse over pos: offscreen Qt has no cursor for QTest.mouseMove to move,
    so the move event the window system would send is sent directly."""
    event = QMouseEvent(QEvent.MouseMove, QPointF(pos), QPointF(widget.mapToGlobal(pos)),
                        Qt.NoButton, Qt.NoButton, Qt.NoModifier)
    QApplication.sendEvent(widget, event)
