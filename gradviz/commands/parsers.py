"""Every command's flags and help text, built without importing torch: `gradviz --help`
and `gradviz run --help` answer at once, and a command's module (which loads torch, for
seconds) is imported only when that command runs.
"""
from __future__ import annotations

import argparse
import importlib

from ..plain.text.torch_missing import torch_missing, torch_missing_words
from .options import RUN_DEFAULTS, add_training_options, fail

# core.compare.DEFAULT_RTOL, which this module cannot import without torch; a test keeps
# the two equal
DEFAULT_RTOL = 1e-5


def later(command: str, module_name: str | None = None):
    """The command's main(args), its module (gradviz.commands.COMMAND, or module_name)
    imported only when it is called (torch with it: where torch is not installed, one
    line says how to install it)."""
    def main(args: argparse.Namespace) -> int:
        try:
            module = importlib.import_module(module_name or f"gradviz.commands.{command}")
        except ModuleNotFoundError as exc:
            if not torch_missing(exc):
                raise
            fail(f"gradviz: {torch_missing_words()}")
        return module.main(args)
    main.__name__ = f"{command}_main"
    return main


def add_run(subparsers) -> None:
    p = subparsers.add_parser(
        "run", help="train headless and write a report",
        description="Train headless and write a report.",
        epilog="Exit status: 0 done (also when stdout closes early, as in `gradviz run | "
               "head`: the files are still written), 2 bad input, out of memory or a file "
               "that could not be written (one line says which), 3 the run hit the autograd "
               "error it demonstrates, or the model file's code raised at a step (the report "
               "is still written), 4 done, but the model file left threads or processes running. "
               "--out replaces the "
               "last run's files there all at once, or leaves them as they were.")
    add_training_options(p, RUN_DEFAULTS)
    p.add_argument("--out", metavar="DIR",
                   help="write report.json, metrics.csv, graph.dot, graph.svg, graph.png "
                        "here, in place of the last run's, together (default: no files, "
                        "only the summary); a folder holding files gradviz did not write "
                        "is refused")
    add_force(p)
    add_verbosity(p, quiet="print only the summary, not a line every tenth of the run",
                  verbose="print a line for every step")
    # SUPPRESS: an absent --script leaves no attribute for the config to mistake for a key
    p.add_argument("--script", metavar="FILE", default=argparse.SUPPRESS,
                   help="also write these settings as a plain PyTorch program (python FILE "
                        "prints each step's losses, total and, with --grad-norms, gradient "
                        "norms), before training; in the --out folder, with the report")
    p.set_defaults(func=later("run"))


def add_verbosity(p, quiet: str, verbose: str) -> None:
    """-q/--quiet and -v/--verbose, as every command takes them: less, or more, than
    the results and the progress it prints by default."""
    group = p.add_mutually_exclusive_group()
    group.add_argument("-q", "--quiet", action="store_true", help=quiet)
    group.add_argument("-v", "--verbose", action="store_true", help=verbose)


def add_force(p) -> None:
    p.add_argument("--force", action="store_true",
                   help="write into the --out folder even where it holds files gradviz did "
                        "not write (gradviz's own names there are replaced)")


def add_compare(subparsers) -> None:
    p = subparsers.add_parser(
        "compare", help="train two configs side by side: the same gradients?",
        description="Train A and B in lockstep (same seed, data and initial weights) and "
                    "compare their gradients before every optimizer step. Flags apply "
                    "to both; each file may override them. Exit 0 same, 1 different, "
                    "2 bad input, 3 an autograd error.")
    p.add_argument("a", metavar="A.toml", help="the first configuration (a TOML file)")
    p.add_argument("b", metavar="B.toml", help="the second configuration (a TOML file)")
    add_training_options(p)
    p.add_argument("--rtol", type=float, default=DEFAULT_RTOL,
                   help="largest relative difference still called the same, relative to "
                        "the largest gradient in each group")
    p.add_argument("--out", metavar="DIR",
                   help="write compare.json and compare.csv here (default: print only); "
                        "a folder holding files gradviz did not write is refused")
    add_force(p)
    add_verbosity(p, quiet="print nothing but errors: the exit status says same or "
                           "different (as cmp -s)",
                  verbose="also print each step's largest relative difference per group")
    p.set_defaults(func=later("compare"))


