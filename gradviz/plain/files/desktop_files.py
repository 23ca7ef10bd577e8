"""The desktop entry and the icon that ship with gradviz (resources/desktop), found
through importlib.resources so that a wheel and a clone find them alike."""
from __future__ import annotations

from importlib import resources
from pathlib import Path

ENTRY_NAME = "gradviz.desktop"
ICON_NAME = "gradviz.svg"


def desktop_file(name: str) -> Path:
    """The path of a shipped file: ENTRY_NAME or ICON_NAME. (package-data is installed
    as real files, also by an editable install, so a path is there to give.)"""
    return Path(str(resources.files("gradviz.resources") / "desktop" / name))
