"""The PyTorch training loop the current toggles amount to: read-only, highlighted,
copyable, or copied as the whole runnable program (plain.program.script) it is the end of. The
lines the last change of settings changed are marked, and scrolled into view: flip
detach and the room sees `zk = z.detach()` appear."""
from __future__ import annotations

import difflib
from pathlib import Path

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer
from PySide6.QtGui import (
    QColor,
    QGuiApplication,
    QResizeEvent,
    QTextBlockFormat,
    QTextCursor,
    QTextFormat,
)
from PySide6.QtWidgets import QLabel, QPushButton, QTextEdit, QVBoxLayout, QWidget

from ...plain.config.config import Config
from ...plain.program.loop_code import OwnModel, loop_code
from ...plain.program.model_script import model_script_text
from ...plain.program.script import script_text
from .title_row import TitleRow

STYLES = {"light": "friendly", "dark": "monokai"}
# behind a changed line: strong enough to survive a projector's washed-out colours
CHANGED = {"light": "#FFE98A", "dark": "#5C4D00"}
TITLE = "The training loop these settings amount to"
CHANGED_NOTE = " · marked: what the last change changed"


def changed_lines(before: str, after: str) -> list[int]:
    """The lines of after (from 0) that are new or different from before."""
    matcher = difflib.SequenceMatcher(None, before.splitlines(), after.splitlines(),
                                      autojunk=False)
    return [j for tag, _, _, j1, j2 in matcher.get_opcodes()
            if tag in ("replace", "insert") for j in range(j1, j2)]


