"""`gradviz lessons`: one line per bundled lesson, the name `--lesson` takes and its title;
`gradviz lessons --check` runs every slide headless and checks its narration's promises."""
from __future__ import annotations

import argparse
import sys

from ..core.lessons import LessonError, bundled_names, find_lesson
from .options import EXIT_OK, fail

EXIT_BROKEN_PROMISE = 1


def main(args: argparse.Namespace) -> int:
    if args.check is None:
        for name in bundled_names():
            print(f"{name}  {find_lesson(name).title}")
        return EXIT_OK
    from ..core.lesson_check import check_lesson   # trains: torch only when asked
    try:
        lessons = [find_lesson(args.check)] if args.check else \
            [find_lesson(n) for n in bundled_names()]
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
