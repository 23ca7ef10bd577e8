"""What happened: the error PyTorch raised (or the divergence), word for word, where it
happened, why, and what to change. Empty and calm while all is well."""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QFontInfo
from PySide6.QtWidgets import QLabel, QListWidget, QScrollArea, QVBoxLayout, QWidget

from ...plain.records.events import Event
from ..own_layout import own_layout
from ..theme import READING
from .event_text import ZWSP, dock_html, stage_html

# the explanation's font, of the text size's: a little larger than the window's text (in
# a dock; on a lesson's stage, the narration's READING)
EMPHASIS = 1.1
CALM = "Nothing went wrong. Errors that PyTorch raises will be shown and explained here."


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
        # on a lesson's stage: the slide's error alone (no log), at the narration's size
        self.on_stage = False
        self._error_colour = "#C00000"
        self._theme_pt = self._font_pt / EMPHASIS   # the window's text size
        self._show_log()

    def show_event(self, event: Event) -> None:
        self.event = event
        self._write(event)
        self.log.insertItem(0, event.one_line())
        self.scroll_area.verticalScrollBar().setValue(0)   # a new error: its title in view
        self._show_log()
        self.changed.emit()

    def _write(self, event: Event) -> None:
        self.event = event
        self.current.setText(self._html(self.text_scale))

    def _html(self, scale: float) -> str:
        """The explanation at a font scale (of the text size's): its headline's size is
        written into it (a percentage is of the application's font in Qt's rich text,
        not the label's: on the stage the headline was drawn as small as the body)."""
        if self.event is None:
            return CALM
        font = QFont(self.current.font())
        font.setPointSizeF(self._font_pt * scale)
        if self.on_stage:
            return stage_html(self.event, self._error_colour, font.pointSizeF(),
                              QFontInfo(font).pixelSize())
        return dock_html(self.event, self._error_colour, font.pointSizeF())

    def _show_log(self) -> None:
        """The log only once it holds more than the error shown above it (it repeated
        that one error in a box, in the room the explanation needed)."""
        earlier = self.log.count() - (1 if self.event is not None else 0)
        self.log_title.setVisible(earlier > 0 and not self.on_stage)
        self.log.setVisible(earlier > 0 and not self.on_stage)

    def set_on_stage(self, on: bool) -> None:
        """On a lesson's stage: the slide's error alone (the errors of slides before are
        not this slide's point: their log took a quarter of the panel and scrolled the
        explanation), in fewer lines (stage_html), at the narration's text size: at the
        window's, its body was 12 px high at 1024x768 where the narration's is 14-19."""
        self.on_stage = on
        self._heights.clear()
        self._font_pt = self._theme_pt * (READING if on else EMPHASIS)
        self._set_font(self.text_scale)
        if self.event is not None:
            self._write(self.event)
        self._show_log()
        self.changed.emit()

    def reading_area(self) -> tuple[QWidget, bool]:
        """Where the explanation is read (the part of it in view), and whether it is
        whole there (nothing scrolled out of view)."""
        viewport = self.scroll_area.viewport()
        return viewport, self.current.height() <= viewport.height() + 1

    def text(self) -> str:
        """What the panel says, as read (without the break points put in for wrapping)."""
        return self.current.text().replace(ZWSP, "")

    def clear_current(self) -> None:
        self.event = None
        self.current.setText(CALM)
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
        text = self._html(scale)
        key = (text, font.key(), inner)
        if key not in self._heights:
            if len(self._heights) > 4096:   # a long session's old texts and widths
                self._heights.clear()
            if self._measure.font() != font:
                self._measure.setFont(font)
            if self._measure.text() != text:
                self._measure.setText(text)
            self._heights[key] = self._measure.heightForWidth(inner)
        return self._heights[key]

    def apply_theme(self, theme) -> None:
        self._heights.clear()   # a theme's style may lay the text out otherwise
        self._error_colour = "#FF6B6B" if theme.name == "dark" else "#C00000"
        self._theme_pt = theme.font_pt
        self._font_pt = theme.font_pt * (READING if self.on_stage else EMPHASIS)
        self._set_font(self.text_scale)
        if self.event is not None:   # the colour, and the stage's spacing for the size
            self._write(self.event)
        self.changed.emit()

    def set_text_scale(self, scale: float) -> None:
        """The explanation's font, of the text size's (the lesson stage sets it smaller,
        never below the normal size, where the larger one cannot be whole): its height
        for a width stays the full size's, so this changes nothing the stage measures."""
        if scale != self.text_scale:
            self.text_scale = scale
            self._set_font(scale)

    def least_text_scale(self, zoom: float) -> float:
        """The smallest set_text_scale the stage may choose at this text size: the
        narration's at the normal size (its 14 px capitals at 1024x768: after Ctrl+=
        twice there the narration takes half the height, and an explanation larger than
        that cannot be whole beside the graph; at the window's own text its body was
        10 px high). In a dock, the window's own text at the normal size."""
        return 1 / ((1 if self.on_stage else EMPHASIS) * max(zoom, 1e-6))

    def _set_font(self, scale: float) -> None:
        font = self.current.font()
        font.setPointSizeF(self._font_pt * scale)
        self.current.setFont(font)
        if self.event is not None:   # its headline's size is written into its text
            self.current.setText(self._html(scale))


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
