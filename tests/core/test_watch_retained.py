"""The push walk leaves the features as an unwatched step would: a retained .grad is the
user's backward's alone (not doubled by the walk), and a hook on the features runs once
per user backward, on sampled steps as on the others."""
from __future__ import annotations

import torch
from torch.nn import functional as F

import gradviz


def _loop(watch, steps: int = 4):
    """A plain two-head loop with z.retain_grad() and a counting hook on z; returns per
    step (z.grad, the hook's calls, the gradients the hook saw)."""
    torch.manual_seed(0)
    trunk, h0, h1 = torch.nn.Linear(5, 6), torch.nn.Linear(6, 1), torch.nn.Linear(6, 2)
    params = [*trunk.parameters(), *h0.parameters(), *h1.parameters()]
    opt = torch.optim.SGD(params, lr=0.1)
    seen = []
    for step in range(steps):
        g = torch.Generator().manual_seed(step)
        x, y = torch.randn(8, 5, generator=g), torch.randn(8, 1, generator=g)
        z = torch.tanh(trunk(x))
        z.retain_grad()
        calls: list[torch.Tensor] = []
        z.register_hook(lambda grad, calls=calls: calls.append(grad.clone()))
        losses = {"a": F.mse_loss(h0(z), y), "b": h1(z).pow(2).mean()}
        if watch is not None:
            watch.losses(losses, features=z)
        (losses["a"] + losses["b"]).backward()
        if watch is not None:
            watch.step()
        seen.append((z.grad.clone(), len(calls), calls))
        opt.step()
        opt.zero_grad()
    return seen


def test_a_retained_features_grad_and_their_hook_are_as_unwatched(tmp_path):
    bare = _loop(None)
    with gradviz.watch(torch.nn.Linear(1, 1), out=tmp_path / "run", every=2,
                       strict=True) as watch:
        watched = _loop(watch)
    for step, ((grad, calls, grads), (grad_w, calls_w, grads_w)) in enumerate(
            zip(bare, watched)):
        assert calls == calls_w == 1, step    # the walk ran no hook of the user's
        assert torch.equal(grad, grad_w), step   # sampled steps 0, 2: not doubled
        assert all(torch.equal(a, b) for a, b in zip(grads, grads_w))
