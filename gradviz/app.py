"""Composition root: the `gradviz` command. No arguments opens the desktop app;
`gradviz run` trains headless; `gradviz bench` measures speed. Nothing imports this."""
from __future__ import annotations

import sys

from . import __version__
from .commands import bench, run
from .commands.options import OneLineParser, add_training_options


def build_parser() -> OneLineParser:
    parser = OneLineParser(
        prog="gradviz",
        description="See what autograd does when a network has several losses. "
                    "With no command, opens the desktop app.")
    parser.add_argument("--version", action="version", version=f"gradviz {__version__}")
    add_training_options(parser)
    parser.add_argument("--screenshot", metavar="PNG",
                        help="train --steps steps, save a screenshot of the window, exit")
    sub = parser.add_subparsers(dest="command", parser_class=OneLineParser,
                                metavar="{run,bench}")
    run.add_parser(sub)
    bench.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command is None:
        from .qt.launch import launch  # Qt is imported only when the app opens
        return launch(args)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("gradviz: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
