"""Applies a Theme to the whole application: Fusion style, palette, and the base font
size (the presentation zoom), so every stock widget follows without its own code."""
from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication

from .theme import Theme


def _palette(theme: Theme) -> QPalette:
    p = QPalette()
    dark = theme.name == "dark"
    window = QColor("#2B2B2B" if dark else "#F3F3F3")
    base = QColor("#1E1E1E" if dark else "#FFFFFF")
    text = QColor(theme.foreground)
    p.setColor(QPalette.ColorRole.Window, window)
    p.setColor(QPalette.ColorRole.WindowText, text)
    p.setColor(QPalette.ColorRole.Base, base)
    p.setColor(QPalette.ColorRole.AlternateBase, window)
    p.setColor(QPalette.ColorRole.Text, text)
    p.setColor(QPalette.ColorRole.Button, QColor("#3A3A3A" if dark else "#E8E8E8"))
    p.setColor(QPalette.ColorRole.ButtonText, text)
    p.setColor(QPalette.ColorRole.ToolTipBase, base)
    p.setColor(QPalette.ColorRole.ToolTipText, text)
    p.setColor(QPalette.ColorRole.Highlight, QColor("#2F6FB0"))
    p.setColor(QPalette.ColorRole.HighlightedText, QColor("#FFFFFF"))
    p.setColor(QPalette.ColorRole.PlaceholderText, QColor("#8A8A8A"))
    p.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text, QColor("#7A7A7A"))
    p.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText, QColor("#7A7A7A"))
    return p


def apply(app: QApplication, theme: Theme) -> None:
    app.setStyle("Fusion")
    app.setPalette(_palette(theme))
    font = QFont(app.font())
    font.setPointSizeF(theme.font_pt)
    app.setFont(font)
