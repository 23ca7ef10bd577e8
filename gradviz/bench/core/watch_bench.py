"""`gradviz bench --watch`: a user's own loop timed bare and under gradviz.watch at the
default sampling, on the default MLP, on the bundled two-head CNN (about 1.2 M
parameters) and on a two-head ResNet-18 (about 11 M), and, as the floor, the MLP's loop
under a hand-written recorder of the same numbers (watch_floor). The loops are the same
code; only watch's two calls differ."""
from __future__ import annotations

import functools
import operator
import statistics
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Protocol

import torch
from torch import nn

from ...core.data import make_data
from ...core.devices import resolve_device
from ...core.model import MultiHeadNet, head_loss
from ...core.model_file import ModelFile, trunk_outputs
from ...core.watch import DEFAULT_EVERY, WRITE_BLOCKS_S, watch
from ...plain.config.config import Config
from ...plain.config.model_names import model_path
from ...plain.run_files.watch_stream import STEPS
from .loop_timer import timed
from .watch_floor import HandWrittenRecorder

CNN = "cnn_two_heads"
RESNET = "resnet18.py"   # resources/bench/: plain PyTorch, nothing downloaded
FLOOR = ", hand-written floor"   # its row: watch_floor, no gradviz
BATCHES = 8   # made before the clock starts, used in turn: the loop times training only


class Recorder(Protocol):
    """What the timed loop calls: gradviz.watch's Watch, or the hand-written floor."""

    def losses(self, losses: dict[str, torch.Tensor], features=None) -> None: ...

    def step(self) -> object: ...

    def flush(self) -> None: ...

    def __enter__(self) -> object: ...

    def __exit__(self, *exc_info) -> None: ...


@dataclass
class LoopParts:
    """What the user's loop trains: the watched module, its trunk and heads, losses."""
    name: str
    model: nn.Module
    trunk: nn.Module
    heads: list[nn.Module]
    losses: list[Callable[..., torch.Tensor]]
    names: list[str]
    batches: list[tuple[torch.Tensor, list[torch.Tensor]]]
    lr: float


@dataclass
class WatchBench:
    name: str
    parameters: int
    bare: float          # median steps per second
    watched: float

    @property
    def ratio(self) -> float:
        return self.watched / self.bare


def mlp_parts(config: Config, device: torch.device) -> LoopParts:
    torch.manual_seed(config.seed)
    model = MultiHeadNet(config.heads, config.trunk_width, config.trunk_depth).to(device)
    data = make_data(config.heads, config.seed).to(device)
    batches = []
    for step in range(BATCHES):
        idx = data.batch_indices(step, config.batch_size).to(device)
        batches.append((data.x.index_select(0, idx),
                        [t.index_select(0, idx) for t in data.targets]))
    losses: list[Callable[..., torch.Tensor]] = [
        functools.partial(head_loss, k) for k in range(config.heads)]
    return LoopParts("default MLP", model, model.trunk, list(model.heads), losses,
                     config.head_names(), batches, config.lr)


def cnn_parts(config: Config, device: torch.device) -> LoopParts:
    with model_path(CNN) as path:
        return file_parts(f"CNN ({CNN})", path, config, device)


def resnet_parts(config: Config, device: torch.device) -> LoopParts:
    return file_parts("ResNet-18", str(resources.files("gradviz.resources") / "bench" / RESNET),
                      config, device)


def file_parts(name: str, path: str | Path, config: Config, device: torch.device) -> LoopParts:
    """A model file's loop: its trunk and heads in one module, its batches made ahead."""
    spec = ModelFile(path).build(config.seed, config.batch_size)
    model = nn.ModuleDict({"trunk": spec.trunk, "heads": nn.ModuleList(spec.heads)}).to(device)
    generator = torch.Generator().manual_seed(config.seed)
    batches = []
    for step in range(BATCHES):
        x, targets = spec.batch(step, config.batch_size, generator)
        batches.append((x.to(device), [t.to(device) for t in targets]))
    return LoopParts(name, model, spec.trunk, list(spec.heads), list(spec.losses),
                     list(spec.names), batches, config.lr)


def loop_rate(parts: LoopParts, steps: int, device: torch.device, out: str | None,
              write_every: float = 0.0, floor: bool = False) -> float:
    """Steps per second of the user's loop; watched into out when out is given (floor:
    recorded by the hand-written floor instead, into out/steps.jsonl)."""
    opt = torch.optim.SGD(parts.model.parameters(), lr=parts.lr)
    names = parts.names
    w: Recorder | None = None
    if out is not None:
        w = HandWrittenRecorder(parts.model, names, Path(out) / STEPS, DEFAULT_EVERY) \
            if floor else \
            watch(parts.model, out=out, every=DEFAULT_EVERY, write_every=write_every)

    def one(step: int) -> None:
        x, targets = parts.batches[step % len(parts.batches)]
        opt.zero_grad(set_to_none=True)
        z = (trunk_outputs(parts.trunk(x)) or [])[0]
        losses = {n: loss(head(z), t)
                  for n, loss, head, t in zip(names, parts.losses, parts.heads, targets)}
        if w is not None:
            w.losses(losses, features=z)
        functools.reduce(operator.add, losses.values()).backward()
        if w is not None:
            w.step()
        opt.step()

    if w is None:
        return timed(one, steps, device)
    with w:   # the lines still kept at the end are written inside the clock
        return timed(one, steps, device, end=w.flush)


def watch_bench(parts: LoopParts, steps: int, repeats: int, device: torch.device,
                write_every: float = 0.0, floor: bool = False) -> WatchBench:
    """Medians of `repeats` interleaved runs of the loop bare and watched (or recorded
    by the hand-written floor)."""
    bare, watched = [], []
    for _ in range(repeats):
        bare.append(loop_rate(parts, steps, device, None))
        with tempfile.TemporaryDirectory(prefix="gradviz-watch-bench-") as out:
            watched.append(loop_rate(parts, steps, device, out, write_every, floor))
    count = sum(p.numel() for p in parts.model.parameters())
    name = parts.name + (FLOOR if floor else
                         f", lines every {write_every:g} s" if write_every else "")
    return WatchBench(name, count, statistics.median(bare), statistics.median(watched))


def watch_benches(config: Config, steps: int, repeats: int) -> list[WatchBench]:
    """The MLP with `steps` steps per run (its lines written at each step, and in blocks
    every WRITE_BLOCKS_S, and by the hand-written floor), the CNN (some 200 times slower
    a step) with a fifth, the ResNet-18 (slower still) with a tenth."""
    device = resolve_device(config.device)
    mlp = mlp_parts(config, device)
    return [watch_bench(mlp, steps, repeats, device),
            watch_bench(mlp, steps, repeats, device, WRITE_BLOCKS_S),
            watch_bench(mlp, steps, repeats, device, floor=True),
            watch_bench(cnn_parts(config, device), max(1, steps // 5), repeats, device),
            watch_bench(resnet_parts(config, device), max(1, steps // 10), repeats, device)]
