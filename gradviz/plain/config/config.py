"""The typed configuration of a training session and its validation (its TOML form,
read and written: config_toml).

Every key here is also a `gradviz run` flag (dashes on the command line, dashes or
underscores in TOML). Validation errors are one line, meant to be shown as they are.
"""
from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass
from typing import Any

from .jd_names import AGGREGATING, missing

# the last three aggregate the heads' trunk gradients through torchjd (core.jd_strategies)
STRATEGIES = ("sum", "separate", "in-loop", "backward-list", "autograd-grad", *AGGREGATING)
RETAIN_MODES = ("auto", "always", "never")
DETACH_MODES = ("detach", "detach_", "no_grad", "inference_mode")
EDIT_DATA_FACTOR = 0.5   # --edit-data K: z.data.mul_(0.5) after head K's forward
OPTIMIZERS = ("sgd", "adam")
PROBE_LEVELS = ("none", "default", "all")
MODELS = ("mlp", "rnn")
TRUNCATE_MODES = ("every-step", "never")
ACCUMULATE_MODES = ("backward-each", "sum-first")
SCALE_BY = ("mean", "size")           # each micro-batch loss x 1/N, or x n_i/B
CLIP_AT = ("step", "micro-batch")     # clip_grad_norm_ once per step, or after each backward
MAX_HEADS = 8
INPUT_DIM = 8          # features per example of the synthetic data (core.data)
# The data's and the model's fixed sizes, here (torch-free) so that plain.program.script, which
# the window's process uses, needs neither core.data nor core.model
LATENT_DIM = 6
NUM_CLASSES = 3
DATASET_SIZE = 4096
HEAD_HIDDEN = 16
SEQ_LEN = 4                           # the rnn reads each example as 4 steps...
STEP_FEATURES = INPUT_DIM // SEQ_LEN  # ...of 2 features each
MAX_SEED = 2**31 - 1   # what every seeding API (and the app's seed box) takes
# The largest values gradviz accepts: models it can build in seconds and train on a
# laptop, and numbers float32 can hold. The app's controls use the same bounds.
MAX_TRUNK_WIDTH = 4096
MAX_TRUNK_DEPTH = 256   # a ~1,800-node graph: the most a layout handles in under a second
MAX_TRUNK_PARAMETERS = 50_000_000   # ~200 MB of float32 weights before gradients
MAX_BATCH_SIZE = 4096               # the whole synthetic dataset
MAX_ACCUMULATE = 256
MAX_LR = 1000.0
MAX_STEPS = 10**9
MAX_SAMPLE_EVERY = 10**6
MAX_LOSS_WEIGHT = 1000.0
MAX_CLIP = 1e6
MAX_DDP_RANKS = 8                   # processes on this machine, each a torch of its own
MAX_CONFIG_BYTES = 64 * 1024        # a config is a few hundred bytes; more is not one
SHOWN_CHARS = 60                    # how much of a bad value an error message echoes
SHOWN_PATH_CHARS = 160              # ...and of a file name
DEVICE_WORDS = "device must be auto, cpu, cuda, cuda:N, mps, meta, xpu or hpu"
# A device name in the form torch takes one (a type, then an optional index), or auto.
# Whether this machine has that device is only known where torch is (core.devices).
DEVICE_NAME = re.compile(r"auto|(cpu|cuda|mps|meta|xpu|hpu)(:(0|[1-9][0-9]{0,3}))?")

# Changing one of these needs a fresh model (or fresh data); the others apply at the
# next step boundary on the running session.
RESET_KEYS = frozenset({"device", "heads", "trunk_width", "trunk_depth", "seed", "model",
                        "misplace_head", "batch_norm"})
# keys that may be absent (None): TOML has no null, so they are simply left out there
OPTIONAL_KEYS = frozenset({"truncate", "misplace_head", "edit_detached", "edit_data",
                           "clip"})


class ConfigError(ValueError):
    """A bad configuration value; str(error) is a one-line message for the user."""


