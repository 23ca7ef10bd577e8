"""What happened: the error PyTorch raised (or the divergence), word for word, where it
happened, why, and what to change. Empty and calm while all is well."""
from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel, QListWidget, QScrollArea, QVBoxLayout, QWidget

from ...plain.events import Event
from ..own_layout import own_layout

# the explanation's font, of the text size's: a little larger than the window's text
EMPHASIS = 1.1
CALM = "Nothing went wrong. Errors that PyTorch raises will be shown and explained here."
# where a long run of code may wrap: after these, a zero-width space (Qt's rich text has
# no <wbr>); "torch.autograd.set_detect_anomaly(True," could not break, and a narrow
# dock cut every line of the explanation at its width
_BREAK_AFTER = "._(=/,:["
_ZWSP = "\u200b"


def _breakable(text: str) -> str:
    return "".join(c + _ZWSP if c in _BREAK_AFTER else c for c in text)


class EventsView(QWidget):
    changed = Signal()   # its text changed: its height for a width too (the stage asks)
    # the error shown (None: all is well). Its name hides QWidget.event(), which Qt
    # looks up on the object for an override (a test widget that set `event` before
    # its first event crashed); to be renamed with its readers (the screenshot mode)
    event: Event | None   # type: ignore[assignment]

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("eventsView")
        self.current = QLabel(CALM)
        self.current.setObjectName("eventText")
        self.current.setTextFormat(Qt.TextFormat.RichText)   # our markup; the event's text escaped
        self.current.setWordWrap(True)
        self.current.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.log = QListWidget()
        self.log.setObjectName("eventLog")
        self.log.setWordWrap(True)
        self.current.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        # the explanation at the full text size, never shown: what height_for_width
        # measures while the one shown is set smaller (set_text_scale) to be whole
        self._measure = QLabel()
        self._measure.setTextFormat(Qt.TextFormat.RichText)
        self._measure.setWordWrap(True)
        self._font_pt = self.current.font().pointSizeF()
        # the explanation's height by (its text, font, width): the lesson stage asks for
        # the same few widths and scales thousands of times a slide, and each measure
        # lays the rich text out again (a second of an error slide's layout)
        self._heights: dict[tuple[str, str, int], int] = {}
        self.text_scale = 1.0
        # scrolls: in a narrow dock the explanation runs longer than the dock, and its
        # last lines (Why, What to do) were cut off with no way to reach them
        self.scroll_area = QScrollArea()
        self.scroll_area.setObjectName("eventScroll")
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll_area.setFrameShape(QScrollArea.Shape.NoFrame)
        self.scroll_area.setWidget(self.current)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.scroll_area, 3)
        self.log_title = QLabel("Earlier in this session:")
        layout.addWidget(self.log_title)
        layout.addWidget(self.log, 1)
        self.event = None
        self.log_allowed = True   # False on a lesson's stage: the slide's error alone
        self._error_colour = "#C00000"
        self._show_log()

    def show_event(self, event: Event) -> None:
        self.event = event
        self._write(event)
        self.log.insertItem(0, event.one_line())
        self.scroll_area.verticalScrollBar().setValue(0)   # a new error: its title in view
        self._show_log()
        self.changed.emit()

    def _write(self, event: Event) -> None:
        e = {k: _breakable(html.escape(str(v))) for k, v in event.to_dict().items()}
        engine = event.phase == "engine"   # the engine's process itself stopped
        says = "gradviz says" if engine else f"{e['source']} says"
        # "forward — forward" said the same thing twice
        where = e["phase"] if e["call"] == e["phase"] else f"{e['phase']} — {e['call']}"
        tail = ("Everything shown so far is kept." if engine else
                "Training is paused; change a setting, reset, or press play to try again.")
        # on a lesson's stage the slide says what comes next: its lines went to What to do
        tail_html = f"<p><i>{tail}</i></p>" if self.log_allowed else ""
        self.current.setText(
            f"<p style='color:{self._error_colour}; font-size:130%'><b>{e['title']}</b></p>"
            # a model file's error: its own traceback lines below the message, one a line
            f"<p><b>{says}</b> ({e['type']}):<br><code>{e['message'].replace(chr(10), '<br>')}"
            "</code></p>"
            f"<p><b>Where:</b> step {e['step']}, {where}</p>"
            f"<p><b>Why:</b> {e['explanation']}</p>"
            f"<p><b>What to do:</b> {e['hint']}</p>"
            f"{tail_html}")
        self._measure.setText(self.current.text())

    def _show_log(self) -> None:
        """The log only once it holds more than the error shown above it (it repeated
        that one error in a box, in the room the explanation needed)."""
        earlier = self.log.count() - (1 if self.event is not None else 0)
        self.log_title.setVisible(earlier > 0 and self.log_allowed)
        self.log.setVisible(earlier > 0 and self.log_allowed)

    def allow_log(self, allowed: bool) -> None:
        """On a lesson's stage, the errors of slides before are not this slide's point:
        the log of them took a quarter of the panel and scrolled the explanation."""
        self.log_allowed = allowed
        if self.event is not None:   # with or without its closing line
            self._write(self.event)
        self._show_log()
        self.changed.emit()

    def text(self) -> str:
        """What the panel says, as read (without the break points put in for wrapping)."""
        return self.current.text().replace(_ZWSP, "")

    def clear_current(self) -> None:
        self.event = None
        self.current.setText(CALM)
        self._measure.setText(CALM)
        self._show_log()
        self.changed.emit()

    def height_for_width(self, width: int, scale: float = 1.0) -> int:
        """The height that shows the whole explanation (and the log, where shown) at
        this width, no scrolling, with its font at scale (of the text size's; whatever
        set_text_scale set): the lesson stage sizes the panel by it. Measured, not
        scaled: a monospace font's widths round to whole pixels."""
        margins = own_layout(self).contentsMargins()
        # less the scroll bar's width: shown while the text is laid out narrower, it
        # took the width the last line needed
        inner = max(1, width - margins.left() - margins.right()
                    - self.scroll_area.verticalScrollBar().sizeHint().width())
        height = self._text_height(inner, scale) + margins.top() + margins.bottom()
        if self.log.isVisibleTo(self):
            height += self.log_title.sizeHint().height() + 3 * self.log.sizeHintForRow(0) \
                + 2 * own_layout(self).spacing()
        return height

    def _text_height(self, inner: int, scale: float) -> int:
        """The explanation's height at inner width and scale, measured once."""
        font = QFont(self._measure.font())
        font.setPointSizeF(self._font_pt * scale)
        key = (self._measure.text(), font.key(), inner)
        if key not in self._heights:
            if len(self._heights) > 4096:   # a long session's old texts and widths
                self._heights.clear()
            if self._measure.font() != font:
                self._measure.setFont(font)
            self._heights[key] = self._measure.heightForWidth(inner)
        return self._heights[key]

    def apply_theme(self, theme) -> None:
        self._heights.clear()   # a theme's style may lay the text out otherwise
        self._error_colour = "#FF6B6B" if theme.name == "dark" else "#C00000"
        self._font_pt = theme.font_pt * EMPHASIS
        self._set_font(self.text_scale)
        self.changed.emit()

    def set_text_scale(self, scale: float) -> None:
        """The explanation's font, of the text size's (the lesson stage sets it smaller,
        never below the normal size, where the larger one cannot be whole): its height
        for a width stays the full size's, so this changes nothing the stage measures."""
        if scale != self.text_scale:
            self.text_scale = scale
            self._set_font(scale)

    @staticmethod
    def least_text_scale(zoom: float) -> float:
        """The smallest set_text_scale the stage may choose at this text size: the
        window's own text at the normal size (after Ctrl+= twice at 1024x768 the
        narration takes half the height, and an error's explanation larger than that
        could not be whole beside the graph)."""
        return 1 / (EMPHASIS * max(zoom, 1e-6))

    def _set_font(self, scale: float) -> None:
        font = self.current.font()
        font.setPointSizeF(self._font_pt * scale)
        self.current.setFont(font)


if __name__ == "__main__":  # PyTorch's real error for separate + retain never, alone
    import sys

    from PySide6.QtWidgets import QApplication

    from .demo import recorded_event

    app = QApplication(sys.argv)
    view = EventsView()
    view.show_event(recorded_event())   # recorded from a real session: no torch here
    view.resize(900, 500)
    view.show()
    raise SystemExit(app.exec())
