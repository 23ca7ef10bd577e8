"""`gradviz lessons`: one line per bundled lesson, the name `--lesson` takes and its title;
`gradviz lessons --check` runs every slide headless and checks its narration's promises."""
from __future__ import annotations

import argparse
import sys

from ..core.lessons import MAX_ERROR_STEPS, LessonError, bundled_names, find_lesson
from .options import EXIT_OK, EXIT_USAGE, fail

EXIT_BROKEN_PROMISE = 1
EXIT_BAD_LESSON = EXIT_USAGE

CHECK_HELP = f"""\
--check reads the whole lesson first (every key at every level, each value's type,
metric names, slide references) and runs nothing unless it is all usable.
Exit status: 0 every promise holds; 1 a promise broke; 2 the lesson is bad (one line
naming the file, the slide and the key), or no such lesson.
What reading shows is "bad" (2): an unknown or misspelt key, a device this machine has
not, a metric the slide's model has not (cosine.9.9) or never measures (z_grad_norm
without retain-grad, anything but the losses with probes = "none"), a slide number out
of range, a slide compared with itself, same_gradients_as a slide with another model.
What only a run shows breaks the promise (1): a metric not measured at some step, a
ratio or "about" against a slide whose value is 0, a promise about a slide that stopped
before its first step finished, and stop = "error" on a slide that has not raised after
its config's steps (at most {MAX_ERROR_STEPS})."""


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("lessons", help="list the lessons (--check: test them)",
                              description="List the bundled lessons: the name --lesson "
                                          "takes, then the title.",
                              epilog=CHECK_HELP,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--check", nargs="?", const="", metavar="NAME_OR_FILE",
                   help="run every slide (of one lesson, or of all) headless and check "
                        "what its narration promises")
    p.set_defaults(func=main)


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
    from ..core.lesson_check import check_devices, check_lesson   # torch only when asked
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