@dataclass(frozen=True)
class Config:
    device: str = "auto"
    heads: int = 3
    trunk_width: int = 32
    trunk_depth: int = 2
    strategy: str = "sum"
    retain_graph: str = "auto"
    loss_weights: tuple[float, ...] = ()  # empty: 1.0 for every head
    detach: tuple[int, ...] = ()
    detach_mode: str = "detach"
    accumulate: int = 1
    scale: bool = True
    zero_grad: bool = True
    keep_graphs: bool = False
    optimizer: str = "sgd"
    lr: float = 0.05
    batch_size: int = 64
    steps: int = 200
    seed: int = 0
    probes: str = "default"
    sample_every: int = 1  # heavy probes (junction gradients, cosines) every N steps
    model: str = "mlp"     # mlp, or rnn: a recurrent trunk whose hidden state is carried
    truncate: str | None = None          # rnn only: every-step (the default) or never
    accumulate_mode: str = "backward-each"   # or sum-first: add micro-batch losses, one backward
    misplace_head: int | None = None     # this head's parameters live on another device
    edit_detached: int | None = None     # this (detached) head's zk is changed in place
    retain_grad: bool = False            # z.retain_grad(): keep the junction's .grad
    edit_data: int | None = None         # after this head's forward, z.data is changed
    # ---- when accumulation is not the full batch ----
    batch_norm: bool = False             # mlp: a BatchNorm1d after the trunk's first Linear
    micro_batch_sizes: tuple[int, ...] = ()   # examples per micro-batch; empty: equal parts
    scale_by: str = "mean"               # mean: each micro-batch loss x 1/N; size: x n_i/B
    clip: float | None = None            # clip_grad_norm_(every parameter, clip)
    clip_at: str = "step"                # once before optimizer.step(), or per micro-batch
    # ---- DistributedDataParallel: the step's gradient from N gloo ranks (core.ddp_ranks)
    ddp_ranks: int = 1                   # 1: this process alone; N: N rank processes
    ddp_no_sync: bool = False            # model.no_sync() on the first accumulate-1 micros

    def micro_sizes(self) -> tuple[int, ...]:
        """Examples in each micro-batch of a step, in order."""
        n = self.accumulate
        return self.micro_batch_sizes or (self.batch_size // n,) * n

    def micro_scale(self, size: int) -> float:
        """The factor on each loss of a micro-batch of `size` examples: 1/N ("mean", the
        usual way), n_i/B ("size": with mean-reduced losses, the full batch's mean
        exactly, however unequal the parts), 1 with scale off."""
        if not self.scale or self.accumulate == 1:
            return 1.0
        return size / self.batch_size if self.scale_by == "size" else 1.0 / self.accumulate

    def truncation(self) -> str:
        """How the carried hidden state is cut between steps (rnn)."""
        return self.truncate or "every-step"

    def weights(self) -> tuple[float, ...]:
        """The loss weight of every head (1.0 where none was given)."""
        return self.loss_weights or (1.0,) * self.heads

    def head_names(self) -> list[str]:
        return [f"head{k}" for k in range(self.heads)]

    def replace(self, **changes: Any) -> Config:
        return validate(dataclasses.replace(self, **changes))

    def needs_reset(self, other: Config) -> bool:
        """Whether going from self to other needs a fresh model."""
        return any(getattr(self, k) != getattr(other, k) for k in RESET_KEYS)

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["loss_weights"] = list(self.weights())
        data["detach"] = list(self.detach)
        data["micro_batch_sizes"] = list(self.micro_batch_sizes)
        return data


def shown(value: Any, limit: int = SHOWN_CHARS) -> str:
    """repr(value) cut to a length fit for a one-line message (inputs can be megabytes)."""
    try:
        text = repr(value) if not isinstance(value, (list, tuple, dict)) or \
            len(value) < SHOWN_CHARS else f"<{type(value).__name__} of {len(value)} items>"
    except (RecursionError, ValueError):   # ints over 4300 digits refuse repr()
        text = f"<{type(value).__name__}>"
    text = text.replace("\n", "\\n")
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _choice(name: str, value: Any, options: tuple[str, ...]) -> None:
    if not isinstance(value, str) or value not in options:
        raise ConfigError(f"{name} must be one of {', '.join(options)} (got {shown(value)})")


def _within(name: str, value: Any, low: int | float, high: int | float,
            kind: type = int) -> None:
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise ConfigError(f"{name} must be a whole number (got {shown(value)})")
    if kind is float and (isinstance(value, bool) or not isinstance(value, (int, float))):
        raise ConfigError(f"{name} must be a number (got {shown(value)})")
    if kind is float and not math.isfinite(value):
        raise ConfigError(f"{name} must be a finite number (got {shown(value)})")
    if not low <= value <= high:
        fmt = (lambda v: f"{v:g}") if kind is float else str
        raise ConfigError(f"{name} must be between {fmt(low)} and {fmt(high)} "
                          f"(got {shown(value)})")


def trunk_parameters(cfg: Config) -> int:
    """Weights and biases of the trunk (the heads are small next to it)."""
    w = cfg.trunk_width
    return (INPUT_DIM + 1) * w + (cfg.trunk_depth - 1) * (w + 1) * w


def validate(cfg: Config) -> Config:
    """Return cfg if every value is usable, else raise ConfigError naming the first bad one."""
    _within("heads", cfg.heads, 1, MAX_HEADS)
    _within("trunk-width", cfg.trunk_width, 1, MAX_TRUNK_WIDTH)
    _within("trunk-depth", cfg.trunk_depth, 1, MAX_TRUNK_DEPTH)
    if trunk_parameters(cfg) > MAX_TRUNK_PARAMETERS:
        raise ConfigError(
            f"a trunk {cfg.trunk_depth} deep and {cfg.trunk_width} wide has "
            f"{trunk_parameters(cfg):,} parameters; gradviz builds at most "
            f"{MAX_TRUNK_PARAMETERS:,} (make it narrower or shallower)")
    _choice("strategy", cfg.strategy, STRATEGIES)
    if (absent := missing(cfg.strategy)) is not None:
        raise ConfigError(absent)
    if cfg.strategy in AGGREGATING and cfg.detach and cfg.detach_mode == "detach_":
        # detach_ turns z itself into a tensor outside the graph: torchjd has nothing
        # left to differentiate the heads' losses at
        raise ConfigError(f"strategy {cfg.strategy} differentiates at the junction z, which "
                          "detach_ cuts for every head: use --detach-mode detach")
    if cfg.strategy in AGGREGATING and cfg.retain_grad:
        # its autograd calls each add Σ dL_k/dz into z.grad: twice the sum's, whatever
        # the aggregator (tests/core/test_jd_strategies.py shows it with torchjd alone)
        raise ConfigError(f"retain-grad with strategy {cfg.strategy}: torchjd's own autograd "
                          "calls fill z.grad, with no gradient of the losses (use sum)")
    if cfg.strategy in AGGREGATING and cfg.accumulate > 1 and \
            cfg.accumulate_mode == "sum-first":
        # the summed terms reach the trunk through every micro-batch's own z
        raise ConfigError(f"strategy {cfg.strategy} aggregates each micro-batch's trunk "
                          "gradients at its z: use --accumulate-mode backward-each")
    _choice("retain-graph", cfg.retain_graph, RETAIN_MODES)
    _choice("detach-mode", cfg.detach_mode, DETACH_MODES)
    _choice("optimizer", cfg.optimizer, OPTIMIZERS)
    _choice("probes", cfg.probes, PROBE_LEVELS)
    if cfg.loss_weights and len(cfg.loss_weights) != cfg.heads:
        raise ConfigError(
            f"loss-weights has {len(cfg.loss_weights)} values but there are {cfg.heads} heads")
    for w in cfg.loss_weights:
        _within("each loss weight", w, 0.0, MAX_LOSS_WEIGHT, float)
    for k in cfg.detach:
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < cfg.heads:
            raise ConfigError(f"detach names head {shown(k)}, but heads are 0..{cfg.heads - 1}")
    if len(set(cfg.detach)) != len(cfg.detach):
        raise ConfigError(f"detach names a head twice ({', '.join(map(str, cfg.detach))})")
    _within("accumulate", cfg.accumulate, 1, MAX_ACCUMULATE)
    _within("batch-size", cfg.batch_size, 1, MAX_BATCH_SIZE)
    if not cfg.micro_batch_sizes and cfg.batch_size % cfg.accumulate:
        raise ConfigError(f"accumulate ({cfg.accumulate}) must divide batch-size "
                          f"({cfg.batch_size}) into equal micro-batches")
    _within("lr", cfg.lr, 0.0, MAX_LR, float)
    if cfg.lr <= 0:
        raise ConfigError(f"lr must be greater than 0 (got {shown(cfg.lr)})")
    _within("steps", cfg.steps, 0, MAX_STEPS)
    _within("seed", cfg.seed, 0, MAX_SEED)
    _within("sample-every", cfg.sample_every, 1, MAX_SAMPLE_EVERY)
    for name in ("scale", "zero_grad", "keep_graphs", "retain_grad", "batch_norm",
                 "ddp_no_sync"):
        if not isinstance(getattr(cfg, name), bool):
            raise ConfigError(f"{name.replace('_', '-')} must be true or false")
    _device(cfg.device)
    _validate_lessons(cfg)
    _validate_micro_batches(cfg)
    _validate_ddp(cfg)
    return cfg


def _device(value: Any) -> None:
    if not isinstance(value, str) or not DEVICE_NAME.fullmatch(value):
        raise ConfigError(f"{DEVICE_WORDS} (got {shown(value)})")


def _head_index(name: str, value: Any, heads: int) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < heads:
        raise ConfigError(f"{name} names head {shown(value)}, but heads are 0..{heads - 1}")


def _validate_lessons(cfg: Config) -> None:
    """The toggles of the article's later sections, and the combinations that make sense."""
    _choice("model", cfg.model, MODELS)
    _choice("accumulate-mode", cfg.accumulate_mode, ACCUMULATE_MODES)
    if cfg.truncate is not None:
        _choice("truncate", cfg.truncate, TRUNCATE_MODES)
        if cfg.model != "rnn":
            raise ConfigError("truncate applies to a recurrent trunk: add --model rnn")
    if not isinstance(cfg.retain_grad, bool):
        raise ConfigError("retain-grad must be true or false")
    _head_index("misplace-head", cfg.misplace_head, cfg.heads)
    _head_index("edit-detached", cfg.edit_detached, cfg.heads)
    if cfg.edit_detached is not None:
        if cfg.edit_detached not in cfg.detach:
            raise ConfigError(f"edit-detached names head {cfg.edit_detached}, which is not "
                              f"detached: add --detach {cfg.edit_detached}")
        if cfg.detach_mode != "detach":
            raise ConfigError("edit-detached edits the tensor z.detach() returns: "
                              "use --detach-mode detach")
    _head_index("edit-data", cfg.edit_data, cfg.heads)


def _validate_micro_batches(cfg: Config) -> None:
    """Unequal micro-batches, their scaling, BatchNorm and clipping: what accumulation
    does when it is not the full batch."""
    sizes = cfg.micro_batch_sizes
    if not isinstance(sizes, tuple) or any(isinstance(n, bool) or not isinstance(n, int)
                                           or n < 1 for n in sizes):
        raise ConfigError(f"micro-batch-sizes must be whole numbers of 1 or more "
                          f"(got {shown(sizes)})")
    if sizes and len(sizes) != cfg.accumulate:
        raise ConfigError(f"micro-batch-sizes gives {len(sizes)} micro-batches but accumulate "
                          f"is {cfg.accumulate} (leave accumulate out: the sizes set it)")
    if sizes and sum(sizes) != cfg.batch_size:
        raise ConfigError(f"micro-batch-sizes add up to {sum(sizes)}, not batch-size "
                          f"{cfg.batch_size}")
    if sizes and cfg.model == "rnn" and len(set(sizes)) > 1:
        raise ConfigError("micro-batches of different sizes need --model mlp: the rnn "
                          "carries one hidden state of one batch size")
    _choice("scale-by", cfg.scale_by, SCALE_BY)
    _choice("clip-at", cfg.clip_at, CLIP_AT)
    if cfg.clip is not None:
        _within("clip", cfg.clip, 0.0, MAX_CLIP, float)
        if cfg.clip <= 0:
            raise ConfigError(f"clip must be greater than 0 (leave it out for no clipping; "
                              f"got {shown(cfg.clip)})")
    if not isinstance(cfg.batch_norm, bool):
        raise ConfigError("batch-norm must be true or false")
    if cfg.batch_norm:
        if cfg.model != "mlp":
            raise ConfigError("batch-norm sits between the mlp trunk's layers: the rnn has "
                              "none (use --model mlp)")
        if cfg.trunk_depth < 2:
            raise ConfigError("batch-norm sits after the trunk's first Linear, before its "
                              "tanh: give trunk-depth 2 or more")
        if min(cfg.micro_sizes()) < 2:
            raise ConfigError("batch-norm needs 2 or more examples in every micro-batch "
                              "(it normalizes by their mean and variance)")


# what the ranks do not run: each would make their gradient another loop's than the
# engine's own (core.ddp_rank trains the built-in mlp, every head summed, on the CPU)
DDP_REFUSES = (("model", "mlp", "the built-in mlp"), ("strategy", "sum", "strategy sum"),
               ("accumulate_mode", "backward-each", "accumulate-mode backward-each"),
               ("detach", (), "no detach"), ("batch_norm", False, "no batch-norm"),
               ("micro_batch_sizes", (), "equal micro-batches"), ("clip", None, "no clip"),
               ("misplace_head", None, "no misplace-head"), ("edit_data", None, "no edit-data"),
               ("retain_grad", False, "no retain-grad"), ("zero_grad", True, "zero-grad on"))


def _validate_ddp(cfg: Config) -> None:
    """N gloo ranks, each a share of every micro-batch: what they can run."""
    _within("ddp-ranks", cfg.ddp_ranks, 1, MAX_DDP_RANKS)
    if not isinstance(cfg.ddp_no_sync, bool):
        raise ConfigError("ddp-no-sync must be true or false")
    if cfg.ddp_no_sync and (cfg.ddp_ranks < 2 or cfg.accumulate < 2):
        raise ConfigError("ddp-no-sync skips the all-reduce of the first accumulate-1 "
                          "micro-batches: give ddp-ranks 2 or more and accumulate 2 or more")
    if cfg.ddp_ranks == 1:
        return
    for key, wanted, words in DDP_REFUSES:
        if getattr(cfg, key) != wanted:
            raise ConfigError(f"ddp-ranks {cfg.ddp_ranks} trains {words} "
                              f"(got {key.replace('_', '-')} {shown(getattr(cfg, key))})")
    share = cfg.ddp_ranks * cfg.accumulate
    if cfg.batch_size % share:
        raise ConfigError(f"ddp-ranks ({cfg.ddp_ranks}) times accumulate ({cfg.accumulate}) "
                          f"must divide batch-size ({cfg.batch_size}) into equal micro-batches")


def settle_micro_batches(changes: dict[str, Any]) -> dict[str, Any]:
    """accumulate and micro_batch_sizes say one thing two ways: changes that give the sizes
    alone set accumulate to their count; accumulate alone means equal parts again."""
    sizes = changes.get("micro_batch_sizes")
    if sizes and "accumulate" not in changes and isinstance(sizes, tuple):
        return {**changes, "accumulate": len(sizes)}
    if "accumulate" in changes and "micro_batch_sizes" not in changes:
        return {**changes, "micro_batch_sizes": ()}
    return changes


def parse_sizes(value: Any) -> tuple[int, ...]:
    """micro-batch-sizes from a flag ("40,8,8,8"; "" for equal parts) or a TOML list."""
    if isinstance(value, str):
        words = [w.strip() for w in value.split(",")]
        if words == [""]:
            return ()
        if not all(w.isascii() and w.isdigit() for w in words):
            raise ConfigError(f"micro-batch-sizes must be whole numbers separated by commas, "
                              f"e.g. 40,8,8,8 (got {shown(value)})")
        return tuple(int(w) for w in words)
    if not isinstance(value, (list, tuple)):
        raise ConfigError(f"micro-batch-sizes must be a list of whole numbers, e.g. "
                          f"[40, 8, 8, 8] (got {shown(value)})")
    return tuple(value)
