"""Find a Graphviz layout program and run it: a system `dot` when one is on PATH, else the
`graphviz-pure` binary that pip installs next to the Python interpreter
(GRADVIZ_GRAPHVIZ=dot or =graphviz-pure takes that one only).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

FORMATS = ("svg", "png", "json", "json0", "plain", "dot")
DEFAULT_TIMEOUT_S = 30.0
POLL_S = 0.02             # how often a cancellable layout looks at its cancel event
NOT_FOUND = "no Graphviz found: install the graphviz-pure package or Graphviz's dot"
# the environment variable that picks one of the two programs (their layouts differ: each
# font's metrics are the program's own), as the tests of the graph are run both ways
CHOICE_VARIABLE = "GRADVIZ_GRAPHVIZ"
CHOICES = ("dot", "graphviz-pure")


class RenderError(Exception):
    """Drawing the graph failed; str(error) is one line, meant to be shown as it is."""


class Cancelled(Exception):
    """The caller set its cancel event; the layout program was killed."""


@dataclass(frozen=True)
class GraphvizProgram:
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


def find_graphviz() -> GraphvizProgram:
    """The layout program to use; raises RenderError if there is none, or none of the one
    GRADVIZ_GRAPHVIZ names."""
    choice = os.environ.get(CHOICE_VARIABLE, "")
    if choice and choice not in CHOICES:
        raise RenderError(f"{CHOICE_VARIABLE}={choice!r}: use one of {', '.join(CHOICES)}")
    if choice != "graphviz-pure":
        dot = shutil.which("dot")
        if dot:
            return GraphvizProgram(dot, "Graphviz dot")
        if choice == "dot":
            raise RenderError(f"{CHOICE_VARIABLE}=dot, but no Graphviz dot is on PATH")
    for directory in _script_dirs():
        found = _in_dir(directory, "graphviz-pure")
        if found:
            return GraphvizProgram(found, "graphviz-pure")
    found = shutil.which("graphviz-pure")
    if found:
        return GraphvizProgram(found, "graphviz-pure")
    raise RenderError(NOT_FOUND)


def _first_line(text: bytes) -> str:
    lines = [ln.strip() for ln in text.decode("utf-8", "replace").splitlines() if ln.strip()]
    return lines[0] if lines else "no message"


def layout(dot_text: str, fmt: str = "svg", *, program: GraphvizProgram | None = None,
           timeout: float = DEFAULT_TIMEOUT_S, extra_args: Sequence[str] = (),
           cancel: threading.Event | None = None) -> bytes:
    """Run the layout program on dot_text and return its output in fmt (svg, png, json, ...).

    When cancel is set while it runs, the program is killed (and reaped) and Cancelled is
    raised. Input and output go through temporary files, not pipes: nothing can fill up
    and block while we poll, and a big layout's output needs no reader thread.
    """
    if fmt not in FORMATS:
        raise RenderError(f"unknown output format {fmt!r} (use one of {', '.join(FORMATS)})")
    program = program or find_graphviz()
    _check(cancel)
    # no console window flashing up for each layout when the GUI runs on Windows
    flags = getattr(subprocess, "CREATE_NO_WINDOW", 0)
    with tempfile.TemporaryFile() as src, tempfile.TemporaryFile() as out, \
            tempfile.TemporaryFile() as err:
        src.write(dot_text.encode("utf-8"))
        src.seek(0)
        try:
            proc = subprocess.Popen([program.path, f"-T{fmt}", *extra_args], stdin=src,
                                    stdout=out, stderr=err, creationflags=flags)
        except OSError as exc:
            raise RenderError(f"{program.name} could not be started ({program.path}): "
                              f"{exc.strerror or exc}") from None
        _wait(proc, program, timeout, cancel)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if proc.returncode != 0:
        raise RenderError(f"{program.name} failed (exit code {proc.returncode}): "
                          f"{_first_line(stderr)}")
    if not stdout:
        raise RenderError(f"{program.name} produced no {fmt} output")
    return stdout


def _check(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise Cancelled("the layout was cancelled")


def _wait(proc: subprocess.Popen, program: GraphvizProgram, timeout: float,
          cancel: threading.Event | None) -> None:
    """Wait for proc to end; kill and reap it on cancel (Cancelled) or timeout."""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        try:
            proc.wait(timeout=max(0.0, min(left, POLL_S if cancel is not None else left)))
            return
        except subprocess.TimeoutExpired:
            pass
        if (cancel is not None and cancel.is_set()) or time.monotonic() >= deadline:
            proc.kill()
            proc.wait()     # reaped: no zombie left behind
            _check(cancel)
            raise RenderError(f"{program.name} took longer than {timeout:g} s to lay out "
                              "the graph")
