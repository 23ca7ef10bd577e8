"""`gradviz lessons`: one line per bundled lesson, the name `--lesson` takes and its title;
`gradviz lessons --check` runs every slide headless and checks its narration's promises."""
from __future__ import annotations

import argparse
import sys

from ..exit_codes import EXIT_OK, EXIT_USAGE
from ..plain.lessons import LessonError, bundled_names, find_lesson
from .options import fail

EXIT_BROKEN_PROMISE = 1
EXIT_BAD_LESSON = EXIT_USAGE


def _lessons(name: str) -> list:
    """The lessons to list or check, each read whole; a bad one ends it, exit 2."""
    try:
        return [find_lesson(name)] if name else [find_lesson(n) for n in bundled_names()]
    except LessonError as exc:
        fail(f"gradviz: {exc}")


def main(args: argparse.Namespace) -> int:
    if args.check is None:
        for lesson in _lessons(""):
            print(f"{lesson.name}  {lesson.title}")
        return EXIT_OK
    lessons = _lessons(args.check)
    from ..core.lesson_check import check_devices, check_lesson  # torch only when asked
    try:
        for lesson in lessons:
            check_devices(lesson)
    except LessonError as exc:
        fail(f"gradviz: {exc}")
    broken = 0
    for lesson in lessons:
        problems = check_lesson(lesson)
        broken += len(problems)
        print(f"{lesson.name}: {'ok' if not problems else f'{len(problems)} broken'}")
        for problem in problems:
            print(f"  {problem}", file=sys.stderr)
    return EXIT_OK if not broken else EXIT_BROKEN_PROMISE
