"""`gradviz bench --gui`'s window phases, each run in a fresh process
(`python -I -m gradviz.bench.qt.window_speed`): the window's process is then the app's own (no
torch in it), and the command imports nothing of the window."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from ..plain.config.config import Config

RESULT = "RESULT"      # the line gradviz.bench.qt.window_speed prints its numbers on
PROBE_MS = 1            # the window's probe timer (gradviz.bench.qt.window_speed.PROBE_MS)
PHASE_TIMEOUT_S = 600  # a phase's launch, first model, settling and measuring, at worst


SIZE_LIMITS = (320, 8192)   # a window phase's width and height: at least, at most


class PhaseError(RuntimeError):
    """A window phase that did not end, or ended without its numbers: one line."""


def window_size(text: str) -> tuple[int, int]:
    """"1024x768" as (1024, 768); ValueError, in one line, for anything else."""
    width, x, height = text.lower().partition("x")
    low, high = SIZE_LIMITS
    if not (x and width.isdigit() and height.isdigit()
            and all(low <= int(v) <= high for v in (width, height))):
        raise ValueError(f"a window size is WIDTHxHEIGHT, each {low} to {high} pixels "
                         f"(1024x768), not {text!r}")
    return int(width), int(height)


def job_arguments(config: Config, seconds: float, size: tuple[int, int], busy: bool = False,
                  pin_b: bool = False, launch: bool = False,
                  model_path: str | None = None) -> list[str]:
    """The command line of one window phase."""
    args = ["--config", json.dumps(config.to_dict()), "--seconds", str(seconds),
            "--size", f"{size[0]}x{size[1]}"]
    args += ["--busy"] * busy + ["--pin-b"] * pin_b + ["--launch"] * launch
    return args + (["--model", model_path] if model_path else [])


def phase_process(args: list[str], timeout_s: float = PHASE_TIMEOUT_S,
                  module: str = "gradviz.bench.qt.window_speed") -> subprocess.CompletedProcess:
    """Run one window phase (module's main: window_speed's, or slide_speed's) to its end
    (PhaseError if it does not end in timeout_s)."""
    env = dict(os.environ)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    try:
        return subprocess.run([sys.executable, "-I", "-m", module, *args],
                              capture_output=True, text=True, env=env, timeout=timeout_s)
    except subprocess.TimeoutExpired as exc:
        raise PhaseError(f"the window phase did not end in {timeout_s:g} s") from exc


def phase_result(out: subprocess.CompletedProcess) -> dict:
    """A finished phase's numbers (PhaseError, with its last line of errors, if none)."""
    lines = [line for line in out.stdout.splitlines() if line.startswith(RESULT + " ")]
    if not lines:
        tail = (out.stderr.strip().splitlines() or ["no output"])[-1]
        raise PhaseError(f"the window phase gave no result (exit {out.returncode}): {tail}")
    return json.loads(lines[-1][len(RESULT) + 1:])


def run_phase(args: list[str], timeout_s: float = PHASE_TIMEOUT_S) -> dict:
    """Run one window phase and read its numbers."""
    return phase_result(phase_process(args, timeout_s))
