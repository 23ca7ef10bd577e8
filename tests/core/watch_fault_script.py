"""A user's training script for the watch's fault tests, run as a real process:
`python -I watch_fault_script.py OUT FAULT [STEPS]`. FAULT "bare" trains without gradviz;
any other trains watched, with that fault made at step 5 (or from the start). The last
line printed is the final parameters' sha256, which the test compares with a bare run's.
"""
from __future__ import annotations

import errno
import hashlib
import os
import shutil
import signal
import sys

import torch

out, fault = sys.argv[1], sys.argv[2]
steps = int(sys.argv[3]) if len(sys.argv) > 3 else 12
FAULT_STEP = 5

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
amp = fault.startswith("amp")
scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 16) if amp else None


def inject(error: int) -> None:
    """From now on, every write of gradviz's stream fails with this errno."""
    from gradviz.plain.run_files import step_file

    def failing_write(fd, data):
        raise OSError(error, os.strerror(error))
    step_file.os = type("os", (), {**{k: getattr(os, k) for k in dir(os)
                                      if not k.startswith("__")}, "write": failing_write})


def train(watch) -> None:
    for step in range(steps):
        g = torch.Generator().manual_seed(step)
        x, y = torch.randn(16, 4, generator=g), torch.randn(16, 2, generator=g)
        if watch is not None and step == FAULT_STEP:
            make_fault(watch)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=amp):
            z = model[1](model[0](x))
            pred = model[2](z)
        losses = {"a": (pred[:, 0].float() - y[:, 0]).pow(2).mean(),
                  "b": (pred[:, 1].float() - y[:, 1]).abs().mean()}
        if watch is not None and fault != "after-backward":
            watch.losses(losses, features=z)
        total = losses["a"] + losses["b"]
        if scaler is not None:
            scaler.scale(total).backward()
        else:
            total.backward()
        if watch is not None and fault == "after-backward":   # misuse: too late
            watch.losses(losses, features=z)
        if watch is not None and fault != "no-step":
            watch.step()
            if fault == "step-twice":   # misuse: a second step() in the same step
                watch.step()
        if scaler is not None:
            scaler.unscale_(opt)
            norms = [float(torch.linalg.vector_norm(p.grad)) for p in model.parameters()]
            print("unscaled", step, *map(float.hex, norms), flush=True)
            scaler.step(opt)
            scaler.update()
        else:
            opt.step()
        opt.zero_grad()
        if fault == "raise" and step == FAULT_STEP:
            raise RuntimeError("the user's own error at step 5")


def make_fault(watch) -> None:
    if fault == "full":
        inject(errno.ENOSPC)
    elif fault == "unwritable":
        inject(errno.EACCES)
    elif fault == "removed":
        shutil.rmtree(out)
    elif fault == "sigterm":
        os.kill(os.getpid(), signal.SIGTERM)
    elif fault == "wait":   # a live writer: the test starts another on the same folder
        print("waiting", flush=True)
        sys.stdin.readline()


if fault in ("bare", "amp-bare"):
    train(None)
else:
    import gradviz
    watch = gradviz.watch(model, out=out, every=4, scaler=scaler if fault == "amp" else None)
    if fault == "unclosed-raise":   # no with block, no close(): closed at exit
        fault = "raise"
        train(watch)
    with watch:
        train(watch)
print(hashlib.sha256(b"".join(p.detach().numpy().tobytes()
                              for p in model.parameters())).hexdigest(), flush=True)
