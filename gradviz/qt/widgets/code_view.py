"""The PyTorch training loop the current toggles amount to: read-only, highlighted,
copyable. The text comes from core.loop_code, so it changes with every toggle."""
from __future__ import annotations

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QTextEdit, QVBoxLayout, QWidget

STYLES = {"light": "friendly", "dark": "monokai"}


class CodeView(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("codeView")
        self.text = QTextEdit(readOnly=True)
        self.text.setObjectName("codeText")
        self.text.setLineWrapMode(QTextEdit.NoWrap)
        self.copy_button = QPushButton("Copy")
        self.copy_button.setObjectName("copyCode")
        self.copy_button.setToolTip("Copy the loop to the clipboard")
        self.copy_button.clicked.connect(self.copy)
        title = QLabel("The training loop these settings amount to")
        title.setObjectName("codeTitle")
        top = QHBoxLayout()
        top.addWidget(title, 1)
        top.addWidget(self.copy_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.text, 1)
        self._code = ""
        self._style = STYLES["light"]
        self._font_pt = 11.0

    def code(self) -> str:
        return self._code

    def set_code(self, code: str) -> None:
        if code != self._code:
            self._code = code
            self._render()

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self._code)

    def apply_theme(self, theme) -> None:
        self._style = STYLES.get(theme.name, STYLES["light"])
        self._font_pt = theme.font_pt
        self._render()

    def _render(self) -> None:
        formatter = HtmlFormatter(style=self._style, noclasses=True, nowrap=False)
        body = highlight(self._code, PythonLexer(), formatter)
        bg = formatter.style.background_color or "#ffffff"
        self.text.setHtml(
            f"<div style='background:{bg}; font-family:monospace; "
            f"font-size:{self._font_pt:.1f}pt'>{body}</div>")
        self.text.setStyleSheet(f"QTextEdit {{ background: {bg}; }}")


if __name__ == "__main__":  # the loop of a made-up lesson, alone in a window
    import sys

    from PySide6.QtWidgets import QApplication

    from gradviz.core.config import Config
    from gradviz.core.loop_code import loop_code

    app = QApplication(sys.argv)
    view = CodeView()
    view.set_code(loop_code(Config(strategy="in-loop", accumulate=4, detach=(1,))))
    view.resize(900, 600)
    view.show()
    raise SystemExit(app.exec())
