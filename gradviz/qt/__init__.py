"""The desktop app: PySide6 + pyqtgraph on top of gradviz.core (no training logic here)."""