CHECK_HELP = """\
--check reads the whole lesson first (every key at every level, each value's type,
metric names, slide references) and runs nothing unless it is all usable.
Exit status: 0 every promise holds; 1 a promise broke; 2 the lesson is bad (one line
naming the file, the slide and the key), or no such lesson.
What reading shows is "bad" (2): an unknown or misspelt key, a device this machine has
not, a metric the slide's model has not (cosine.9.9) or never measures (z_grad_norm
without retain-grad, anything but the losses with probes = "none"), a slide number out
of range, a slide compared with itself, same_gradients_as (or different_gradients_from)
a slide with another model, a reference line on a chart the slide does not show or
taken from a slide not before it.
What only a run shows breaks the promise (1): a metric not measured at some step, a
ratio or "about" against a slide whose value is 0, a promise about a slide that stopped
before its first step finished, a reference line whose slide has no value at its step,
and stop = "error" on a slide that has not raised after its config's steps (at most
{max_error_steps}).
A deck (a bundled deck's name, or a file whose slides are [[deck]] tables) is read whole
and runs nothing: 0 when each lesson and slide it names exists and its text can be
shown, else 2 (one line naming the file, the deck's slide and the key). With no
NAME_OR_FILE, every bundled deck is read after the lessons."""


def add_lessons(subparsers) -> None:
    from ..plain.lessons.lessons import MAX_ERROR_STEPS  # plain data: no torch
    p = subparsers.add_parser("lessons", help="list the lessons (--check: test them)",
                              description="List the bundled lessons: the name --lesson "
                                          "takes, then the title.",
                              epilog=CHECK_HELP.format(max_error_steps=MAX_ERROR_STEPS),
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--check", nargs="?", const="", metavar="NAME_OR_FILE",
                   help="run every slide (of one lesson, or of all) headless and check "
                        "what its narration promises; a deck (or all, after the "
                        "lessons) is read whole: each lesson and slide it names exists, "
                        "its text can be shown")
    add_verbosity(p, quiet="--check: print only each lesson's verdict and what broke, not "
                           "its progress (on stderr: each lesson as it starts, each slide "
                           "as it has played)",
                  verbose="--check: also print each promise of each slide as it is checked")
    p.set_defaults(func=later("lessons"))


def add_report(subparsers) -> None:
    p = subparsers.add_parser(
        "report", help="a run folder (gradviz.watch's or gradviz run --out's) in a few lines",
        description="Print a run folder's steps, last losses, the parameters without a "
                    "gradient, the last push at the features and, across ranks, whether "
                    "their gradient norms agree at every step and their gradient "
                    "fingerprints at the sampled steps. Reads the folder as it is now (a "
                    "watched script may still be writing it).")
    p.add_argument("folder", metavar="DIR", help="the folder gradviz.watch(out=DIR) or "
                                                  "gradviz run --out DIR wrote")
    p.set_defaults(func=later("report"))


def add_open(subparsers) -> None:
    p = subparsers.add_parser(
        "open", help="show a run folder in the window, live while its script writes it",
        description="Open a run folder (gradviz.watch's, one stream or one per rank, or "
                    "gradviz run --out's) in the window: losses, gradient norms, the push "
                    "at the features, cosines, memory and the graph, as far as the run "
                    "recorded them. The window follows the folder while the script writes "
                    "it; a folder of runs lists them. It only reads: nothing trains.")
    p.add_argument("folder", metavar="DIR", help="the folder gradviz.watch(out=DIR) or "
                                                  "gradviz run --out DIR wrote, or a "
                                                  "folder of such folders")
    p.add_argument("--compare", metavar="OTHER", default=None,
                   help="another run folder to compare DIR with: its numbers drawn "
                        "dashed, and where the gradient norms, the push at the features "
                        "and the losses first differ (a folder of runs also offers its "
                        "runs to compare in the window; default: none)")
    # the app opens it (gradviz.app): a command module importing the window would make
    # the window's package and the commands' import each other


def add_commands(subparsers, add_bench) -> None:
    """Every command, in the order --help lists them. add_bench: the benchmarks' own
    (gradviz.bench.parser), handed in by the app: no command imports the benchmarks."""
    for add in (add_run, add_compare, add_lessons, add_bench, add_report, add_open):
        add(subparsers)
