"""The PyTorch training loop the current toggles amount to: read-only, highlighted,
copyable, or copied as the whole runnable program (core.script) it is the end of."""
from __future__ import annotations

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QTextEdit, QVBoxLayout, QWidget

from ...core.loop_code import loop_code
from ...core.script import script_text

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
        self.script_button = QPushButton("Copy as script")
        self.script_button.setObjectName("copyScriptButton")
        self.script_button.setToolTip(
            "Copy a whole plain-PyTorch program of these settings (model, data, this loop); "
            "python FILE prints each step's losses as gradviz run reports them")
        self.script_button.clicked.connect(self.copy_script)
        self.script_button.setEnabled(False)   # until a config says what to write
        title = QLabel("The training loop these settings amount to")
        title.setObjectName("codeTitle")
        top = QHBoxLayout()
        top.addWidget(title, 1)
        top.addWidget(self.copy_button)
        top.addWidget(self.script_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.text, 1)
        self._code = ""
        self._config = None
        self._style = STYLES["light"]
        self._font_pt = 11.0

    def code(self) -> str:
        return self._code

    def set_code(self, code: str) -> None:
        if code != self._code:
            self._code = code
            self._render()

    def set_config(self, config) -> None:
        """Show the loop of config; Copy as script then copies its whole program."""
        self._config = config
        self.script_button.setEnabled(True)
        self.set_code(loop_code(config))

    def config(self):
        return self._config

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self._code)

    def copy_script(self) -> None:
        if self._config is not None:
            QGuiApplication.clipboard().setText(script_text(self._config))

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

    app = QApplication(sys.argv)
    view = CodeView()
    view.set_config(Config(strategy="in-loop", accumulate=4, detach=(1,)))
    view.resize(900, 600)
    view.show()
    raise SystemExit(app.exec())
