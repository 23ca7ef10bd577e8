"""Decks: a talk's slides picked across the lessons, plus slides of large text (a title, a
recap), played in the window with a lesson's keys. A TOML file:

    title = "Several losses, one backward"
    [[deck]]
    title = "Several losses, one network"      # a slide of large text: no engine
    text = "What autograd does with **three** losses."
    [[deck]]
    lesson = "add-or-separate"                  # a bundled lesson's slide, as it plays
    slide = 2

A deck file is a stranger's file: read field by field as it is decoded, and a bad one is
refused in one line naming the file, the deck's slide and the key (a LessonError). It
names only the lessons that ship with gradviz (by name or number), never a path.
"""
from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from ..config.config import SHOWN_PATH_CHARS, ConfigError, shown
from ..config.config_toml import parse_toml
from .lesson_at import bundled_lesson, slide_index
from .lesson_format import LessonError, refuse_unknown
from .lessons import Lesson, read_lesson_text, title_text
from .narration_limits import narration_problem

DECK_KEYS = ("title", "deck")
LESSON_SLIDE_KEYS = ("lesson", "slide")
TEXT_SLIDE_KEYS = ("title", "text")
# a talk of an hour at three minutes a slide, twice over
MAX_DECK_SLIDES = 40
MAX_TITLE_CHARS = 200    # a heading on one or two lines of large text


@dataclass(frozen=True)
class TextSlide:
    """A slide of large text and no engine: a talk's title, a recap."""
    title: str
    text: str = ""       # Markdown, shown as a narration is (safe, nothing loaded)


@dataclass(frozen=True)
class LessonSlide:
    """A bundled lesson's slide, played as the lesson plays it."""
    lesson: Lesson
    index: int           # from 0


DeckSlide = TextSlide | LessonSlide


@dataclass(frozen=True)
class Deck:
    name: str            # what `--deck` takes: the file's stem
    title: str
    slides: tuple[DeckSlide, ...]
    source: str = ""     # what messages call it: "deck file 'talk.toml'"

    @property
    def lessons(self) -> tuple[str, ...]:
        """The lessons its slides come from, each once, in the order first played."""
        return tuple(dict.fromkeys(s.lesson.name for s in self.slides
                                   if isinstance(s, LessonSlide)))


def _title(where: str, data: dict, key: str = "title") -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise LessonError(f"{where}: {key} must be some text (got {shown(value)})")
    if len(value) > MAX_TITLE_CHARS or "\n" in value.strip():
        raise LessonError(f"{where}: {key} must be one line of at most {MAX_TITLE_CHARS} "
                          f"characters (got {len(value)} characters)")
    return value.strip()


def _text_slide(where: str, data: dict) -> TextSlide:
    refuse_unknown(where, data, TEXT_SLIDE_KEYS)
    text = data.get("text", "")
    if not isinstance(text, str):
        raise LessonError(f"{where}: text must be some text (got {shown(text)})")
    problem = narration_problem(text)   # the window would refuse to show it
    if problem:
        raise LessonError(f"{where}: the text cannot be shown: {problem}")
    return TextSlide(_title(where, data), text.strip())


def _lesson_slide(where: str, data: dict, lessons: dict[object, Lesson]) -> LessonSlide:
    refuse_unknown(where, data, LESSON_SLIDE_KEYS)
    if "slide" not in data:
        raise LessonError(f"{where}: needs slide as well (the lesson's slide, from 1)")
    ref = data["lesson"]
    key = ref if isinstance(ref, (str, int)) else id(ref)
    try:
        if key not in lessons:   # each lesson read once (a deck names one many times)
            lessons[key] = bundled_lesson(ref)
        lesson = lessons[key]
        return LessonSlide(lesson, slide_index(lesson, data["slide"], where))
    except LessonError as exc:
        message = str(exc)
        raise LessonError(message if message.startswith(where) else f"{where}: {message}") \
            from None


