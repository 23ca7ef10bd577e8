"""Composition root: the `gradviz` command. No arguments opens the desktop app;
`gradviz run` trains headless; `gradviz bench` measures speed. Nothing imports this.

Everything heavy (torch, Qt) is imported inside main(), under its Ctrl+C handler, so an
interrupt at any moment of start-up ends with one line rather than a traceback.
"""
from __future__ import annotations

import signal
import sys

EXIT_INTERRUPTED = 130
_interrupted = False


def _on_interrupt(signum, frame) -> None:
    # Remembered as well as raised: a bare `except:` in some library's import code can
    # swallow the KeyboardInterrupt, and a Ctrl+C must not be lost to that.
    global _interrupted
    _interrupted = True
    raise KeyboardInterrupt


def _stop_if_interrupted() -> None:
    if _interrupted:
        raise KeyboardInterrupt


COMMANDS = ("run", "compare", "lessons", "bench")


def build_parser(argv: list[str] | None = None):
    """The whole parser; given argv that names no command (and asks for no help), one
    whose commands are bare names: their modules import torch (seconds), which the
    window's process must never do, and no word of argv could reach them anyway."""
    from . import __version__
    from .commands.options import OneLineParser, add_training_options

    parser = OneLineParser(
        prog="gradviz",
        description="See what autograd does when a network has several losses. "
                    "With no command, opens the desktop app.")
    parser.add_argument("--version", action="version", version=f"gradviz {__version__}")
    add_training_options(parser)
    parser.add_argument("--lesson", metavar="NAME",
                        help="open a lesson (gradviz lessons lists them) or a lesson file")
    parser.add_argument("--screenshot", metavar="PNG",
                        help="train --steps steps, save a screenshot of the window, exit")
    sub = parser.add_subparsers(dest="command", parser_class=OneLineParser,
                                metavar="{run,compare,lessons,bench}")
    if argv is not None and not set(argv) & {*COMMANDS, "-h", "--help"}:
        for name in COMMANDS:
            sub.add_parser(name)
        return parser
    from .commands import bench, compare, lessons, run
    run.add_parser(sub)
    compare.add_parser(sub)
    lessons.add_parser(sub)
    bench.add_parser(sub)
    return parser


def _main(argv: list[str] | None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser(argv).parse_args(argv)   # with a command, imports torch: seconds
    _stop_if_interrupted()
    if args.command is None:
        from .qt.launch import launch  # Qt is imported only when the app opens
        return launch(args)
    return args.func(args)


def main(argv: list[str] | None = None) -> int:
    global _interrupted
    _interrupted = False
    previous = signal.getsignal(signal.SIGINT)
    ours = previous is signal.default_int_handler
    if ours:
        signal.signal(signal.SIGINT, _on_interrupt)
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("gradviz: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        if ours:   # in-process callers (tests) get their own handler back
            signal.signal(signal.SIGINT, previous)


if __name__ == "__main__":
    raise SystemExit(main())
