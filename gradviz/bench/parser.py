"""`gradviz bench`'s flags and help, built without importing torch (the app builds
every command's parser at start); its module, gradviz.bench.command, is imported only
when the bench runs."""
from __future__ import annotations

import argparse

from ..commands.options import RUN_DEFAULTS, add_training_options
from ..commands.parsers import add_verbosity, later
from .window_phase import window_size


def add_bench(subparsers) -> None:
    p = subparsers.add_parser(
        "bench", help="steps/s of bare PyTorch vs the engine at each probe level",
        description="Steps per second of a bare PyTorch loop and of the engine with "
                    "probes none, default and everything, on the default model "
                    "(or the one the options describe; --steps defaults to 500 here).")
    add_training_options(p, RUN_DEFAULTS)
    p.add_argument("--repeats", type=int, default=3, help="runs of each; the median counts")
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                   help="time each loop by the wall clock, or by this process's CPU time "
                        "(steadier on a machine other programs share; the comparing lines "
                        "keep the wall clock) (default: wall)")
    add_verbosity(p, quiet="print only the table's rows, not the lines that describe the "
                           "run and its columns nor the app's launch times",
                  verbose="the same as the default (every loop's line is printed as soon "
                          "as it is measured), but with --slides also a line per slide")
    p.add_argument("--gui", action="store_true",
                   help="also train in the app's window (offscreen) and time its response, "
                        "quiet at 1920x1080 and 1024x768, with another process keeping a "
                        "core busy, and with B pinned")
    p.add_argument("--gui-size", type=_window_size, metavar="WxH", default=None,
                   help="as --gui, but only its quiet window phase, at this size (e.g. "
                        "1024x768) (default: with --gui, every phase at its own size)")
    p.add_argument("--watch", action="store_true",
                   help="instead: a plain loop's steps/s under gradviz.watch at its default "
                        "sampling, as a share of the same loop bare, on the default MLP "
                        "(and under a hand-written recorder of the same numbers, its floor), "
                        "the bundled two-head CNN (which runs a fifth of --steps) and a "
                        "two-head ResNet-18 (a tenth)")
    p.add_argument("--slides", action="store_true",
                   help="instead: PageDown through the bundled lessons in the app's window "
                        "(offscreen, at --gui-size, default 1024x768) and print how soon "
                        "each slide was drawn after the key, and moving, and the slowest "
                        "slide (-v: each slide)")
    p.add_argument("--viewer", action="store_true",
                   help="instead: open a folder of 8 made-up runs of 100,000 steps each in "
                        "the recorded-run window (offscreen, at --gui-size, default "
                        "1920x1080), all drawn over each other, and print how late it "
                        "answered while its smoothing, x axis, ticks and tabs were moved")
    p.add_argument("--soak", type=float, metavar="SECONDS", default=None,
                   help="instead: Play for SECONDS in the app's window (offscreen, "
                        "1920x1080, every panel live) while another process keeps a core "
                        "busy, and print the longest time the step count on screen did "
                        "not advance, with the window's lateness (default: none, the table)")
    p.set_defaults(func=later("bench", "gradviz.bench.command"))


def _window_size(text: str) -> tuple[int, int]:
    """bench --gui-size: argparse's one-line error for a size it cannot read."""
    try:
        return window_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
