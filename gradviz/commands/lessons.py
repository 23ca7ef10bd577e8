"""`gradviz lessons`: one line per bundled lesson, the name `--lesson` takes and its title;
`gradviz lessons --check` runs every slide headless and checks its narration's promises,
and reads every deck whole (each lesson and slide it names, its text)."""
from __future__ import annotations

import argparse
import sys

from ..exit_codes import EXIT_OK, EXIT_USAGE
from ..plain.lessons.decks import bundled_deck_names, find_deck, names_a_deck
from ..plain.lessons.lessons import LessonError, bundled_names, find_lesson
from .options import fail

EXIT_BROKEN_PROMISE = 1
EXIT_BAD_LESSON = EXIT_USAGE


def _lessons(name: str) -> list:
    """The lessons to list or check, each read whole; a bad one ends it, exit 2."""
    try:
        return [find_lesson(name)] if name else [find_lesson(n) for n in bundled_names()]
    except LessonError as exc:
        fail(f"gradviz: {exc}")


def _progress(line: str) -> None:
    """Progress on stderr as it happens (stdout keeps the verdicts, one a lesson)."""
    print(line, file=sys.stderr, flush=True)


def _played(count: int):
    def played(i: int, slide, run, seconds: float) -> None:
        steps = len(run.records)
        end = f", stopped on {run.error.type}" if run.error is not None else ""
        _progress(f"  slide {i + 1}/{count} played: {steps} step{'s' if steps != 1 else ''} "
                  f"in {seconds:.1f} s{end}")
    return played


def _checked(i: int, promise: dict, broken: str | None) -> None:
    what = ", ".join(f"{k} = {v!r}" for k, v in promise.items())
    _progress(f"  slide {i + 1}: {what}: {'holds' if broken is None else 'broken'}")


def _check_decks(names: list[str]) -> None:
    """Each deck read whole: every lesson and slide it names exists, its text can be
    shown (what its lessons' slides promise is their lessons' check); a bad one ends it
    in one line naming the file, the slide and the key, exit 2."""
    try:
        decks = [find_deck(name) for name in names]
    except LessonError as exc:
        fail(f"gradviz: {exc}")
    for deck in decks:
        print(f"{deck.name}: ok (a deck of {len(deck.slides)} slides from "
              f"{len(deck.lessons)} lessons: {', '.join(deck.lessons) or 'none'})")


def main(args: argparse.Namespace) -> int:
    if args.check is None:
        for lesson in _lessons(""):
            print(f"{lesson.name}  {lesson.title}")
        return EXIT_OK
    if args.check and names_a_deck(args.check):
        _check_decks([args.check])
        return EXIT_OK
    lessons = _lessons(args.check)
    from ..core.lesson_check import (  # torch only when asked
        check_devices,
        check_lesson,
        check_models,
    )
    try:
        for lesson in lessons:
            check_devices(lesson)
            check_models(lesson)
    except LessonError as exc:
        fail(f"gradviz: {exc}")
    broken = 0
    for lesson in lessons:
        if not args.quiet:
            _progress(f"{lesson.name}: playing {len(lesson.slides)} slides")
        problems = check_lesson(lesson, None if args.quiet else _played(len(lesson.slides)),
                                _checked if args.verbose else None)
        broken += len(problems)
        print(f"{lesson.name}: {'ok' if not problems else f'{len(problems)} broken'}")
        for problem in problems:
            print(f"  {problem}", file=sys.stderr)
    if not args.check:   # every bundled lesson, then every bundled deck
        _check_decks(bundled_deck_names())
    return EXIT_OK if not broken else EXIT_BROKEN_PROMISE
