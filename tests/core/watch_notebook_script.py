"""A user's training script that the notebook test runs beside a notebook showing its
run: `python -I watch_notebook_script.py OUT GO NUMBERS`. It trains a two-loss model
watched, 3 steps, then waits for a byte on the FIFO GO (the test writes one once the
notebook's cell has drawn those 3 steps), trains 2 more and closes the watch. NUMBERS gets what the
loop itself saw: each step's losses (.item()) and its gradients' global norm."""
from __future__ import annotations

import json
import math
import os
import select
import sys
from pathlib import Path

import torch
from torch import nn
from torch.nn import functional as F

import gradviz

GO_WAIT_S = 120   # the test makes GO within seconds; never a process left behind

out, go, numbers = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
# held open for reading and writing from the start: a GO written before step 3 waits in
# the FIFO, and the read end never sees an end of file (select waits for the byte)
go_fd = os.open(go, os.O_RDWR | os.O_NONBLOCK)
torch.manual_seed(0)
trunk = nn.Sequential(nn.Linear(5, 8), nn.Tanh())
depth, seg = nn.Linear(8, 1), nn.Linear(8, 3)
model = nn.ModuleDict({"trunk": trunk, "depth": depth, "seg": seg})
opt = torch.optim.SGD(model.parameters(), lr=0.1)
seen = []
with gradviz.watch(model, out, every=2, features="trunk", strict=True) as watch:
    for step in range(5):
        if step == 3:
            select.select([go_fd], [], [], GO_WAIT_S)
        g = torch.Generator().manual_seed(step)
        x = torch.randn(6, 5, generator=g)
        z = trunk(x)
        losses = {"depth": F.mse_loss(depth(z), torch.randn(6, 1, generator=g)),
                  "seg": F.cross_entropy(seg(z), torch.randint(0, 3, (6,), generator=g))}
        watch.losses(losses)
        sum(losses.values()).backward()
        norm = math.sqrt(sum(p.grad.norm().item() ** 2 for p in model.parameters()))
        seen.append({"losses": {k: v.item() for k, v in losses.items()}, "norm": norm})
        watch.step()
        opt.step()
        opt.zero_grad()
numbers.write_text(json.dumps(seen))
