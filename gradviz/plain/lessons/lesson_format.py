"""The keys a lesson file may use at every level, and the one-line refusal of any other
(with a did-you-mean), so that a misspelt promise is never dropped in silence."""
from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from ..config.config import Config, shown
from ..text.spelling import did_you_mean

LESSON_KEYS = ("title", "config", "slides")
SLIDE_KEYS = ("title", "narration", "config", "panels", "layout", "pace", "play",
              "sweep_pace", "stop", "autoplay", "focus", "facts", "keep", "expect",
              "reference", "figures")
# what a config table may hold: every Config field, in the flags' spelling or with
# underscores, and the two negated flags
CONFIG_KEYS = tuple(f.name.replace("_", "-") for f in dataclasses.fields(Config)) + \
    ("no-scale", "no-zero-grad")


class LessonError(ValueError):
    """A lesson file that cannot be used; str() is one line for the user."""


def unknown(where: str, what: str, key: Any, options: Iterable[str]) -> LessonError:
    options = list(options)
    hint = did_you_mean(key, options) if isinstance(key, str) else ""
    return LessonError(f"{where}: unknown {what} {shown(key)}{hint}; "
                       f"the {what}s are {', '.join(options)}")


def refuse_unknown(where: str, table: dict, allowed: Iterable[str], what: str = "key") -> None:
    """LessonError naming the first key of table that is not allowed."""
    allowed = tuple(allowed)
    for key in table:
        if key not in allowed:
            raise unknown(where, what, key, allowed)


def checked_table(where: str, value: Any, keys: tuple[str, ...]) -> dict:
    """value as a table of exactly these keys; LessonError naming what is wrong first
    (not a table, an unknown key with a did-you-mean, a key missing)."""
    if not isinstance(value, dict):
        raise LessonError(f"{where}: give a table {{ {', '.join(f'{k} = …' for k in keys)} }}"
                          f" (got {shown(value)})")
    refuse_unknown(where, value, keys)
    missing = [k for k in keys if k not in value]
    if missing:
        raise LessonError(f"{where}: needs {', '.join(missing)} as well")
    return value


def refuse_unknown_settings(where: str, table: dict) -> None:
    """A config table's keys, dashes or underscores alike."""
    for key in table:
        if str(key).replace("_", "-") not in CONFIG_KEYS:
            hint = did_you_mean(str(key).replace("_", "-"), CONFIG_KEYS)
            raise LessonError(f"{where}: unknown setting {shown(key)}{hint} "
                              f"(gradviz run --help lists them)")


def is_number(value: Any) -> bool:
    """An int or a float, not a bool (TOML's true is not 1 here)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
