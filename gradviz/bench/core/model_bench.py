"""The bare loop of `gradviz bench --model`: a model file's model trained by plain
PyTorch (its batch, trunk, heads, the sum of its losses, backward, SGD), written here
independently of the session, so the ratio shows what the engine and its probes cost."""
from __future__ import annotations

import functools
import operator

import torch

from ...core.devices import resolve_device
from ...core.model_file import ModelFile, step_generator, trunk_outputs
from ...plain.config.config import Config
from .loop_timer import timed


def bare_model_loop(model_file: ModelFile, config: Config, steps: int) -> float:
    """Steps per second of the plain loop a user of the file would write."""
    device = resolve_device(config.device)
    torch.manual_seed(config.seed)
    spec = model_file.build(config.seed, config.batch_size)
    trunk, heads = spec.trunk.to(device), [h.to(device) for h in spec.heads]
    params = [p for m in (trunk, *heads) for p in m.parameters()]
    opt = torch.optim.SGD(params, lr=config.lr)

    def one(step: int) -> None:
        x, targets = spec.batch(step, config.batch_size, step_generator(config.seed, step))
        x, targets = x.to(device), [t.to(device) for t in targets]
        opt.zero_grad(set_to_none=True)
        zs = trunk_outputs(trunk(x)) or []
        total = functools.reduce(operator.add, [
            loss(head(zs[tap]), t)
            for loss, head, tap, t in zip(spec.losses, heads, spec.taps, targets)])
        total.backward()
        opt.step()

    return timed(one, steps, device)
