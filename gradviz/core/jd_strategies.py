"""The strategies that aggregate the heads' trunk gradients instead of adding them:
UPGrad, PCGrad and MGDA, through TorchJD (a maintained library; these are not written
here). Each head's own parameters get its own loss's gradient, as under `sum`; the
trunk gets the aggregator's combination of the heads' trunk gradients (the rows of the
Jacobian of the weighted loss terms with respect to the trunk's parameters).

torchjd is imported only when such a step runs, so the other strategies never load it.
The trunk's Jacobian is taken one row (one trunk walk) per head, parallel_chunk_size=1,
not batched by torch.vmap: vmap refuses a z that retains its grad and the graph view's
per-node gradient hooks (torchjd's docs list such limits), and on this model the rows
one by one took 20 ms a step against vmap's 45, with the same numbers bit for bit.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from ..plain.config.jd_names import AGGREGATOR_CLASS, missing_message


@dataclass
class SharedParts:
    """What an aggregating call needs besides the loss terms."""
    features: torch.Tensor                        # z: the last tensor every head shares
    trunk: list[torch.Tensor]                     # the shared parameters
    heads: list[list[torch.Tensor]]               # each head's own parameters
    rng_seed: int                                 # PCGrad's draws this step


def _torchjd(strategy: str):
    """(autojac, the aggregator's class). The config check says first when torchjd is
    missing; an import that still fails is a RuntimeError, which the session turns into
    an event with this one line, as it does any failed backward."""
    try:
        autojac = importlib.import_module("torchjd.autojac")
        aggregation = importlib.import_module("torchjd.aggregation")
    except ImportError as exc:
        raise RuntimeError(missing_message(strategy)) from exc
    return autojac, getattr(aggregation, AGGREGATOR_CLASS[strategy])


def aggregated_backward(strategy: str, terms: Sequence[torch.Tensor], parts: SharedParts,
                        retain: bool) -> Callable[[], None]:
    """The call that replaces `sum(terms).backward()`: mtl_backward puts each head's own
    gradient into its parameters' .grad and the trunk's Jacobian (one row per head) into
    their .jac; jac_to_grad then adds the aggregator's combination into the trunk's .grad."""
    def run() -> None:
        autojac, aggregator_class = _torchjd(strategy)
        try:
            autojac.mtl_backward(list(terms), features=parts.features,
                                 tasks_params=parts.heads, shared_params=parts.trunk,
                                 retain_graph=retain, parallel_chunk_size=1)
            if strategy == "pcgrad":
                with torch.random.fork_rng(devices=[]):
                    torch.manual_seed(parts.rng_seed)
                    autojac.jac_to_grad(parts.trunk, aggregator_class())
            else:
                autojac.jac_to_grad(parts.trunk, aggregator_class())
        except ValueError as exc:   # torchjd's own checks (e.g. a QP it cannot solve)
            raise RuntimeError(f"torchjd: {exc}") from exc
        finally:   # rows a failed call left in .jac would be added to by the next step's
            for p in parts.trunk:
                if hasattr(p, "jac"):
                    del p.jac
    return run
