"""Applies a Theme to the whole application: Fusion style, palette, and the base font
size (the presentation zoom), so every stock widget follows without its own code."""
from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication, QWidget

from .theme import Theme

# the classes Qt gives a platform theme's palettes to (QApplicationPrivate::
# initializeWidgetPalettesFromTheme), and the window's bars and docks
PLATFORM_THEMED = ("QToolButton", "QAbstractButton", "QCheckBox", "QRadioButton",
                   "QHeaderView", "QAbstractItemView", "QMessageBoxLabel", "QTabBar",
                   "QLabel", "QGroupBox", "QMenu", "QMenuBar", "QTextEdit", "QTextControl",
                   "QLineEdit", "QComboBox", "QDockWidget", "QToolBar", "QStatusBar")


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


def apply(app: QApplication, theme: Theme, window: QWidget | None = None) -> None:
    """The theme on the application, and on window (a main window) and all it holds.
    A desktop's platform theme (KDE's, GTK's) gives some widget classes palettes of their
    own (labels, text views, menus, tabs, buttons), which Qt prefers to the application's
    for them, and gives them again when the desktop's theme changes: under a light desktop
    View > Dark theme darkened the plots (their own palettes) and left the rest light. The
    classes get the theme's palette too, and the window has it set on itself: roles set
    on a widget reach its children over any class's palette."""
    app.setStyle("Fusion")
    palette = _palette(theme)
    app.setPalette(palette)
    for name in PLATFORM_THEMED:
        # (PySide6's stubs say bytes; it takes the class's name as str, refuses bytes)
        app.setPalette(palette, name)  # type: ignore[arg-type]
    if window is not None:
        window.setPalette(palette)
    font = QFont(app.font())
    font.setPointSizeF(theme.font_pt)
    app.setFont(font)
