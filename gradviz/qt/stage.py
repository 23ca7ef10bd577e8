"""The lesson stage: a slide's narration and its panels, each put where
`plain.stage.stage_layout.place` says, again on every resize and text size. The stage owns no
panel: it borrows the window's for a slide and gives every one back (`release`), so
the window puts them home in their docks when the lesson ends."""
from __future__ import annotations

import functools
import math

from PySide6.QtCore import QRect, Qt, Signal
from PySide6.QtGui import QFont, QResizeEvent
from PySide6.QtWidgets import QFrame, QLabel, QVBoxLayout, QWidget

from ..plain.stage.stage_aside import place_with_aside
from ..plain.stage.stage_layout import Placement
from .widgets.text_card import TextCard

TITLE_INSET = 6   # px: a title's text at least 12 px from the part beside it
# the line said in place of a slide's panels while it is prepared, this much larger than
# the narration's text (as large as the slide's title): read from the back of the hall
PREPARING_SIZE = 1.3


class StageSlot(QFrame):
    """One panel on the stage, under its name where the panel has no title of its own."""

    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(f"stage_{name}")
        self.title = QLabel("")
        self.title.setObjectName(f"stageTitle_{name}")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        # the title's first letter TITLE_INSET px further in: at the stage's GAP from a
        # narration column, OCR of a hall's view read "Autograd graph" as "/utograd"
        self.title.setContentsMargins(TITLE_INSET, 0, 0, 0)
        self.box = QVBoxLayout(self)
        self.box.setContentsMargins(0, 0, 0, 0)
        self.box.setSpacing(2)
        self.box.addWidget(self.title)
        self.panel: QWidget | None = None

    def hold(self, panel: QWidget, title: str | None) -> None:
        # no name above a panel's own title (the loop's "The training loop ..."): beside
        # lesson 13's cosine matrix after Ctrl+= twice at 1024x768 the two took half of
        # its height
        if getattr(panel, "own_title", False):
            title = None
        self.title.setText(title or "")
        self.title.setVisible(bool(title))
        if panel is not self.panel:
            self.box.addWidget(panel, 1)
            self.panel = panel
        panel.show()


