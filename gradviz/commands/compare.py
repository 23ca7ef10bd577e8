"""`gradviz compare A.toml B.toml`: are two training loops the same computation?

Exit status, like cmp: 0 the same gradients (within --rtol), 1 different, 2 bad input,
3 one of them hit an autograd error (which one, and why, is printed and written).
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import math
import sys
from pathlib import Path

from ..core.compare import Comparison, compare
from ..core.ddp_ranks import close_rank_group
from ..core.model_file import ModelFile
from ..core.threads import leave_a_core_free
from ..exit_codes import EXIT_AUTOGRAD_ERROR, EXIT_OK
from ..plain.config.config import SHOWN_PATH_CHARS, Config, ConfigError, shown
from ..plain.config.config_toml import from_mapping, load_toml
from ..plain.files.atomic_write import write_text
from ..render.style import format_bytes
from .model_option import config_for, file_config, model_file_from_args
from .options import fail
from .run import _prepare_out

EXIT_DIFFERENT = 1


def _configs(args: argparse.Namespace,
             model_file: ModelFile | None) -> tuple[Config, Config]:
    if args.config:
        fail("gradviz compare: give the two configs as A.toml B.toml, not --config")
    if not (0 <= args.rtol < 1):
        fail(f"gradviz compare: --rtol must be between 0 and 1 (got {shown(args.rtol)})")
    shared = config_for(args, model_file)           # the flags, on the defaults
    try:
        a, b = (_with_file(path, shared) for path in (args.a, args.b))
    except ConfigError as exc:
        fail(f"gradviz: {exc}")
    if model_file is not None:   # A or B may name a key only the built-in model has
        a, b = file_config(a, model_file), file_config(b, model_file)
    idle = " and ".join(name for name, cfg in (("A", a), ("B", b)) if cfg.steps < 1)
    if idle:
        fail(f"gradviz compare: {idle} would train 0 steps, which compares nothing: "
             "give --steps 1 or more")
    return a, b


def _with_file(path: str, shared: Config) -> Config:
    values = {k.replace("-", "_"): v for k, v in load_toml(path).items()}
    return from_mapping(values, shared)


def _fmt(x: float) -> str:
    return "inf" if x == float("inf") else f"{x:.3g}"


def table(result: Comparison, names: tuple[str, str]) -> str:
    """The printed comparison: per group, step 0 and the whole run; losses; memory."""
    lines = [f"A = {names[0]}", f"B = {names[1]}",
             f"{len(result.steps)} steps compared, rtol {result.rtol:g}"]
    if result.steps:
        lines.append(f"{'group':8} {'step 0: max abs':>16} {'max rel':>9}"
                     f" {'run: max abs':>14} {'max rel':>9}")
        for group in result.groups:
            first, worst = result.steps[0].groups[group], result.worst(group)
            lines.append(f"{group:8} {_fmt(first.max_abs):>16} {_fmt(first.max_rel):>9}"
                         f" {_fmt(worst.max_abs):>14} {_fmt(worst.max_rel):>9}")
        for label, losses in (("A", result.losses_a), ("B", result.losses_b)):
            # set with every step compared, as result.steps has one here
            text = "  ".join(f"{k} {v:.6g}" for k, v in (losses or {}).items())
            lines.append(f"last step losses {label}: {text}")
        # saved_bytes_peak: the storages kept alive (a saved slice counts its whole base)
        lines.append(f"peak saved memory: A {_bytes_or_not(result.peak_a)}, "
                     f"B {_bytes_or_not(result.peak_b)} (storages the graph keeps alive)")
    lines.append(f"verdict: {result.verdict()}")
    return "\n".join(lines)


def _bytes_or_not(n: int | None) -> str:
    return "not measured" if not n else format_bytes(n)


def to_json(result: Comparison) -> dict:
    return {
        "gradviz_compare": 1, "a": result.a.to_dict(), "b": result.b.to_dict(),
        "rtol": result.rtol, "same": result.same, "verdict": result.verdict(),
        "peak_saved_bytes": {"a": result.peak_a, "b": result.peak_b},
        "last_losses": {"a": result.losses_a, "b": result.losses_b},
        "error": None if result.error is None else
        {"which": result.error[0], **result.error[1].to_dict()},
        "steps": [{"step": s.step, "junction_ratio": s.junction_ratio,
                   "total": {"a": s.total_a, "b": s.total_b},
                   "saved_bytes_peak": {"a": s.peak_a, "b": s.peak_b},
                   "groups": {g: vars(d) for g, d in s.groups.items()}}
                  for s in result.steps],
    }


def step_lines(result: Comparison) -> str:
    """-v: each step's largest relative difference per group, one line a step."""
    return "\n".join(
        f"step {s.step:>5}  " + "  ".join(f"{g} {d.max_rel:.3g}" for g, d in s.groups.items())
        for s in result.steps)


def to_csv(result: Comparison) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["step", "group", "max_abs", "max_rel"])
    for s in result.steps:
        for group, d in s.groups.items():
            writer.writerow([s.step, group, d.max_abs, d.max_rel])
    return out.getvalue()


def _finite_or_null(value):
    """JSON has no NaN or infinity: a difference that is not finite is written null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite_or_null(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite_or_null(v) for v in value]
    return value


def _write(out: Path, result: Comparison) -> None:
    data = json.dumps(_finite_or_null(to_json(result)), indent=1, allow_nan=False)
    try:
        write_text(out / "compare.json", data)
        write_text(out / "compare.csv", to_csv(result))
    except OSError as exc:
        fail(f"gradviz: could not write to {shown(str(out), SHOWN_PATH_CHARS)}: "
             f"{exc.strerror or exc}")


def main(args: argparse.Namespace) -> int:
    model_file = model_file_from_args(args)
    a, b = _configs(args, model_file)
    out = _prepare_out(args.out, args.force) if args.out is not None else None
    leave_a_core_free()
    try:
        result = compare(a, b, min(a.steps, b.steps), args.rtol, model_file)
    except ConfigError as exc:
        fail(f"gradviz: {exc}")
    finally:
        close_rank_group()   # the DDP ranks A or B trained with (--ddp-ranks), if any
    if not args.quiet:
        print(table(result, (args.a, args.b)))
    if args.verbose:
        print(step_lines(result))
    if out is not None:
        _write(out, result)
    if result.error is not None:
        which, event = result.error
        print(f"gradviz: {which}: {event.one_line()}", file=sys.stderr)
        print(f"  why: {event.explanation}", file=sys.stderr)
        return EXIT_AUTOGRAD_ERROR
    return EXIT_OK if result.same else EXIT_DIFFERENT
