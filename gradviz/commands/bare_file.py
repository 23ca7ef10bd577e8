"""`gradviz FILE`: a file named without a flag opens as what it is, told by its name and
content (plain.files.file_kinds), as if its flag had been typed: a lesson as --lesson, a deck
as --deck, settings as --config, a model file as --model. Naming a model file on the
command line is the same consent as --model: the user typed its name (a drop or Open
Recent asks instead).
A folder named so opens as `gradviz open DIR` (a run folder)."""
from __future__ import annotations

import argparse
from pathlib import Path

from ..plain.files.file_kinds import FileKindError, file_kind
from .options import closest_flag, fail

FLAGS = {"lesson": "--lesson", "deck": "--deck", "config": "--config", "model": "--model"}
FILE_SUFFIXES = (".py", ".toml")


def _options(parser: argparse.ArgumentParser) -> tuple[set[str], set[str], set[str]]:
    """(options that take a value, options that take none, the command names)."""
    # argparse has no public listing of its actions; _actions is the one it keeps
    actions = parser._actions
    valued = {s for a in actions for s in a.option_strings if a.nargs != 0}
    bare = {s for a in actions for s in a.option_strings if a.nargs == 0}
    commands = {str(c) for a in actions if not a.option_strings and isinstance(a.choices, dict)
                for c in a.choices}
    return valued, bare, commands


def _takes_value(token: str, valued: set[str], bare: set[str]) -> bool:
    """Whether option `token` eats the next word. An unknown --option: one line naming
    the closest known one, exit 2 (else its value would be taken for a command or file)."""
    name = token.split("=", 1)[0]
    if not name.startswith("--"):
        return name in valued   # -h; argparse checks short options itself
    known = valued | bare
    # itself, or the options it abbreviates (argparse takes a unique prefix)
    named = {name} if name in known else {s for s in known if s.startswith(name)}
    if not named:
        fail(f"gradviz: unknown option {name}{closest_flag(name, known)} (see gradviz --help)")
    return "=" not in token and named <= valued


def _looks_like_file(token: str) -> bool:
    try:
        return token.lower().endswith(FILE_SUFFIXES) or Path(token).is_file()
    except (OSError, ValueError):   # a name too long, or with a NUL in it: no file
        return False


def _is_folder(token: str) -> bool:
    try:
        return Path(token).is_dir()
    except (OSError, ValueError):
        return False


def bare_file_argv(parser: argparse.ArgumentParser, argv: list[str]) -> list[str]:
    """argv with its first word that is neither an option, an option's value nor a
    command replaced by the flag for that file's kind; argv itself when there is none.
    A file of no kind of gradviz's, or given beside its own flag: one line, exit 2."""
    valued, bare, commands = _options(parser)
    i = 0
    while i < len(argv):
        token = argv[i]
        if token == "--" or not token.startswith("-") or token == "-":
            break
        i += 2 if _takes_value(token, valued, bare) else 1
    # after `--` every word is argparse's to read as it reads it
    if i >= len(argv) or argv[i] in commands or argv[i] == "--":
        return argv
    token = argv[i]
    if _is_folder(token):   # a run folder: `gradviz open DIR`
        return argv[:i] + ["open", token] + argv[i + 1:]
    if not _looks_like_file(token):
        return argv   # argparse refuses it as a command
    try:
        flag = FLAGS[file_kind(token)]
    except FileKindError as exc:
        fail(f"gradviz: {exc}")
    if any(a == flag or a.startswith(flag + "=") for a in argv):
        fail(f"gradviz: {token} and {flag} both name a file to open; give one of them")
    return argv[:i] + [flag, token] + argv[i + 1:]
