"""The typed configuration of a training session, its validation and its TOML form.

Every key here is also a `gradviz run` flag (dashes on the command line, dashes or
underscores in TOML). Validation errors are one line, meant to be shown as they are.
"""
from __future__ import annotations

import dataclasses
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

STRATEGIES = ("sum", "separate", "in-loop")
RETAIN_MODES = ("auto", "always", "never")
DETACH_MODES = ("detach", "detach_")
OPTIMIZERS = ("sgd", "adam")
PROBE_LEVELS = ("none", "default", "all")
MAX_HEADS = 8
MAX_SEED = 2**31 - 1   # what every seeding API (and the app's seed box) takes

# Changing one of these needs a fresh model (or fresh data); the others apply at the
# next step boundary on the running session.
RESET_KEYS = frozenset({"device", "heads", "trunk_width", "trunk_depth", "seed"})


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

    def weights(self) -> tuple[float, ...]:
        """The loss weight of every head (1.0 where none was given)."""
        return self.loss_weights or (1.0,) * self.heads

    def head_names(self) -> list[str]:
        return [f"head{k}" for k in range(self.heads)]

    def replace(self, **changes: Any) -> "Config":
        return validate(dataclasses.replace(self, **changes))

    def needs_reset(self, other: "Config") -> bool:
        """Whether going from self to other needs a fresh model."""
        return any(getattr(self, k) != getattr(other, k) for k in RESET_KEYS)

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["loss_weights"] = list(self.weights())
        data["detach"] = list(self.detach)
        return data


def _choice(name: str, value: Any, options: tuple[str, ...]) -> None:
    if value not in options:
        raise ConfigError(f"{name} must be one of {', '.join(options)} (got {value!r})")


def _at_least(name: str, value: Any, low: int | float, kind: type = int) -> None:
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise ConfigError(f"{name} must be a whole number (got {value!r})")
    if kind is float and (isinstance(value, bool) or not isinstance(value, (int, float))):
        raise ConfigError(f"{name} must be a number (got {value!r})")
    if value < low:
        raise ConfigError(f"{name} must be at least {low} (got {value!r})")


def validate(cfg: Config) -> Config:
    """Return cfg if every value is usable, else raise ConfigError naming the first bad one."""
    _at_least("heads", cfg.heads, 1)
    if cfg.heads > MAX_HEADS:
        raise ConfigError(f"heads must be between 1 and {MAX_HEADS} (got {cfg.heads})")
    _at_least("trunk-width", cfg.trunk_width, 1)
    _at_least("trunk-depth", cfg.trunk_depth, 1)
    _choice("strategy", cfg.strategy, STRATEGIES)
    _choice("retain-graph", cfg.retain_graph, RETAIN_MODES)
    _choice("detach-mode", cfg.detach_mode, DETACH_MODES)
    _choice("optimizer", cfg.optimizer, OPTIMIZERS)
    _choice("probes", cfg.probes, PROBE_LEVELS)
    if cfg.loss_weights and len(cfg.loss_weights) != cfg.heads:
        raise ConfigError(
            f"loss-weights has {len(cfg.loss_weights)} values but there are {cfg.heads} heads")
    for w in cfg.loss_weights:
        _at_least("each loss weight", w, 0.0, float)
        if not math.isfinite(w):
            raise ConfigError(f"each loss weight must be a finite number (got {w!r})")
    for k in cfg.detach:
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < cfg.heads:
            raise ConfigError(f"detach names head {k!r}, but heads are 0..{cfg.heads - 1}")
    if len(set(cfg.detach)) != len(cfg.detach):
        raise ConfigError(f"detach names a head twice ({', '.join(map(str, cfg.detach))})")
    _at_least("accumulate", cfg.accumulate, 1)
    _at_least("batch-size", cfg.batch_size, 1)
    if cfg.batch_size % cfg.accumulate:
        raise ConfigError(f"accumulate ({cfg.accumulate}) must divide batch-size "
                          f"({cfg.batch_size}) into equal micro-batches")
    _at_least("lr", cfg.lr, 0.0, float)
    if cfg.lr <= 0 or not math.isfinite(cfg.lr):
        raise ConfigError(f"lr must be a finite number greater than 0 (got {cfg.lr!r})")
    _at_least("steps", cfg.steps, 0)
    _at_least("seed", cfg.seed, 0)
    if cfg.seed > MAX_SEED:
        raise ConfigError(f"seed must be at most {MAX_SEED} (got {cfg.seed})")
    _at_least("sample-every", cfg.sample_every, 1)
    for name in ("scale", "zero_grad", "keep_graphs"):
        if not isinstance(getattr(cfg, name), bool):
            raise ConfigError(f"{name.replace('_', '-')} must be true or false")
    if not isinstance(cfg.device, str) or not cfg.device:
        raise ConfigError("device must be a name such as auto, cpu, cuda, cuda:0 or mps")
    return cfg


_FIELDS = {f.name: f for f in dataclasses.fields(Config)}


def _coerce(name: str, value: Any) -> Any:
    """Turn a TOML/flag value into the field's type (lists into tuples, ints into floats)."""
    if name == "loss_weights":
        if isinstance(value, str):
            if not value.strip(" ,"):
                raise ConfigError("loss-weights is empty: give one number per head, "
                                  "e.g. 1,0.5,2")
            try:
                return tuple(float(v) for v in value.split(","))
            except ValueError:
                raise ConfigError(f"loss-weights must be numbers separated by commas (got {value!r})")
        if not isinstance(value, list):
            raise ConfigError("loss-weights must be a list of numbers")
        return tuple(float(v) if isinstance(v, int) and not isinstance(v, bool) else v
                     for v in value)
    if name == "detach":
        if isinstance(value, int) and not isinstance(value, bool):
            return (value,)
        if not isinstance(value, list):
            raise ConfigError("detach must be a list of head numbers")
        return tuple(value)
    if name == "lr" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def from_mapping(data: dict[str, Any], base: Config | None = None) -> Config:
    """Build a Config from a dict of keys (dashes or underscores), on top of base."""
    changes = {}
    for key, value in data.items():
        name = str(key).replace("-", "_")
        if name in ("no_scale", "no_zero_grad"):  # the flags' spelling, in files too
            if not isinstance(value, bool):
                raise ConfigError(f"{key} must be true or false (got {value!r})")
            name, value = name[3:], not value
        if name not in _FIELDS:
            raise ConfigError(f"unknown setting {key!r}")
        changes[name] = _coerce(name, value)
    return validate(dataclasses.replace(base or Config(), **changes))


def load_toml(path: str | Path) -> dict[str, Any]:
    """Read a TOML config file into a dict; errors become one-line ConfigErrors."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {p}")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read config file {p}: {exc}")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {p} is not valid TOML: {exc}")
    return data.get("gradviz", data) if isinstance(data.get("gradviz"), dict) else data
