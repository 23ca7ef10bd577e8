"""The training options shared by `gradviz run` and the app, and merging them with a
TOML file (flags win). Bad input becomes one line on stderr and exit status 2.
"""
from __future__ import annotations

import argparse
import re
import sys
import textwrap
from collections.abc import Iterable
from typing import Any, NoReturn

from ..exit_codes import EXIT_USAGE
from ..plain.config.config import (
    ACCUMULATE_MODES,
    CLIP_AT,
    DETACH_MODES,
    OPTIMIZERS,
    PROBE_LEVELS,
    RETAIN_MODES,
    SCALE_BY,
    STRATEGIES,
    TRUNCATE_MODES,
    Config,
    ConfigError,
)
from ..plain.config.config_toml import from_mapping
from ..plain.config.model_names import is_model_file, model_names
from ..plain.config.presets import load_config_file, preset_names
from ..plain.text.spelling import did_you_mean

MAX_MESSAGE = 200   # characters of a usage error
UNRECOGNIZED = "unrecognized arguments: "   # argparse's words for unknown options


class HelpFormatter(argparse.HelpFormatter):
    """Adds "(default: X)" to each option's help where it has a real default; the
    training options, whose parser default is SUPPRESS, say theirs in their text."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if "%(default)" in text or "default:" in text or not action.option_strings \
                or any(default is nothing for nothing in (None, False, True, argparse.SUPPRESS)):
            return text
        return f"{text} (default: %(default)s)"

    def _split_lines(self, text: str, width: int) -> list[str]:
        # names such as accumulate-sum-first stay whole on one line
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (no usage dump) and exit status 2, and
    --help shows each option's default."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        # argparse quotes the bad value whole: a megabyte argument must not fill the screen
        message = " ".join(message.split())
        hint = self._closest(message)
        if len(message) > MAX_MESSAGE:
            message = message[:MAX_MESSAGE - 3] + "..."
        fail(f"{self.prog}: {message}{hint} (see {self.prog} --help)")

    def _closest(self, message: str) -> str:
        """The did-you-mean of a misspelt choice (`rn`: run), or of the first unknown
        --option (`--lesons`: --lesson)."""
        choice = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)$", message)
        if choice:   # the choices are quoted before Python 3.12.8, bare since
            return did_you_mean(choice[1], [c.strip(" '") for c in choice[2].split(",")])
        if not message.startswith(UNRECOGNIZED):
            return ""
        words = [w.split("=", 1)[0] for w in message[len(UNRECOGNIZED):].split()
                 if w.startswith("--")]
        # argparse has no public listing of its actions; _actions is the one it keeps
        known = [s for a in self._actions for s in a.option_strings if s.startswith("--")]
        return closest_flag(words[0], known) if words else ""


def closest_flag(word: str, flags: Iterable[str]) -> str:
    """' (did you mean --lesson?)' for a misspelt flag close to one of flags, else ''."""
    return did_you_mean(word, flags).replace("'", "")


def fail(message: str) -> NoReturn:
    print(message, file=sys.stderr)
    raise SystemExit(EXIT_USAGE)


_DEFAULTS = Config()
# `gradviz run` (and bench's run line) samples as the app at full speed and
# gradviz.watch's every= do: the losses and gradient norms every step, the junction
# gradients, cosines and memory every 20th. Every step (`--sample-every 1`) cost the
# default model two fifths of its speed (see docs/benchmarks.md)
RUN_DEFAULTS = Config(sample_every=20)


def _d(key: str, defaults: Config = _DEFAULTS) -> str:
    """' (default: X)' for a config key, X as the flag would be typed."""
    value = getattr(defaults, key)
    if isinstance(value, tuple):
        value = ",".join(map(str, value)) or "none"
    return f" (default: {value})"


def add_training_options(p: argparse.ArgumentParser, defaults: Config = _DEFAULTS) -> None:
    """Every config key as a flag, in groups as --help shows them; defaults are SUPPRESS
    so that only the flags given override a config file. defaults: the values the
    command starts from, as its help shows them (Config's, or RUN_DEFAULTS)."""
    p.add_argument("--config", metavar="FILE|PRESET",
                   help="a TOML file with any of these keys (flags win over it), or a "
                        f"bundled preset: {', '.join(preset_names())}".replace("%", "%%"))
    _model_options(p.add_argument_group("the model"))
    _backward_options(p.add_argument_group("how backward is called"))
    _mistake_options(p.add_argument_group("mistakes to see, and z.retain_grad()"))
    _training_options(p.add_argument_group("training and measuring"), defaults)
    _micro_batch_options(p.add_argument_group("when accumulation is not the full batch"))
    _ddp_options(p.add_argument_group("DistributedDataParallel (gloo ranks on this machine)"))


S = argparse.SUPPRESS


def _model_options(g) -> None:
    g.add_argument("--device", default=S,
                   help="where to train: auto, cpu, cuda, cuda:N or mps" + _d("device"))
    g.add_argument("--heads", type=int, default=S, metavar="K",
                   help="number of task heads, 1-8" + _d("heads"))
    g.add_argument("--trunk-width", type=int, default=S, metavar="N",
                   help="units per trunk layer" + _d("trunk_width"))
    g.add_argument("--trunk-depth", type=int, default=S, metavar="N",
                   help="trunk layers (mlp)" + _d("trunk_depth"))
    g.add_argument("--model", default=S, metavar="mlp|rnn|FILE|NAME",
                   help="mlp, or rnn: a recurrent trunk whose hidden state is carried "
                        "from step to step; or your own model file (a .py file with "
                        "build(seed), see docs/model-files.md) or a bundled example's name: "
                        f"{', '.join(model_names())} (the app, run and compare)" + _d("model"))
    g.add_argument("--truncate", choices=TRUNCATE_MODES, default=S,
                   help="rnn: detach the carried state at every step (truncated "
                        "backprop through time), or never (default: every-step)")


def _backward_options(g) -> None:
    g.add_argument("--strategy", choices=STRATEGIES, default=S,
                   help="sum: total.backward() once; separate: L_k.backward() for each "
                        "head; in-loop: total += L_k; total.backward() inside the loop; "
                        "backward-list: torch.autograd.backward([w_k L_k]), one pass for "
                        "all; autograd-grad: torch.autograd.grad per loss, summed by the "
                        "loop into .grad; "

                        "upgrad, pcgrad, mgda: torchjd's mtl_backward, then the heads' "
                        "trunk gradients aggregated by UPGrad, PCGrad or MGDA instead of "
                        "added (each head's own layers keep its own gradient)"
                        + _d("strategy"))
    g.add_argument("--retain-graph", choices=RETAIN_MODES, default=S,
                   help="auto retains only where a later backward needs it"
                        + _d("retain_graph"))
    g.add_argument("--loss-weights", default=S, metavar="W0,W1,...",
                   help="total = sum of w_k * L_k (default: 1 for every head)")
    g.add_argument("--detach", type=int, action="append", default=S, metavar="K",
                   help="head K reads a detached trunk output (repeatable)" + _d("detach"))
    g.add_argument("--detach-mode", choices=DETACH_MODES, default=S,
                   help="detach: head K reads z.detach(); detach_: z.detach_() in place; "
                        "no_grad, inference_mode: head K's forward runs under "
                        "torch.no_grad() or torch.inference_mode()" + _d("detach_mode"))
    g.add_argument("--accumulate", type=int, default=S, metavar="N",
                   help="micro-batches per optimizer step" + _d("accumulate"))
    g.add_argument("--accumulate-mode", choices=ACCUMULATE_MODES, default=S,
                   help="backward once per micro-batch, or sum the micro-batch losses "
                        "and call backward once (N graphs alive together)"
                        + _d("accumulate_mode"))
    g.add_argument("--no-scale", dest="scale", action="store_false", default=S,
                   help="do not scale accumulated losses (by 1/N, or n_i/B with "
                        "--scale-by size)")


def _mistake_options(g) -> None:
    g.add_argument("--no-zero-grad", dest="zero_grad", action="store_false", default=S,
                   help="never call zero_grad: gradients add up from step to step")
    g.add_argument("--keep-graphs", action="store_true", default=S,
                   help="hold every step's loss tensor alive (the classic leak)")
    g.add_argument("--misplace-head", type=int, default=S, metavar="K",
                   help="put head K's parameters on another device than the trunk")
    g.add_argument("--edit-detached", type=int, default=S, metavar="K",
                   help="change head K's z.detach() in place (needs --detach K)")
    g.add_argument("--edit-data", type=int, default=S, metavar="K",
                   help="after head K's forward, z.data.mul_(0.5): no error, a silently "
                        "wrong gradient (where --edit-detached raises)")
    g.add_argument("--retain-grad", action="store_true", default=S,
                   help="z.retain_grad(): keep the junction's .grad and report its norm")


def _training_options(g, defaults: Config) -> None:
    g.add_argument("--optimizer", choices=OPTIMIZERS, default=S,
                   help="sgd (p -= lr * p.grad) or adam" + _d("optimizer"))
    g.add_argument("--lr", type=float, default=S, help="learning rate" + _d("lr"))
    g.add_argument("--batch-size", type=int, default=S, metavar="N",
                   help="examples per optimizer step" + _d("batch_size"))
    g.add_argument("--steps", type=int, default=S, metavar="N",
                   help="optimizer steps to train" + _d("steps"))
    g.add_argument("--seed", type=int, default=S,
                   help="seeds the data, the initial weights and the batch order" + _d("seed"))
    g.add_argument("--probes", choices=PROBE_LEVELS, default=S,
                   help="none: the losses only; default: also the gradient norms, and "
                        "every --sample-every steps the junction gradients, cosines and "
                        "memory (gradviz run: each head's cosine with the update every "
                        "20 steps at the least); all: all of it every step, each graph "
                        "node's gradient too"
                        + _d("probes"))
    g.add_argument("--sample-every", type=int, default=S, metavar="N",
                   help="junction gradients, cosines and memory every N steps (1: every "
                        "step)" + _d("sample_every", defaults))


def _micro_batch_options(g) -> None:
    g.add_argument("--micro-batch-sizes", default=S, metavar="N0,N1,...",
                   help="examples in each micro-batch, adding up to --batch-size (sets "
                        "--accumulate to their count; default: equal parts)")
    g.add_argument("--scale-by", choices=SCALE_BY, default=S,
                   help="mean: each micro-batch loss times 1/N (the usual way); size: "
                        "times n_i/B, the full batch's mean exactly however unequal the "
                        "parts" + _d("scale_by"))
    g.add_argument("--batch-norm", action="store_true", default=S,
                   help="a BatchNorm1d after the mlp trunk's first Linear: a micro-batch "
                        "is normalized by its own statistics")
    g.add_argument("--clip", type=float, default=S, metavar="MAX",
                   help="torch.nn.utils.clip_grad_norm_(model.parameters(), MAX) "
                        "(default: no clipping)")
    g.add_argument("--clip-at", choices=CLIP_AT, default=S,
                   help="clip once before optimizer.step(), or after each micro-batch's "
                        "backward (the running sum)" + _d("clip_at"))


def _ddp_options(g) -> None:
    g.add_argument("--ddp-ranks", type=int, default=S, metavar="N",
                   help="the step's gradient from N DistributedDataParallel ranks (gloo, "
                        "127.0.0.1, each a process training an equal share of the batch); "
                        "each step reports the all-reduces a communication hook counted"
                        + _d("ddp_ranks"))
    g.add_argument("--ddp-no-sync", action="store_true", default=S,
                   help="model.no_sync() on the first accumulate-1 micro-batches: one "
                        "all-reduce per step instead of one per micro-batch")


_NOT_CONFIG = {"config", "command", "out", "force", "screenshot", "func", "quiet", "verbose",
               "repeats", "gui", "gui_size", "watch", "slides", "viewer", "soak", "clock", "a",
               "b", "rtol", "lesson", "deck", "check"}


def take_model_file(args: argparse.Namespace) -> str | None:
    """--model's value where it names a model file (or a bundled example), taken out of
    args so that the config never holds it; None for mlp, rnn or no --model."""
    value = getattr(args, "model", None)
    if not isinstance(value, str) or not is_model_file(value):
        return None
    del args.model
    return value


def config_from_args(args: argparse.Namespace, base: Config | None = None) -> Config:
    """File values, then flags on top; exits 2 with one line on any bad value."""
    try:
        values: dict[str, Any] = load_config_file(args.config) if args.config else {}
        flags = {k: v for k, v in vars(args).items() if k not in _NOT_CONFIG}
        if is_model_file(flags.get("model", "mlp")):   # run and compare take it out first
            fail("gradviz: --model FILE works with the app, gradviz run and gradviz "
                 "compare; here --model is mlp or rnn")
        if "detach" in flags:
            flags["detach"] = list(flags["detach"])
        values = {k.replace("-", "_"): v for k, v in values.items()}
        if {"accumulate", "micro_batch_sizes"} & flags.keys():
            # the two keys say one thing: a flag for either replaces the file's both
            values = {k: v for k, v in values.items()
                      if k not in ("accumulate", "micro_batch_sizes")}
        values = {**values, **flags}
        return from_mapping(values, base)
    except ConfigError as exc:
        fail(f"gradviz: {exc}")
