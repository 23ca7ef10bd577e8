"""A training session's config as plain data: read from a mapping of keys (a TOML
file's, a lesson's, the flags'), checked, and written back as TOML that reads back equal.
Every value from a file is validated (config.validate); every error is one line."""
from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path
from typing import Any

import tomli_w

from ..records.events import first_line
from ..text.spelling import did_you_mean
from .config import (
    MAX_CONFIG_BYTES,
    OPTIONAL_KEYS,
    SHOWN_PATH_CHARS,
    Config,
    ConfigError,
    parse_sizes,
    settle_micro_batches,
    shown,
    validate,
)

_FIELDS = {f.name: f for f in dataclasses.fields(Config)}


def _coerce(name: str, value: Any) -> Any:
    """Turn a TOML/flag value into the field's type (lists into tuples, ints into floats)."""
    try:
        return _coerce_value(name, value)
    except OverflowError as exc:   # an int too big for a float, e.g. 10**400
        raise ConfigError(f"{name.replace('_', '-')} is too large (got {shown(value)})") from exc


def _coerce_value(name: str, value: Any) -> Any:
    if name == "loss_weights":
        if isinstance(value, str):
            if not value.strip(" ,"):
                raise ConfigError("loss-weights is empty: give one number per head, "
                                  "e.g. 1,0.5,2")
            try:
                return tuple(float(v) for v in value.split(","))
            except ValueError as exc:
                raise ConfigError(f"loss-weights must be numbers separated by commas "
                                  f"(got {shown(value)})") from exc
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
    if name == "micro_batch_sizes":
        return parse_sizes(value)
    if name in ("lr", "clip") and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def _closest_setting(key: str) -> str:
    """The did-you-mean of an unknown key, spelt as the key was (dashes or underscores)."""
    names = list(_FIELDS) + ["no_scale", "no_zero_grad"]
    if "-" in key:
        names = [n.replace("_", "-") for n in names]
    return did_you_mean(key, names)


def from_mapping(data: dict[str, Any], base: Config | None = None) -> Config:
    """Build a Config from a dict of keys (dashes or underscores), on top of base."""
    changes = {}
    for key, value in data.items():
        name = str(key).replace("-", "_")
        if name in ("no_scale", "no_zero_grad"):  # the flags' spelling, in files too
            if not isinstance(value, bool):
                raise ConfigError(f"{key} must be true or false (got {shown(value)})")
            name, value = name[3:], not value
        if name not in _FIELDS:
            raise ConfigError(f"unknown setting {shown(key)}{_closest_setting(str(key))}")
        if value is None and name not in OPTIONAL_KEYS:
            raise ConfigError(f"{shown(key)} needs a value")
        changes[name] = _coerce(name, value)
    changes = settle_micro_batches(changes)
    return validate(dataclasses.replace(base or Config(), **changes))


def to_toml(cfg: Config, comment: str = "") -> str:
    """cfg as a TOML file that `gradviz run --config` (and from_mapping) read back equal.

    Keys use the flags' dashes; absent optional values are left out (TOML has no null),
    and loss weights only when some differ from 1. Written by tomli-w (TOML's quoting and
    escapes are its), under the comment's lines."""
    data = {key.replace("_", "-"): value for key, value in cfg.to_dict().items()
            if not (value is None or (key == "loss_weights" and not cfg.loss_weights)
                    # equal parts: accumulate says it
                    or (key == "micro_batch_sizes" and not value))}
    return "".join(f"# {line}\n" for line in comment.splitlines()) + tomli_w.dumps(data)


def read_config_text(path: str | Path) -> str:
    """A config file's text: regular files only (a FIFO would block for ever, /dev/zero
    never ends), at most MAX_CONFIG_BYTES, UTF-8 with or without a byte-order mark."""
    p = Path(path)
    try:
        if not p.exists():
            raise ConfigError(f"config file not found: {shown(str(p), SHOWN_PATH_CHARS)}")
        if not p.is_file():
            raise ConfigError(f"config file {shown(str(p), SHOWN_PATH_CHARS)} "
                              "is not a regular file")
        with p.open("rb") as f:
            data = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"cannot read config file {shown(str(p), SHOWN_PATH_CHARS)}: "
                          f"{exc.strerror or exc}") from exc
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(f"config file {shown(str(p), SHOWN_PATH_CHARS)} is over "
                          f"{MAX_CONFIG_BYTES // 1024} KB; a gradviz config is a few lines of TOML")
    try:
        return data.decode("utf-8-sig")   # Notepad saves UTF-8 with a byte-order mark
    except UnicodeDecodeError as exc:
        raise ConfigError(f"config file {shown(str(p), SHOWN_PATH_CHARS)} "
                          "is not UTF-8 text") from exc


def parse_toml(text: str, name: str = "config") -> dict[str, Any]:
    """TOML text to a dict; errors (nesting too deep included) become one-line ConfigErrors."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{name} is not valid TOML: {first_line(exc, 120)}") from exc
    except RecursionError as exc:
        raise ConfigError(f"{name} nests values too deeply to be a gradviz config") from exc
    return data.get("gradviz", data) if isinstance(data.get("gradviz"), dict) else data


def load_toml(path: str | Path) -> dict[str, Any]:
    """Read a TOML config file into a dict; errors become one-line ConfigErrors."""
    return parse_toml(read_config_text(path), f"config file {shown(str(path), SHOWN_PATH_CHARS)}")
