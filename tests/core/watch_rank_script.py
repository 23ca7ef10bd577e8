"""A watched two-rank script for torchrun (gloo, 127.0.0.1): rank 1 is killed by SIGKILL
after its fourth step; rank 0 trains on until torchrun ends it (SIGTERM)."""
from __future__ import annotations

import os
import signal
import sys
import time

import torch
import torch.distributed as dist

import gradviz

dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(rank)
model = torch.nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
with gradviz.watch(model, out=sys.argv[1], every=2) as watch:
    dist.barrier()   # both ranks watched before rank 1 is killed
    started = time.monotonic()
    step = 0
    while time.monotonic() - started < 120:   # rank 0: until torchrun stops it
        out = model(torch.randn(4096, 4))   # a step of some real work
        losses = {"a": out[:, 0].pow(2).mean(), "b": out[:, 1].abs().mean()}
        watch.losses(losses)
        sum(losses.values()).backward()
        watch.step()
        opt.step()
        opt.zero_grad()
        step += 1
        if rank == 1 and step == 4:
            os.kill(os.getpid(), signal.SIGKILL)
