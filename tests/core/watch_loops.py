"""Plain-PyTorch training loops for the watch tests, written without gradviz: a two-head
model and the user's loop, which a test runs once bare and once with a watch object
passed in (its two calls are the only difference)."""
from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F


class TwoHeads(nn.Module):
    """A trunk (with dropout: the RNG must not be touched) and two heads; `spare` is
    never used, so its gradient stays None."""

    def __init__(self, seed: int = 0):
        super().__init__()
        torch.manual_seed(seed)
        self.trunk = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Dropout(0.2),
                                   nn.Linear(16, 8), nn.Tanh())
        self.depth = nn.Linear(8, 1)
        self.seg = nn.Linear(8, 3)
        self.spare = nn.Linear(8, 2)

    def forward(self, x):
        z = self.trunk(x)
        return z, self.depth(z), self.seg(z)


def batch(step: int, micro: int, size: int = 8):
    g = torch.Generator().manual_seed(1000 * step + micro)
    x = torch.randn(size, 6, generator=g)
    return x, torch.randn(size, 1, generator=g), torch.randint(0, 3, (size,), generator=g)


def named_losses(model, x, y_depth, y_seg):
    z, depth, seg = model(x)
    return z, {"depth": F.mse_loss(depth, y_depth), "seg": F.cross_entropy(seg, y_seg)}


def train(mode: str, optimizer: str, steps: int, make_watch=None, micro: int = 3):
    """The user's loop; mode: "sum" (one backward of the sum), "separate" (one backward
    per loss) or "accumulate" (micro backward calls of sum/micro per step). make_watch:
    None (the bare loop), or what makes a watch of the model (entered here). Returns the
    model and per step (losses, gradients) as the loop saw them."""
    torch.manual_seed(7)
    model = TwoHeads()
    if make_watch is None:
        return model, _loop(model, mode, optimizer, steps, None, micro)
    with make_watch(model) as watch:
        return model, _loop(model, mode, optimizer, steps, watch, micro)


def _loop(model, mode, optimizer, steps, watch, micro):
    opt = (torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9) if optimizer == "sgd"
           else torch.optim.Adam(model.parameters(), lr=0.01))
    seen = []
    for step in range(steps):
        losses_seen = []
        for m in range(micro if mode == "accumulate" else 1):
            z, losses = named_losses(model, *batch(step, m))
            if watch is not None:
                watch.losses(losses, features=z)
            losses_seen.append({k: v.detach().clone() for k, v in losses.items()})
            if mode == "separate":
                losses["depth"].backward(retain_graph=True)
                losses["seg"].backward()
            elif mode == "accumulate":
                (sum(losses.values()) / micro).backward()
            else:
                sum(losses.values()).backward()
        if watch is not None:
            watch.step()
        seen.append((losses_seen, {n: None if p.grad is None else p.grad.clone()
                                   for n, p in model.named_parameters()}))
        opt.step()
        opt.zero_grad()
    return seen
