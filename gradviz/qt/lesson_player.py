"""Which lesson and slide is on: moving between slides (PageDown / PageUp, what presenter
clickers send), on to the next lesson after the last slide, and leaving the lesson.

It knows nothing of the window: it says which slide to show, and the window applies its
config, panels, pace and narration.
"""
from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from ..plain.lessons import Lesson, LessonError, bundled_names, find_lesson


class LessonPlayer(QObject):
    slideChanged = Signal(object, int)   # (Lesson, slide index)
    left = Signal()                      # the lesson was left (Esc); settings stay

    def __init__(self, parent=None):
        super().__init__(parent)
        self.lesson: Lesson | None = None
        self.index = 0

    @property
    def slide(self):
        return None if self.lesson is None else self.lesson.slides[self.index]

    def open(self, lesson: Lesson, index: int = 0) -> None:
        self.lesson, self.index = lesson, max(0, min(index, len(lesson.slides) - 1))
        self.slideChanged.emit(self.lesson, self.index)

    def open_named(self, name: str) -> None:
        """Open a bundled lesson by name, or a lesson file; LessonError if there is none."""
        self.open(find_lesson(name))

    def next(self) -> None:
        """The next slide; after the last one, the next bundled lesson (if there is one)."""
        if self.lesson is None:
            return
        if self.index + 1 < len(self.lesson.slides):
            self.open(self.lesson, self.index + 1)
            return
        names = bundled_names()
        if self.lesson.name in names and names.index(self.lesson.name) + 1 < len(names):
            self.open(find_lesson(names[names.index(self.lesson.name) + 1]))

    def previous(self) -> None:
        if self.lesson is not None and self.index > 0:
            self.open(self.lesson, self.index - 1)

    def first(self) -> None:
        if self.lesson is not None:
            self.open(self.lesson, 0)

    def leave(self) -> None:
        if self.lesson is not None:
            self.lesson = None
            self.left.emit()


__all__ = ["LessonPlayer", "LessonError"]
