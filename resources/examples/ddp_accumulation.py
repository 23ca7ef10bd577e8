"""Gradient accumulation under DistributedDataParallel, watched by gradviz.

Two processes (ranks) on this machine, gloo on the CPU, loopback only. Each step feeds
MICRO micro-batches per rank and calls backward on each; run twice:
  without no_sync(): DDP all-reduces the gradients after every micro-batch's backward;
  with no_sync() on the first MICRO-1: it all-reduces once, after the last.
Both end with the same gradients as one process given the whole batch at once; a DDP
communication hook counts the all-reduces. Each rank's stream is written by
gradviz.watch to OUT/<mode>/rank-N.

    python ddp_accumulation.py [OUT]        (OUT: runs/ddp_accumulation)

The lesson `gradviz --lesson ddp-accumulation` makes the same point in the window, on
gradviz's built-in model (its 3 heads, 2 ranks, 4 micro-batches each).
"""
from __future__ import annotations

import contextlib
import datetime
import os
import socket
import sys
from pathlib import Path

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.distributed.algorithms.ddp_comm_hooks.default_hooks import allreduce_hook
from torch.nn import functional as F
from torch.nn.parallel import DistributedDataParallel

import gradviz

WORLD, MICRO, STEPS, SIZE, LR = 2, 4, 3, 4, 0.1
MODES = ("without_no_sync", "with_no_sync")


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)   # every rank starts from the same weights
        self.trunk = nn.Sequential(nn.Linear(6, 16), nn.Tanh())
        self.depth = nn.Linear(16, 1)
        self.seg = nn.Linear(16, 3)

    def forward(self, x):
        z = self.trunk(x)
        return z, self.depth(z), self.seg(z)


def micro_batch(step: int, rank: int, m: int):
    """Rank rank's micro-batch m of a step (the whole batch: every rank's, every m)."""
    g = torch.Generator().manual_seed(10_000 * step + 100 * rank + m)
    return (torch.randn(SIZE, 6, generator=g), torch.randn(SIZE, 1, generator=g),
            torch.randint(0, 3, (SIZE,), generator=g))


def named_losses(depth, seg, y_depth, y_seg) -> dict[str, torch.Tensor]:
    return {"depth": F.mse_loss(depth, y_depth), "seg": F.cross_entropy(seg, y_seg)}


def counting_hook(counter: list[int], bucket):
    """DDP hands each gradient bucket it all-reduces to this hook: count, then reduce."""
    counter[0] += 1
    return allreduce_hook(None, bucket)


def train(rank: int, mode: str, out: Path) -> tuple[list[int], dict[str, torch.Tensor]]:
    """One rank's run; returns the all-reduces per step and the last step's gradients."""
    ddp = DistributedDataParallel(TwoHeads())
    counter, counts = [0], []
    ddp.register_comm_hook(counter, counting_hook)
    opt = torch.optim.SGD(ddp.parameters(), lr=LR)
    with gradviz.watch(ddp, out=out / mode, every=1) as watch:
        for step in range(STEPS):
            counter[0] = 0
            for m in range(MICRO):
                quiet = mode == "with_no_sync" and m < MICRO - 1
                with ddp.no_sync() if quiet else contextlib.nullcontext():
                    x, y_depth, y_seg = micro_batch(step, rank, m)
                    z, depth, seg = ddp(x)
                    losses = named_losses(depth, seg, y_depth, y_seg)
                    watch.losses(losses, features=z)
                    (sum(losses.values()) / MICRO).backward()
            watch.step()
            counts.append(counter[0])
            grads = {n: p.grad.clone() for n, p in ddp.module.named_parameters()}
            opt.step()
            opt.zero_grad()
    return counts, grads


def one_process_grads() -> dict[str, torch.Tensor]:
    """The last step's gradients of one process given each step's whole batch."""
    model = TwoHeads()
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    for step in range(STEPS):
        parts = [micro_batch(step, r, m) for r in range(WORLD) for m in range(MICRO)]
        x, y_depth, y_seg = (torch.cat(column) for column in zip(*parts))
        _, depth, seg = model(x)
        sum(named_losses(depth, seg, y_depth, y_seg).values()).backward()
        grads = {n: p.grad.clone() for n, p in model.named_parameters()}
        opt.step()
        opt.zero_grad()
    return grads


def rank_main(rank: int, port: int, out: Path) -> None:
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=WORLD, timeout=datetime.timedelta(seconds=60))
    try:
        reference = one_process_grads()
        for mode in MODES:
            counts, grads = train(rank, mode, out)
            worst = max((grads[n] - g).abs().max().item() for n, g in reference.items())
            if rank == 0:
                print(f"{mode}: all-reduces per step {counts}; final gradients equal to "
                      f"one process with the full batch: {'yes' if worst < 1e-6 else 'NO'} "
                      f"(largest difference {worst:.1e})", flush=True)
    finally:
        dist.destroy_process_group()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main(argv: list[str]) -> None:
    out = Path(argv[0] if argv else "runs/ddp_accumulation")
    if sys.platform.startswith("linux"):
        os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")   # loopback only
    mp.spawn(rank_main, args=(free_port(), out), nprocs=WORLD, join=True)
    print(f"streams: {out}/{MODES[0]}/rank-0 ... {out}/{MODES[1]}/rank-{WORLD - 1}")


if __name__ == "__main__":
    main(sys.argv[1:])
