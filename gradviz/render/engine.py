"""Find a Graphviz layout program and run it: a system `dot` when one is on PATH, else the
`graphviz-pure` binary that pip installs next to the Python interpreter.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

FORMATS = ("svg", "png", "json", "plain", "dot")
DEFAULT_TIMEOUT_S = 30.0
NOT_FOUND = "no Graphviz found: install the graphviz-pure package or Graphviz's dot"


class RenderError(Exception):
    """Drawing the graph failed; str(error) is one line, meant to be shown as it is."""


@dataclass(frozen=True)
class Engine:
    path: str
    name: str           # "Graphviz dot" or "graphviz-pure", for messages and the UI


def _script_dirs() -> list[Path]:
    """Where pip puts console scripts for this interpreter (venv bin/ or Scripts\\).

    Looked at before PATH because a GUI started from a desktop icon often runs
    without the venv's bin directory on PATH.
    """
    dirs = [Path(sys.executable).parent]  # not resolved: a venv's python is a symlink
    scripts = sysconfig.get_path("scripts")
    if scripts:
        dirs.append(Path(scripts))
    return list(dict.fromkeys(dirs))


def _in_dir(directory: Path, name: str) -> str | None:
    for candidate in (name, name + ".exe"):
        path = directory / candidate
        if path.is_file() and os.access(path, os.X_OK):
            return str(path)
    return None


def find_engine() -> Engine:
    """The layout program to use; raises RenderError if there is none."""
    dot = shutil.which("dot")
    if dot:
        return Engine(dot, "Graphviz dot")
    for directory in _script_dirs():
        found = _in_dir(directory, "graphviz-pure")
        if found:
            return Engine(found, "graphviz-pure")
    found = shutil.which("graphviz-pure")
    if found:
        return Engine(found, "graphviz-pure")
    raise RenderError(NOT_FOUND)


def _first_line(text: bytes) -> str:
    lines = [ln.strip() for ln in text.decode("utf-8", "replace").splitlines() if ln.strip()]
    return lines[0] if lines else "no message"


def layout(dot_text: str, fmt: str = "svg", *, engine: Engine | None = None,
           timeout: float = DEFAULT_TIMEOUT_S, extra_args: Sequence[str] = ()) -> bytes:
    """Run the layout program on dot_text and return its output in fmt (svg, png, json, ...)."""
    if fmt not in FORMATS:
        raise RenderError(f"unknown output format {fmt!r} (use one of {', '.join(FORMATS)})")
    engine = engine or find_engine()
    # no console window flashing up for each layout when the GUI runs on Windows
    flags = getattr(subprocess, "CREATE_NO_WINDOW", 0)
    try:
        done = subprocess.run([engine.path, f"-T{fmt}", *extra_args],
                              input=dot_text.encode("utf-8"), capture_output=True,
                              timeout=timeout, creationflags=flags)
    except subprocess.TimeoutExpired:
        raise RenderError(f"{engine.name} took longer than {timeout:g} s to lay out "
                          "the graph") from None
    except OSError as exc:
        raise RenderError(f"{engine.name} could not be started ({engine.path}): "
                          f"{exc.strerror or exc}") from None
    if done.returncode != 0:
        raise RenderError(f"{engine.name} failed (exit code {done.returncode}): "
                          f"{_first_line(done.stderr)}")
    if not done.stdout:
        raise RenderError(f"{engine.name} produced no {fmt} output")
    return done.stdout
