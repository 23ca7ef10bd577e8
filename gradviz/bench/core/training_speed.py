"""Steps per second of a bare PyTorch loop and of the engine at each probe level.

The bare loop is written out here, independent of the session, on the same model,
data and optimizer, so the ratio shows what the engine and its probes cost.
"""
from __future__ import annotations

import functools
import operator
import statistics
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from ...core.data import make_data
from ...core.devices import resolve_device
from ...core.model import MultiHeadNet, head_loss
from ...core.model_file import ModelFile
from ...core.session import Session
from ...plain.config.config import Config
from .loop_timer import WARM_UP_STEPS, sync, timed
from .model_bench import bare_model_loop

# name -> config changes; "default" is what the app runs with
PROBE_LEVELS: dict[str, dict[str, Any]] = {
    "none": {"probes": "none"},
    "default": {"probes": "default", "sample_every": 20},
    "everything": {"probes": "all", "sample_every": 1},
}


@dataclass
class BenchResult:
    name: str
    steps_per_second: float
    ratio: float  # to the bare loop


def bare_loop(config: Config, steps: int) -> float:
    """Steps per second of a plain PyTorch loop: zero_grad, forward, sum, backward, step."""
    device = resolve_device(config.device)
    torch.manual_seed(config.seed)
    model = MultiHeadNet(config.heads, config.trunk_width, config.trunk_depth).to(device)
    data = make_data(config.heads, config.seed).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=config.lr)

    def one(step: int) -> None:
        idx = data.batch_indices(step, config.batch_size).to(device)
        opt.zero_grad(set_to_none=True)
        outputs = model(data.x.index_select(0, idx))
        # added as the session adds them (core.strategies), without sum()'s leading int 0
        total = functools.reduce(operator.add, [
            head_loss(k, out, data.targets[k].index_select(0, idx))
            for k, out in enumerate(outputs)])
        total.backward()
        opt.step()

    return timed(one, steps, device)


def engine_loop(config: Config, steps: int, model_file: ModelFile | None = None) -> float:
    session = Session(config, model_file)
    return timed(lambda _: session.step(), steps, session.device)


def warm_up(session: Session, steps: int) -> None:
    """The steps loop_timer.timed runs before it starts the clock."""
    for _ in range(min(WARM_UP_STEPS, steps)):
        session.step()
    sync(session.device)


def run_bench(config: Config, steps: int = 500, repeats: int = 3,
              more: dict[str, Callable[[Config, int], float]] | None = None,
              model_file: ModelFile | None = None) -> list[BenchResult]:
    """Median of `repeats` interleaved runs of the bare loop, each probe level and each
    of `more` (name -> a function of (config, steps) giving steps per second), on the
    built-in model or on a model file's."""
    rates: dict[str, list[float]] = {"bare": []}
    for _ in range(repeats):
        if model_file is None:
            rates["bare"].append(bare_loop(config, steps))
        else:
            rates["bare"].append(bare_model_loop(model_file, config, steps))
        for name, changes in PROBE_LEVELS.items():
            rates.setdefault(name, []).append(
                engine_loop(config.replace(**changes), steps, model_file))
        for name, loop in (more or {}).items():
            rates.setdefault(name, []).append(loop(config, steps))
    bare = statistics.median(rates["bare"])
    return [BenchResult(name, statistics.median(r), statistics.median(r) / bare)
            for name, r in rates.items()]
