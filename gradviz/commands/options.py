"""The training options shared by `gradviz run` and the app, and merging them with a
TOML file (flags win). Bad input becomes one line on stderr and exit status 2.
"""
from __future__ import annotations

import argparse
import sys
from typing import Any, NoReturn

from ..core.config import (ACCUMULATE_MODES, DETACH_MODES, MODELS, OPTIMIZERS, PROBE_LEVELS,
                           RETAIN_MODES, STRATEGIES, TRUNCATE_MODES, Config, ConfigError,
                           from_mapping, load_toml)

EXIT_OK, EXIT_USAGE, EXIT_AUTOGRAD_ERROR = 0, 2, 3
MAX_MESSAGE = 200   # characters of a usage error


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (no usage dump) and exit status 2."""

    def error(self, message: str) -> NoReturn:
        # argparse quotes the bad value whole: a megabyte argument must not fill the screen
        message = " ".join(message.split())
        if len(message) > MAX_MESSAGE:
            message = message[:MAX_MESSAGE - 3] + "..."
        fail(f"{self.prog}: {message} (see {self.prog} --help)")


def fail(message: str) -> NoReturn:
    print(message, file=sys.stderr)
    raise SystemExit(EXIT_USAGE)


def add_training_options(p: argparse.ArgumentParser) -> None:
    """Every config key as a flag; defaults are SUPPRESS so only given flags override."""
    S = argparse.SUPPRESS
    p.add_argument("--config", metavar="FILE", help="TOML file with any of these keys")
    p.add_argument("--device", default=S, help="auto, cpu, cuda, cuda:N or mps")
    p.add_argument("--heads", type=int, default=S, help="number of task heads (1-8)")
    p.add_argument("--trunk-width", type=int, default=S)
    p.add_argument("--trunk-depth", type=int, default=S)
    p.add_argument("--strategy", choices=STRATEGIES, default=S)
    p.add_argument("--retain-graph", choices=RETAIN_MODES, default=S)
    p.add_argument("--loss-weights", default=S, metavar="W0,W1,...")
    p.add_argument("--detach", type=int, action="append", default=S, metavar="K",
                   help="head K reads a detached trunk output (repeatable)")
    p.add_argument("--detach-mode", choices=DETACH_MODES, default=S)
    p.add_argument("--accumulate", type=int, default=S, metavar="N")
    p.add_argument("--no-scale", dest="scale", action="store_false", default=S,
                   help="do not scale accumulated losses by 1/N")
    p.add_argument("--no-zero-grad", dest="zero_grad", action="store_false", default=S)
    p.add_argument("--keep-graphs", action="store_true", default=S,
                   help="hold every step's loss tensor alive (the classic leak)")
    p.add_argument("--accumulate-mode", choices=ACCUMULATE_MODES, default=S,
                   help="backward once per micro-batch, or sum the micro-batch losses "
                        "and call backward once (N graphs alive together)")
    p.add_argument("--model", choices=MODELS, default=S,
                   help="mlp, or rnn: a recurrent trunk whose hidden state is carried "
                        "from step to step")
    p.add_argument("--truncate", choices=TRUNCATE_MODES, default=S,
                   help="rnn: detach the carried state at every step (truncated "
                        "backprop through time), or never")
    p.add_argument("--misplace-head", type=int, default=S, metavar="K",
                   help="put head K's parameters on another device than the trunk")
    p.add_argument("--edit-detached", type=int, default=S, metavar="K",
                   help="change head K's z.detach() in place (needs --detach K)")
    p.add_argument("--retain-grad", action="store_true", default=S,
                   help="z.retain_grad(): keep the junction's .grad and report its norm")
    p.add_argument("--optimizer", choices=OPTIMIZERS, default=S)
    p.add_argument("--lr", type=float, default=S)
    p.add_argument("--batch-size", type=int, default=S, help="examples per optimizer step")
    p.add_argument("--steps", type=int, default=S)
    p.add_argument("--seed", type=int, default=S)
    p.add_argument("--probes", choices=PROBE_LEVELS, default=S)
    p.add_argument("--sample-every", type=int, default=S, metavar="N",
                   help="junction gradients, cosines and memory every N steps")


_NOT_CONFIG = {"config", "command", "out", "screenshot", "func", "quiet", "repeats", "gui",
               "a", "b", "rtol", "lesson", "check"}


def config_from_args(args: argparse.Namespace, base: Config | None = None) -> Config:
    """File values, then flags on top; exits 2 with one line on any bad value."""
    try:
        values: dict[str, Any] = load_toml(args.config) if args.config else {}
        flags = {k: v for k, v in vars(args).items() if k not in _NOT_CONFIG}
        if "detach" in flags:
            flags["detach"] = list(flags["detach"])
        values = {**{k.replace("-", "_"): v for k, v in values.items()}, **flags}
        return from_mapping(values, base)
    except ConfigError as exc:
        fail(f"gradviz: {exc}")