class Stage(QWidget):
    arranged = Signal()   # the parts were placed again (a slide, a resize, a text size)

    def __init__(self, narration, parent=None):
        """narration: a widget with height_for_width(w) and set_whole(bool)."""
        super().__init__(parent)
        self.setObjectName("lessonStage")
        self.narration = narration
        narration.setParent(self)
        self.slots: dict[str, StageSlot] = {}
        self.panels: dict[str, QWidget] = {}   # every panel borrowed, home or not
        self.shown: list[str] = []
        self.layout_name = "side-by-side"
        self.zoom = 1.0
        self.placement: Placement | None = None
        self.narration_height = lambda width: 0
        self.content_height: dict = {}   # a text panel's height for a width, by name
        # over the panels, until the slide's first state is in: what is being done (the
        # panels stay shown beneath it, so they are drawn, graph laid out, when it goes)
        self.cover = QLabel(self)
        self.cover.setObjectName("stagePreparing")
        self.cover.setTextFormat(Qt.TextFormat.PlainText)
        self.cover.setWordWrap(True)
        self.cover.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.cover.setAutoFillBackground(True)
        self.cover.hide()
        # Compare's verdict in a lesson: on top of a secondary panel, else under the
        # narration (stage_aside.place_with_aside), at the narration's text size
        self.verdict: QWidget | None = None
        # a deck's slide of text, or the end, over all of it (the panels stay beneath)
        self.card = TextCard(self)

    def show_slide(self, panels: list[tuple[str, QWidget, str | None]], layout: str,
                   zoom: float, narration_height) -> None:
        """panels: (name, widget, title or None), the main one first. A panel of text
        with height_for_width(w) (What happened) is given the height its text needs."""
        self.shown = [name for name, _, _ in panels]
        self.layout_name, self.zoom, self.narration_height = layout, zoom, narration_height
        self.content_height = {name: self._slot_height(name, widget)
                               for name, widget, _ in panels
                               if hasattr(widget, "height_for_width")}
        for name, widget, title in panels:
            slot = self.slots.get(name)
            if slot is None:
                slot = self.slots[name] = StageSlot(name, self)
            widget.setMinimumSize(0, 0)   # the stage keeps each one's least size itself
            if hasattr(widget, "set_controls_shown"):   # a slide names no log scale
                widget.set_controls_shown(False)
            slot.hold(widget, title)
            self.panels[name] = widget
        for name, slot in self.slots.items():
            slot.setVisible(name in self.shown)
        self.arrange()

    def _slot_height(self, name: str, widget):
        def height(width: int, scale: float = 1.0) -> int:   # its own and its title's
            slot = self.slots[name]
            title = slot.title.sizeHint().height() + slot.box.spacing() \
                if slot.title.isVisibleTo(slot) else 0
            return title + widget.height_for_width(width, scale)
        return height

    def set_zoom(self, zoom: float) -> None:
        # (the window leaves the borrowed panels' least sizes at 0: screen_fit skips them)
        self.zoom = zoom
        self.arrange()

    def arrange(self) -> None:
        if self.verdict is not None:   # at the narration's size, which the text size sets
            self.verdict.setFont(self._reading_font())
        text_panels = [self.panels[n] for n in self.content_height]
        floors = [panel.least_text_scale(self.zoom) for panel in text_panels
                  if hasattr(panel, "least_text_scale")]
        # each text panel's height measured once a width and font scale per arrange:
        # place() weighs a few hundred arrangements that share widths, and a measure is
        # a text layout (~2 ms; 8 error slides took 14 s at 1024x768)
        content = {name: functools.cache(height)
                   for name, height in self.content_height.items()}
        # placed again once the narration's font is set as placed: its height at that
        # font is then measured, not taken from the text size's (and, as the panels',
        # once a width per placing: each is a layout of a copy of its text, and place()
        # asked for the same few widths some thousands of times a lesson)
        for _ in range(2):
            placement = place_with_aside(self.width(), self.height(), self.shown,
                                         self.zoom, self.layout_name,
                                         functools.cache(self._narration_at_text_size()),
                                         content,
                                         max(floors) if floors else None,
                                         self._verdict_height(), self.devicePixelRatioF())
            if placement.narration_scale == getattr(self.narration, "text_scale", 1.0):
                break
            if hasattr(self.narration, "set_text_scale"):
                self.narration.set_text_scale(placement.narration_scale)
        self.placement = placement
        r = placement.narration
        self.narration.set_whole(placement.narration_whole)
        self.narration.setGeometry(r.x, r.y, r.w, r.h)
        if self.verdict is not None and placement.aside is not None:
            a = placement.aside
            self.verdict.setGeometry(a.x, a.y, a.w, a.h)
        for name in self.shown:   # one may give its room to the verdict meanwhile
            self.slots[name].setVisible(name in placement.panels)
        for name in placement.panels:
            r = placement.panels[name]
            panel = self.panels[name]
            if name in self.content_height and hasattr(panel, "set_text_scale"):
                # an explanation that cannot be whole at the larger text size, smaller
                panel.set_text_scale(placement.text_scale)
            elif name in placement.font_scale and hasattr(panel, "set_text_scale"):
                # the loop in a panel smaller than the text size wants, its font a step
                # smaller (down to the normal size), as the graph's boxes are fitted
                panel.set_text_scale(placement.font_scale[name])
            self.slots[name].setGeometry(r.x, r.y, r.w, r.h)
        self._place_cover()
        self.arranged.emit()

    def _verdict_height(self):
        """The verdict's height for a width (None: no verdict shown)."""
        verdict = self.verdict
        return None if verdict is None else verdict.heightForWidth

    def set_verdict(self, verdict: QWidget | None) -> None:
        """Compare's verdict on the slide, at the narration's text size (None: none)."""
        if self.verdict is verdict:
            return
        if self.verdict is not None:
            self.verdict.hide()
        self.verdict = verdict
        if verdict is not None:
            verdict.setParent(self)
            verdict.show()
        self.arrange()

    def _reading_font(self, scale: float = 1.0) -> QFont:
        """The narration's font (its text's), scaled."""
        font = QFont(getattr(self.narration, "text", self.narration).font())
        if font.pointSizeF() > 0:
            font.setPointSizeF(font.pointSizeF() * scale)
        return font

    def show_card(self, title: str, text: str) -> None:
        self.card.show_card(title, text)
        self.card.setGeometry(self.rect())
        self.card.show()
        self.card.raise_()

    def hide_card(self) -> None:
        self.card.hide()

    def set_preparing(self, line: str | None) -> None:
        """line: what the slide waits for, said over its panels; None: the slide shown."""
        self.cover.setText(line or "")
        self.cover.setVisible(line is not None)
        self._place_cover()

    def _place_cover(self) -> None:
        """Over every panel of the slide (the stage below the narration where none is
        placed yet), its text as large as the slide's title."""
        if self.cover.isHidden():
            return
        rects = [QRect(r.x, r.y, r.w, r.h) for r in self.placement.panels.values()] \
            if self.placement is not None else []
        area = QRect()
        for rect in rects:
            area = area.united(rect)
        if area.isEmpty():
            area = self.rect()
        self.cover.setGeometry(area)
        self.cover.raise_()   # above a slot made for this slide, too
        if self.card.isVisible():   # the end of a deck said over a slide still prepared
            self.card.raise_()
        self.cover.setFont(self._reading_font(PREPARING_SIZE))

    def _narration_at_text_size(self):
        """The narration's height for a width at the text size, its font as it is now
        (set smaller by the last placement) taken back: the same lines in a room as much
        wider, as much higher."""
        scale = getattr(self.narration, "text_scale", 1.0)
        needed = self.narration_height
        if scale >= 1:
            return needed
        return lambda width: math.ceil(needed(int(width * scale)) / scale)

    def resizeEvent(self, event: QResizeEvent) -> None:   # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self.card.setGeometry(self.rect())
        self.arrange()

    def release(self) -> dict[str, QWidget]:
        """Every panel borrowed, by name, taken off the stage (for the window to put
        home); the stage is empty after."""
        panels, self.panels, self.shown = self.panels, {}, []
        self.content_height = {}   # a resize before the next slide arranges no old panel
        for widget in panels.values():
            if hasattr(widget, "set_text_scale"):   # home in its dock at the text size
                widget.set_text_scale(1.0)
            if hasattr(widget, "set_controls_shown"):
                widget.set_controls_shown(True)
            widget.setParent(None)
        for slot in self.slots.values():
            slot.panel = None
            slot.hide()
        self.placement = None
        return panels