class CodeView(QWidget):
    own_title = True   # its title says what it is: a lesson's stage names it no more
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("codeView")
        self.text = QTextEdit(readOnly=True)
        self.text.setObjectName("codeText")
        self.text.setLineWrapMode(QTextEdit.LineWrapMode.NoWrap)
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
        self.title = QLabel(TITLE)
        self.title.setObjectName("codeTitle")
        self.title.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self._top = TitleRow(layout, self.title, [self.copy_button, self.script_button])
        layout.addWidget(self.text, 1)
        self._code = ""
        self.changed: list[int] = []   # lines the last change changed (from 0)
        self._config: Config | None = None   # the loop shown (None: none yet)
        # the model file the loop is of (its path), and its heads' taps; None: built-in
        self._model_path: str | None = None
        self._taps: tuple[int, ...] | None = None
        self._theme = "light"
        self._style = STYLES["light"]
        self._font_pt = 11.0
        self.text_scale = 1.0   # of the text size's: set smaller on a lesson's stage
        self._wrapped = False
        self.text.document().documentLayout().documentSizeChanged.connect(
            lambda _size: self._reflowed())

    def code(self) -> str:
        return self._code

    def set_wrapped(self, wrapped: bool) -> None:
        """Long lines wrapped at the panel's edge (on a lesson's stage, where the room
        reads the loop and cannot scroll it: beside a chart at 1024x768 the marked
        `total.backward(retain_graph=k < ...)` was cut at "k <"), or one line each."""
        self._wrapped = wrapped
        mode = QTextEdit.LineWrapMode
        self.text.setLineWrapMode(mode.WidgetWidth if wrapped else mode.NoWrap)
        self._render()

    def set_code(self, code: str) -> None:
        if code != self._code:
            # the first loop shown has nothing to be compared with
            self.changed = changed_lines(self._code, code) if self._code else []
            self._code = code
            self._render()
            self._show_first_changed()

    def set_model(self, path: str | None, taps: tuple[int, ...] | None = None) -> None:
        """The loop and the script are of the model file at path (its build() makes the
        model, its batch() the data; taps: the trunk output each head reads), or, None,
        of the built-in model. Shown again at once where a config is there."""
        self._model_path, self._taps = path, (None if path is None else taps)
        if self._config is not None:
            self.set_config(self._config)

    def model_path(self) -> str | None:
        return self._model_path

    def _own(self) -> OwnModel | None:
        return None if self._model_path is None else OwnModel(self._taps)

    def set_config(self, config: Config) -> None:
        """Show the loop of config; Copy as script then copies its whole program."""
        self._config = config
        self.script_button.setEnabled(True)
        self.set_code(loop_code(config, self._own()))

    def config(self) -> Config | None:
        return self._config

    def script(self) -> str:
        """The whole program Copy as script copies: for a model file, one that loads
        the file by its path and prints what `gradviz run --model` reports."""
        config = self._config
        if config is None:   # (Copy as script is enabled once a loop is shown)
            raise RuntimeError("the Code panel has shown no loop: no script to copy")
        if self._model_path is None:
            return script_text(config)
        return model_script_text(config, Path(self._model_path).resolve(), self._taps)

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self._code)

    def copy_script(self) -> None:
        if self._config is not None:
            QGuiApplication.clipboard().setText(self.script())

    def apply_theme(self, theme) -> None:
        self._theme = theme.name if theme.name in STYLES else "light"
        self._style = STYLES[self._theme]
        self._font_pt = theme.font_pt
        self._scale_title()
        self._render()

    def set_controls_shown(self, shown: bool) -> None:
        """Copy and Copy as script shown or not: a lesson's stage shows neither (a slide
        reads the loop, nobody copies it from a projector), and beside lesson 13's
        cosine matrix after Ctrl+= twice at 1024x768 their row left one line of code."""
        for button in (self.copy_button, self.script_button):
            button.setVisible(shown)
        self._fit_title()

    def set_text_scale(self, scale: float) -> None:
        """The loop's font, of the text size's: the lesson stage sets it a step smaller
        (never below the normal size) where its panel is smaller than the text size
        wants, so the panel beside it keeps the room its text needs."""
        if scale != self.text_scale:
            self.text_scale = scale
            self._scale_title()
            self._render()

    def _scale_title(self) -> None:
        # its title too (else, at the text size, it took three of the panel's lines)
        font = self.title.font()
        font.setPointSizeF(self._font_pt * self.text_scale)
        self.title.setFont(font)

    def _render(self) -> None:
        formatter = HtmlFormatter(style=self._style, noclasses=True, nowrap=False)
        body = highlight(self._code, PythonLexer(), formatter)
        bg = formatter.style.background_color or "#ffffff"
        kept = self.text.verticalScrollBar().value()   # a new theme or text size: stay put
        self.text.setHtml(
            f"<div style='background:{bg}; font-family:monospace; "
            f"font-size:{self._font_pt * self.text_scale:.1f}pt'>{body}</div>")
        self.text.setStyleSheet(f"QTextEdit {{ background: {bg}; }}")
        if self._wrapped:   # pygments' <pre> makes every line unbreakable
            whole = QTextCursor(self.text.document())
            whole.select(QTextCursor.SelectionType.Document)
            breakable = QTextBlockFormat()
            breakable.setNonBreakableLines(False)
            whole.mergeBlockFormat(breakable)
        self.text.verticalScrollBar().setValue(kept)
        self._mark_changed()

    def _mark_changed(self) -> None:
        """A band behind each changed line, the editor's full width (extra selections:
        Qt's way to mark lines without touching the text)."""
        marks = []
        document = self.text.document()
        for line in self.changed:
            block = document.findBlockByNumber(line)
            if not block.isValid():
                continue
            mark = QTextEdit.ExtraSelection()
            mark.format.setBackground(QColor(CHANGED[self._theme]))
            mark.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
            mark.cursor = QTextCursor(block)
            if self._wrapped:   # the whole line, each row it wraps to (else the first)
                mark.cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock,
                                         QTextCursor.MoveMode.KeepAnchor)
            marks.append(mark)
        self.text.setExtraSelections(marks)
        self.title.setText(TITLE + (CHANGED_NOTE if marks else ""))
        self._fit_title()

    def _fit_title(self) -> None:
        self._top.fit(self.width(), self.title.text())

    def title_above(self) -> bool:
        """Whether the title is on a line of its own, above the buttons."""
        return self._top.above

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_title()

    def _reflowed(self) -> None:
        # wrapped, a new width moves every line: the change scrolled back into view
        # (on the stage the marked lines were scrolled up out of sight by the reflow)
        if self._wrapped:
            self._show_first_changed()

    def _show_first_changed(self) -> None:
        """Scroll the change into view: all of it with a little context above where it
        fits, else its largest run of lines, from the top of its next-to-last line where
        even that does not fit (a run of new code builds up to its call, often followed
        by one line more). The first changed line at the top, as before, left the line a
        slide is about below the fold: `trunk_params = ...` in view and mtl_backward /
        jac_to_grad not (lesson 13), or `z.data.mul_(0.5)` under its loop (lesson 12);
        the run's end at the bottom showed only wrapped comments (lesson 13)."""
        if not self.changed:
            return
        room = self.text.viewport().height()
        top, bottom = self._span(self.changed[0], self.changed[-1])
        if bottom - top > room:
            first, last = _largest_run(self.changed)
            top, bottom = self._span(first, last)
            if bottom - top > room:
                top, bottom = self._span(max(first, last - 1), last)
                bottom = top + room   # its top row first: the rest as far as it goes
        context = 2 * self.text.fontMetrics().height()
        value = max(bottom - room, top - context) if bottom - top < room else top
        self.text.verticalScrollBar().setValue(max(0, int(value)))

    def _span(self, first: int, last: int) -> tuple[float, float]:
        """The top of line `first` and the bottom of line `last` in the document (px)."""
        document = self.text.document()
        layout = document.documentLayout()
        last = min(last, document.blockCount() - 1)
        top = layout.blockBoundingRect(document.findBlockByNumber(first)).top()
        return top, layout.blockBoundingRect(document.findBlockByNumber(last)).bottom()


def _largest_run(lines: list[int]) -> tuple[int, int]:
    """(first, last) of the longest run of consecutive line numbers, the later one of
    two as long (a loop's new code comes after the set-up it needs)."""
    runs: list[tuple[int, int]] = []
    for line in lines:
        if runs and line == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], line)
        else:
            runs.append((line, line))
    return max(reversed(runs), key=lambda run: run[1] - run[0])


if __name__ == "__main__":  # the loop of a made-up lesson, alone in a window
    import sys

    from PySide6.QtWidgets import QApplication

    from gradviz.plain.config.config import Config

    app = QApplication(sys.argv)
    view = CodeView()
    view.set_config(Config(strategy="in-loop", accumulate=4, detach=(1,)))
    view.resize(900, 600)
    view.show()
    raise SystemExit(app.exec())
