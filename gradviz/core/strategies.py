"""How the per-head loss terms become backward calls: strategies and retain_graph."""
from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from dataclasses import dataclass

import torch

from .jd_names import AGGREGATING
from .jd_strategies import SharedParts, aggregated_backward


@dataclass
class BackwardCall:
    target: torch.Tensor   # the tensor backward is called on
    loss: str              # what it is: "total", "head1", "total after head1"
    retain: bool           # the retain_graph argument passed
    run: Callable[[], None] | None = None   # the call itself, where not target.backward()


def _retain(mode: str, index: int, count: int) -> bool:
    """auto keeps the graph for every call but the last, which is all a later call needs."""
    if mode == "always":
        return True
    if mode == "never":
        return False
    return index < count - 1


def backward_calls(strategy: str, retain_mode: str, terms: list[torch.Tensor],
                   names: list[str], shared: SharedParts | None = None) -> list[BackwardCall]:
    """The backward calls one micro-batch makes, in order, for the weighted loss terms
    (shared: the junction and the parameters, for the strategies that aggregate)."""
    if strategy in AGGREGATING:
        if shared is None:
            raise ValueError(f"strategy {strategy} needs the shared parts")
        # one call; drawn from the first term, the loss vector torchjd differentiates
        retain = _retain(retain_mode, 0, 1)
        return [BackwardCall(terms[0], f"mtl_backward + {strategy}", retain,
                             aggregated_backward(strategy, terms, shared, retain))]
    if strategy == "sum":
        total = functools.reduce(operator.add, terms)
        return [BackwardCall(total, "total", _retain(retain_mode, 0, 1))]
    if strategy == "separate":
        return [BackwardCall(t, name, _retain(retain_mode, k, len(terms)))
                for k, (t, name) in enumerate(zip(terms, names))]
    if strategy == "in-loop":
        # total += L_k; total.backward() inside the loop: each call runs through every
        # head added so far, so head k is counted K - k times.
        calls: list[BackwardCall] = []
        running: torch.Tensor | None = None
        for k, (t, name) in enumerate(zip(terms, names)):
            running = t if running is None else running + t
            calls.append(BackwardCall(running, f"total after {name}",
                                      _retain(retain_mode, k, len(terms))))
        return calls
    raise ValueError(f"unknown strategy {strategy!r}")