def _slide(where: str, data: Any, lessons: dict[object, Lesson]) -> DeckSlide:
    if not isinstance(data, dict):
        raise LessonError(f"{where} must be a table (got {shown(data)})")
    if "lesson" in data and ("title" in data or "text" in data):
        raise LessonError(f"{where}: give lesson and slide (a lesson's slide) or title and "
                          "text (a slide of text), not both")
    if "lesson" in data:
        return _lesson_slide(where, data, lessons)
    if "title" not in data and "slide" in data:
        raise LessonError(f"{where}: slide needs lesson as well (which lesson's slide)")
    return _text_slide(where, data)


def parse_deck(name: str, text: str, source: str | None = None) -> Deck:
    """A deck from its TOML text, every slide checked (each lesson and slide it names
    exists, each text can be shown) before any plays; LessonError (one line) if not."""
    where = source or f"deck {name}"
    try:
        data = parse_toml(text, where)
    except ConfigError as exc:
        raise LessonError(str(exc)) from exc
    if "slides" in data:   # a lesson's habit
        raise LessonError(f"{where}: a deck's slides are [[deck]] tables ([[slides]] are "
                          "a lesson's)")
    refuse_unknown(where, data, DECK_KEYS)
    slides = data.get("deck")
    if not isinstance(slides, list) or not 1 <= len(slides) <= MAX_DECK_SLIDES:
        raise LessonError(f"{where}: give 1 to {MAX_DECK_SLIDES} [[deck]] slides "
                          f"(got {shown(slides)})")
    title = _title(where, data)
    lessons: dict[object, Lesson] = {}
    return Deck(name, title, tuple(_slide(f"{where}, slide {i + 1}", s, lessons)
                                   for i, s in enumerate(slides)), where)


def is_deck(data: dict) -> bool:
    """A TOML file's table is a deck's (its slides under [[deck]], a lesson's under
    [[slides]])."""
    return "deck" in data


def names_a_deck(name: str) -> bool:
    """Whether a NAME_OR_FILE names a deck (a bundled one, or a TOML file whose table is
    a deck's) rather than a lesson; a file that cannot be read is left to the lesson's
    reading, which says why in one line."""
    if not (name.endswith(".toml") or "/" in name or "\\" in name):
        return name in bundled_deck_names()
    try:
        return is_deck(parse_toml(read_lesson_text(Path(name)), "deck"))
    except (LessonError, ConfigError):
        return False


def load_deck(path: str | Path) -> Deck:
    path = Path(path)
    label = f"deck file {shown(str(path), SHOWN_PATH_CHARS)}"
    try:
        text = read_lesson_text(path)   # the same limits: a regular file, UTF-8, small
    except LessonError as exc:
        raise LessonError(str(exc).replace("lesson file", "deck file", 1)) from None
    return parse_deck(path.stem, text, label)


def _folder():
    return resources.files("gradviz.resources") / "decks"


def bundled_deck_names() -> list[str]:
    """The decks that ship with gradviz, by name."""
    folder = _folder()
    if not folder.is_dir():
        return []
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".toml"))


def find_deck(name: str) -> Deck:
    """A bundled deck by name, or a deck file's path; LessonError if there is none."""
    if name.endswith(".toml") or "/" in name or "\\" in name:
        return load_deck(name)
    if name not in bundled_deck_names():
        raise LessonError(f"no deck named {shown(name)} (decks: "
                          f"{', '.join(bundled_deck_names()) or 'none'})")
    text = (_folder() / f"{name}.toml").read_text(encoding="utf-8-sig")
    return parse_deck(name, text)


def deck_slide_title(deck: Deck, position: int) -> str:
    """The window's title on a deck's slide: the deck, where in it, and the slide (a
    lesson's slide by its lesson, its number there and its heading)."""
    slide = deck.slides[position]
    where = f"{position + 1}/{len(deck.slides)}"
    if isinstance(slide, TextSlide):
        return f"gradviz — {title_text(deck.title)} — {where}: {title_text(slide.title)}"
    lesson = slide.lesson
    return (f"gradviz — {where} — {title_text(lesson.title)} — slide {slide.index + 1}/"
            f"{len(lesson.slides)}: {title_text(lesson.slides[slide.index].title)}")
