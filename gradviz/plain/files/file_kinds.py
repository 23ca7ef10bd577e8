"""Which of gradviz's kinds of file a path is (a lesson, a deck, a config, a model file),
told by its name and content: what a bare `gradviz FILE`, a drop on the window and Open
Recent open. Only tells; opening (and asking before a model file runs) is the caller's."""
from __future__ import annotations

from pathlib import Path
from typing import Literal

from ..config.config import SHOWN_PATH_CHARS, ConfigError, shown
from ..config.config_toml import parse_toml, read_config_text
from ..config.presets import LESSON_KEYS

Kind = Literal["lesson", "deck", "config", "model"]
KINDS_WORDS = "a lesson or settings file (.toml) or a model file (.py)"


class FileKindError(ValueError):
    """A path gradviz opens no file of; str() is one line naming it."""


def file_kind(path: str | Path) -> Kind:
    """A .py file is a model file (code: only its name is looked at, it is not read);
    a .toml file is a deck when its slides are under [[deck]], a lesson when it has a
    lesson's keys, else settings. Anything else,
    or a .toml file that is not TOML, raises FileKindError."""
    p = Path(path)
    named = shown(str(p), SHOWN_PATH_CHARS)
    if not p.is_file():
        raise FileKindError(f"{named} is not a file" if p.exists() else f"no such file: {named}")
    suffix = p.suffix.lower()
    if suffix == ".py":
        return "model"
    if suffix != ".toml":
        raise FileKindError(f"{named} is not {KINDS_WORDS}")
    try:
        data = parse_toml(read_config_text(p), named)
    except ConfigError as exc:
        raise FileKindError(str(exc)) from exc
    if "deck" in data:   # (a deck has a title too, as a lesson has)
        return "deck"
    return "lesson" if any(key in data for key in LESSON_KEYS) else "config"
