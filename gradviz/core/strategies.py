"""How the per-head loss terms become backward calls: strategies and retain_graph."""
from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from ..plain.config.jd_names import AGGREGATING
from .jd_strategies import SharedParts, aggregated_backward


@dataclass
class BackwardCall:
    target: torch.Tensor   # the tensor backward is called on
    loss: str              # what it is: "total", "head1", "total after head1"
    retain: bool           # the retain_graph argument passed
    # backward-list: every term in one torch.autograd.backward(list) call (target is
    # the first of them, for the call's label); empty for a call on target alone
    together: tuple[torch.Tensor, ...] = ()
    # autograd-grad: torch.autograd.grad(target, params) into the loop's own sums;
    # .grad is assigned once, after the micro-batch's last call
    to_sums: bool = False

    def targets(self) -> tuple[torch.Tensor, ...]:
        """Every tensor this call starts backward from (each drawn as a root)."""
        return self.together or (self.target,)
    # upgrad, pcgrad, mgda: torchjd's calls, where not target.backward()
    run: Callable[[], None] | None = None


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
                             together=tuple(terms),
                             run=aggregated_backward(strategy, terms, shared, retain))]
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
    one_pass_or_grad = _one_pass_or_grad(strategy, retain_mode, terms, names)
    if one_pass_or_grad is not None:
        return one_pass_or_grad
    raise ValueError(f"unknown strategy {strategy!r}")


# ---- one pass for K losses, or K passes without .grad (backward-list, autograd-grad) ----
def _one_pass_or_grad(strategy: str, retain_mode: str, terms: list[torch.Tensor],
                      names: list[str]) -> list[BackwardCall] | None:
    if strategy == "backward-list":
        # torch.autograd.backward([w_0 L_0, ...]): one pass; the trunk gets the sum of
        # the heads' gradients and is walked once, as under sum
        return [BackwardCall(terms[0], "all terms at once", _retain(retain_mode, 0, 1),
                             together=tuple(terms))]
    if strategy == "autograd-grad":
        # torch.autograd.grad per loss: K passes as separate, each but the last keeping
        # the graph the next needs, and .grad untouched until the loop assigns the sum
        return [BackwardCall(t, name, _retain(retain_mode, k, len(terms)), to_sums=True)
                for k, (t, name) in enumerate(zip(terms, names))]
    return None


class GradSums:
    """autograd-grad's running sums: one per parameter, None until a gradient arrives."""

    def __init__(self, params: Sequence[torch.Tensor]):
        self.params = list(params)
        self.sums: list[torch.Tensor | None] = [None] * len(params)

    def add(self, target: torch.Tensor, retain: bool) -> None:
        grads = torch.autograd.grad(target, self.params, retain_graph=retain,
                                    allow_unused=True)
        self.sums = [g if s is None else s if g is None else s + g
                     for s, g in zip(self.sums, grads)]

    def assign(self) -> None:
        """.grad = the sums (added to what .grad holds: accumulation, zero_grad off)."""
        for p, s in zip(self.params, self.sums):
            if s is not None:
                p.grad = s if p.grad is None else p.grad + s
        self.sums = [None] * len(self.params)


def run_call(call: BackwardCall, sums: GradSums | None) -> None:
    """Run one backward call as the strategy writes it."""
    if call.run is not None:
        call.run()
    elif call.together:
        torch.autograd.backward(list(call.together), retain_graph=call.retain)
    elif call.to_sums and sums is not None:
        sums.add(call.target, call.retain)
    else:
        call.target.backward(retain_graph=call.retain)
