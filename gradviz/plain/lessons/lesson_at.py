"""A lesson named with the slide to open it at (`--lesson backward-twice:2`), and a bundled
lesson named by its number (a deck's `lesson = 2`): read as typed, refused in one line."""
from __future__ import annotations

import re
from typing import Any

from ..config.config import shown
from .lesson_format import LessonError, is_count
from .lessons import Lesson, bundled_names, find_lesson

# NAME:N, N a slide from 1. Only digits after the last colon: a Windows path's drive
# ("C:\talk.toml") or a colon inside a file name is no slide number
_AT = re.compile(r"^(?P<name>.+):(?P<slide>\d{1,4})$")


def split_slide(text: str) -> tuple[str, int | None]:
    """(the lesson's name or file, the slide from 1) of NAME:N; (text, None) without one."""
    at = _AT.match(text)
    return (text, None) if at is None else (at["name"], int(at["slide"]))


def slide_index(lesson: Lesson, slide: Any, where: str) -> int:
    """A slide number from 1 as an index into the lesson; LessonError where it has none."""
    count = len(lesson.slides)
    if not is_count(slide) or not 1 <= slide <= count:
        raise LessonError(f"{where}: lesson {lesson.name} has {count} slide"
                          f"{'s' if count != 1 else ''}: give slide 1 to {count} "
                          f"(got {shown(slide)})")
    return slide - 1


def find_lesson_at(text: str) -> tuple[Lesson, int]:
    """The lesson NAME:N names (a bundled name or a lesson file) and its slide's index
    (0 without :N); LessonError (one line) where either is not there."""
    name, slide = split_slide(text)
    lesson = find_lesson(name)
    return lesson, 0 if slide is None else slide_index(lesson, slide, f"--lesson {text}")


def bundled_lesson(ref: Any) -> Lesson:
    """A bundled lesson by its name (with or without its number) or its number (2 or
    "02"); never a path (a deck is a stranger's file: it names only what ships)."""
    if is_count(ref) or (isinstance(ref, str) and ref.isdigit() and len(ref) <= 3):
        number = int(ref)
        match = [n for n in bundled_names() if n.split("-", 1)[0].isdigit()
                 and int(n.split("-", 1)[0]) == number]
        if not match:
            raise LessonError(f"no lesson number {number} (gradviz lessons lists them)")
        return find_lesson(match[0])
    if not isinstance(ref, str) or not ref.strip():
        raise LessonError(f"lesson must be a lesson's name or number, such as "
                          f"\"add-or-separate\" or 1 (got {shown(ref)})")
    if ref.endswith(".toml") or "/" in ref or "\\" in ref:
        raise LessonError(f"lesson names a file ({shown(ref)}); a deck names the lessons "
                          "that ship with gradviz, by name or number")
    return find_lesson(ref)
