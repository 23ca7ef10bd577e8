"""Composition root: the `gradviz` command. No command opens the desktop app;
`gradviz run`, `compare`, `lessons`, `bench` work headless. Nothing imports this.

Everything heavy (torch, Qt) is imported inside main(), under its Ctrl+C handler, so an
interrupt at any moment of start-up ends with one line rather than a traceback.
"""
from __future__ import annotations

import argparse
import os
import signal
import sys

from .exit_codes import EXIT_INTERRUPTED, EXIT_LEFT_RUNNING, EXIT_OK

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


def build_parser():
    """The whole command line. Building it imports no torch (each command's module is
    imported only when that command runs), so --help answers at once."""
    from . import __version__
    from .bench.parser import add_bench
    from .commands.completion import add_completion
    from .commands.options import OneLineParser, add_training_options
    from .commands.parsers import add_commands

    parser = OneLineParser(
        prog="gradviz",
        description="See what autograd does when a network has several losses. "
                    "With no command, opens the desktop app with these settings; "
                    "FILE, a lesson or settings file (.toml) or a model file (.py), "
                    "opens as --lesson, --config or --model would; a folder DIR "
                    "opens as `gradviz open DIR` does; "
                    "`gradviz COMMAND --help` tells each command's options.")
    parser.add_argument("--version", action="version", version=f"gradviz {__version__}")
    add_training_options(parser)
    parser.add_argument("--lesson", metavar="NAME|FILE[:N]",
                        help="open a lesson (gradviz lessons lists them) or a lesson file, "
                             "at its slide N with :N")
    parser.add_argument("--deck", metavar="NAME|FILE",
                        help="play a deck: slides picked across the lessons, with title and "
                             "recap slides (a bundled deck's name, or a deck file)")
    parser.add_argument("--screenshot", metavar="PNG",
                        help="train --steps steps, save a 1920x1080 picture of the window "
                             "as PNG and exit (works offscreen)")
    parser.add_argument("--install-desktop", action="store_true", default=argparse.SUPPRESS,
                        help="add gradviz to your desktop's application menu, with its "
                             "icon, for your user only, and exit")
    sub = parser.add_subparsers(dest="command", parser_class=OneLineParser,
                                metavar="{run,compare,lessons,bench,report,open}",
                                help="a headless command (gradviz COMMAND --help says more); "
                                     "with none, the app opens")
    add_commands(sub, add_bench)
    add_completion(parser)
    return parser


def _main(argv: list[str] | None) -> int:
    from .commands.bare_file import bare_file_argv
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    args = parser.parse_args(bare_file_argv(parser, argv))
    if getattr(args, "install_desktop", False):
        from .commands.desktop_entry import install_desktop
        return install_desktop()
    _stop_if_interrupted()
    if args.command is None:
        from .qt.launch import launch  # Qt is imported only when the app opens
        return launch(args)
    if args.command == "open":
        from .qt.run_launch import launch_run  # a recorded run's window
        return launch_run(args.folder, args.compare)
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


def _stray_threads() -> list:
    """Threads still running that would keep the process from ending: a model file's
    own (gradviz's commands start none that outlive them)."""
    import threading
    return [t for t in threading.enumerate()
            if t is not threading.main_thread() and not t.daemon and t.is_alive()]


def _counted(n: int, what: str, plural: str = "s") -> str:
    return f"{n} {what}{plural if n > 1 else ''}"


def entry() -> None:
    """The `gradviz` command (and `python -m gradviz`): main(), then an end that leaves
    nothing behind. Processes it started and their own (a model file's `sleep`, its
    multiprocessing workers; the engine's process group is ended by its window) are
    killed; a thread a model file left running would keep Python waiting forever. Either
    is one line naming the file, and EXIT_LEFT_RUNNING in place of success."""
    from .engine.child import descendants, end_processes
    code = main()
    ranks = sys.modules.get("gradviz.core.ddp_ranks")   # imported only where torch is
    if ranks is not None:
        ranks.close_rank_group()   # DDP ranks a command trained with (--ddp-ranks) are ours
    processes = descendants(os.getpid())
    end_processes(processes)
    strays = _stray_threads()
    if not strays and not processes:
        raise SystemExit(code)
    files = getattr(sys.modules.get("gradviz.core.model_file"), "LOADED", [])
    who = f"model file {files[-1]}" if files else "something this command ran"
    left = [_counted(len(strays), "thread")] if strays else []
    left += [_counted(len(processes), "process", "es")] if processes else []
    names = f" ({', '.join(sorted(t.name for t in strays)[:3])})" if strays else ""
    print(f"gradviz: {who} left {' and '.join(left)} running{names}; "
          "they end with gradviz", file=sys.stderr)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(EXIT_LEFT_RUNNING if code == EXIT_OK else code)


if __name__ == "__main__":
    entry()
