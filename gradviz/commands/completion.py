"""Tab completion of the `gradviz` command in bash and zsh (and the other shells shtab
knows): shtab writes the script from the argparse parsers themselves (every command,
option and choice, as --help lists them), so it never falls behind them.
`gradviz --print-completion bash` prints it."""
from __future__ import annotations

import argparse
from typing import Any

import shtab

from .stdout_gone import stdout_to_devnull

# the values that name a file or a folder (by the option's dest), completed as paths;
# the rest are numbers, choices (completed from argparse's choices) or words
FILES = frozenset({"config", "model", "lesson", "screenshot", "script", "check", "a", "b"})
FOLDERS = frozenset({"out", "folder", "compare"})
HELP = ("print the tab-completion script of gradviz's commands and options for this "
        "shell, and exit (docs/command-line.md says where it goes)")


def add_completion(parser: argparse.ArgumentParser) -> None:
    """--print-completion SHELL on parser, once its commands are added; their options
    that take a path marked as such for shtab."""
    for action in _actions(parser):
        kind = shtab.FILE if action.dest in FILES else \
            shtab.DIRECTORY if action.dest in FOLDERS else None
        if kind is not None and action.nargs != 0:
            marked: Any = action   # shtab reads an attribute argparse's Action lacks
            marked.complete = kind
    # SUPPRESS: no attribute left for the config to mistake for a key
    parser.add_argument("--print-completion", choices=shtab.SUPPORTED_SHELLS,
                        metavar="SHELL", action=_PrintCompletion, default=argparse.SUPPRESS,
                        help=HELP + f": {', '.join(shtab.SUPPORTED_SHELLS)}")


class _PrintCompletion(argparse.Action):
    """shtab's script for the parser it was added to, then exit 0 (as shtab's own
    action does, but a reader gone, `| head`, is no traceback)."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        try:
            print(shtab.complete(parser, str(values)), flush=True)
        except BrokenPipeError:
            stdout_to_devnull()
        parser.exit(0)


def _actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """Every action of parser and of its commands' parsers."""
    found = []
    for action in parser._actions:   # argparse's one listing of them
        found.append(action)
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                found.extend(_actions(sub))
    return found
