"""`gradviz --install-desktop`: the shipped desktop entry and icon copied where the
desktop looks for a user's own applications (XDG_DATA_HOME, else ~/.local/share), its
Exec line naming this Python, so that the entry starts this gradviz even from a venv
that is not on PATH. The entry claims no file types: a model file is code, and opening
one from a file manager must stay the user's explicit choice (Open With)."""
from __future__ import annotations

import os
import sys
from pathlib import Path

from ..exit_codes import EXIT_OK
from ..plain.files.atomic_write import write_text
from ..plain.files.desktop_files import ENTRY_NAME, ICON_NAME, desktop_file
from .options import fail

ICON_FOLDER = ("icons", "hicolor", "scalable", "apps")


def data_home(environ: dict[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    home = env.get("XDG_DATA_HOME", "")
    # the spec: a relative XDG_DATA_HOME is invalid and is ignored
    return Path(home) if os.path.isabs(home) else Path.home() / ".local" / "share"


def exec_word(word: str) -> str:
    """word quoted as a desktop entry's Exec key reads it: in double quotes, with ", `,
    $ and \\ escaped by a backslash, then every backslash doubled (the string escape)."""
    quoted = "".join("\\" + c if c in '"`$\\' else c for c in word)
    return f'"{quoted}"'.replace("\\", "\\\\")


def entry_text(python: str) -> str:
    """The shipped entry with Exec naming `python -m gradviz`."""
    lines = desktop_file(ENTRY_NAME).read_text(encoding="utf-8").splitlines()
    command = f"Exec={exec_word(python)} -m gradviz %f"
    return "\n".join(command if line.startswith("Exec=") else line for line in lines) + "\n"


def install_desktop() -> int:
    """Write the entry and the icon; one line says where, or why not (exit 2)."""
    base = data_home()
    entry = base / "applications" / ENTRY_NAME
    icon = base.joinpath(*ICON_FOLDER, ICON_NAME)
    try:
        for path in (entry, icon):
            path.parent.mkdir(parents=True, exist_ok=True)
        write_text(icon, desktop_file(ICON_NAME).read_text(encoding="utf-8"))
        write_text(entry, entry_text(sys.executable))
    except OSError as exc:
        fail(f"gradviz: could not install the desktop entry: {exc.strerror or exc} "
             f"({exc.filename or base})")
    print(f"gradviz: added to your application menu: {entry} (icon {icon}); "
          f"remove both files to take it out again")
    return EXIT_OK
