"""The config presets that ship with gradviz (resources/presets), found by name through
importlib.resources so that `--config NAME` works from a wheel as from a clone.
"""
from __future__ import annotations

import shlex
from importlib import resources
from pathlib import Path
from typing import Any

from .config import SHOWN_PATH_CHARS, ConfigError, shown
from .config_toml import parse_toml, read_config_text

# keys a lesson file has and a config never does: the sign that --lesson was meant
LESSON_KEYS = ("slides", "title", "narration")


def _folder():
    return resources.files("gradviz.resources") / "presets"


def preset_names() -> list[str]:
    """The bundled presets' names (their file names without .toml), sorted."""
    return sorted(p.name[:-5] for p in _folder().iterdir() if p.name.endswith(".toml"))


def _is_bare_word(name: str) -> bool:
    """No folder in it, and no file of that name here."""
    if "/" in name or "\\" in name:
        return False
    try:
        return not Path(name).exists()
    except (OSError, ValueError):   # a name too long, or with a NUL, is no file either
        return True


def _preset_name(name: str) -> str | None:
    """The bundled preset `name` means (with or without .toml), or None. A path, or a
    file that exists here, is never a preset: the user's own file wins."""
    if not _is_bare_word(name):
        return None
    stem = name[:-5] if name.endswith(".toml") else name
    return stem if stem in preset_names() else None


def _lesson_hint(name: str) -> str:
    as_typed = shlex.quote(name) if len(name) <= SHOWN_PATH_CHARS and name.isprintable() \
        else "FILE"
    return (f"{shown(name, SHOWN_PATH_CHARS)} looks like a lesson file: open it with "
            f"gradviz --lesson {as_typed}")


def load_config_file(name: str) -> dict[str, Any]:
    """The keys of a config file, or of the bundled preset of that name. Errors are one
    line: an unknown bare name lists the presets, a lesson file points to --lesson."""
    preset = _preset_name(name)
    if preset is not None:
        text = (_folder() / f"{preset}.toml").read_text(encoding="utf-8-sig")
        return parse_toml(text, f"preset {preset}")
    if _is_bare_word(name):
        raise ConfigError(f"config file not found: {shown(name, SHOWN_PATH_CHARS)}, nor a "
                          f"preset of that name (presets: {', '.join(preset_names())})")
    data = parse_toml(read_config_text(name), f"config file {shown(name, SHOWN_PATH_CHARS)}")
    if any(key in data for key in LESSON_KEYS):
        raise ConfigError(_lesson_hint(name))
    return data
