"""gradviz.watch records each gradient's fingerprint on its sampled steps, equal to the
fingerprint of the gradients the loop holds there (read here, after the step), and on
no other step; under DistributedDataParallel (two ranks, gloo on 127.0.0.1) the ranks'
fingerprints agree, and a rank whose gradient is negated, every norm the same, is
named at that step."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch
from watch_loops import TwoHeads, batch, named_losses

import gradviz
from gradviz.core.grad_fingerprint import GradFingerprint
from gradviz.plain.run_files.watch_read import FolderFollower, StreamReader
from gradviz.plain.runs.rank_agreement import gradient_line

REPO = Path(__file__).parents[2]   # the script imports this checkout's gradviz


def test_sampled_steps_record_the_fingerprint_of_the_loops_gradients(tmp_path,
                                                                     monkeypatch):
    """As one of two ranks (the rank asked of torch.distributed, faked): the sampled
    steps' fingerprints are the loop's gradients'. One process records none (it has no
    rank to compare with), which the last lines check."""
    import gradviz.core.watch as watch_module
    monkeypatch.setattr(watch_module, "rank_and_world", lambda: (0, 2))
    model = TwoHeads()
    model.eval()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    reference = GradFingerprint(list(model.named_parameters()))
    expected = []
    with gradviz.watch(model, out=tmp_path, every=2) as watch:
        for step in range(5):
            z, losses = named_losses(model, *batch(step, 0))
            watch.losses(losses, features=z)
            sum(losses.values()).backward()
            watch.step()
            grads = [None if p.grad is None else p.grad.clone() for p in model.parameters()]
            expected.append(reference.named(reference(grads).tolist(), grads))
            opt.step()
            opt.zero_grad()
    records = StreamReader(tmp_path / "rank-0").read()
    assert [r.grad_fingerprint is not None for r in records] == [True, False, True,
                                                                  False, True]
    for record, want in zip(records, expected, strict=True):
        if record.grad_fingerprint is not None:
            assert record.grad_fingerprint.keys() == want.keys()
            for name, numbers in want.items():   # spare's .grad is None: None
                got = record.grad_fingerprint[name]
                assert got == numbers if numbers is None else \
                    got == pytest.approx(numbers, rel=1e-6, abs=1e-9)
    monkeypatch.undo()
    with gradviz.watch(model, out=tmp_path / "one", every=2) as watch:
        z, losses = named_losses(model, *batch(0, 0))
        watch.losses(losses, features=z)
        sum(losses.values()).backward()
        assert watch.step().grad_fingerprint is None


RANKS = """
import datetime, os, socket, sys
import torch, torch.distributed as dist, torch.multiprocessing as mp
from torch import nn
from torch.nn.parallel import DistributedDataParallel
import gradviz

def rank_main(rank, port, out):
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=2, timeout=datetime.timedelta(seconds=60))
    try:
        for mode in ("same", "flipped"):
            torch.manual_seed(0)
            ddp = DistributedDataParallel(nn.Sequential(nn.Linear(4, 8), nn.Tanh(),
                                                        nn.Linear(8, 2)))
            with gradviz.watch(ddp, out=f"{out}/{mode}", every=2) as watch:
                for step in range(4):
                    g = torch.Generator().manual_seed(100 * step + rank)
                    loss = ddp(torch.randn(8, 4, generator=g)).square().mean()
                    watch.losses({"loss": loss})
                    loss.backward()
                    if mode == "flipped" and rank == 1 and step == 2:
                        for p in ddp.parameters():   # every norm the same
                            p.grad.neg_()
                    watch.step()
                    ddp.zero_grad()
    finally:
        dist.destroy_process_group()

if __name__ == "__main__":
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(rank_main, args=(port, sys.argv[1]), nprocs=2, join=True)
"""


@pytest.mark.timeout(300)
def test_ranks_agree_and_a_negated_gradient_is_named(tmp_path):
    script = tmp_path / "ranks.py"
    script.write_text(textwrap.dedent(RANKS))
    done = subprocess.run([sys.executable, str(script), str(tmp_path / "out")],
                          timeout=240, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert done.returncode == 0, done.stderr[-2000:]
    lines = {}
    for mode in ("same", "flipped"):
        follower = FolderFollower(tmp_path / "out" / mode)
        follower.read()
        lines[mode] = gradient_line(follower.histories)
    assert lines["same"] == ("ranks agree: equal gradient norms at all 4 steps they "
                             "share, equal gradient fingerprints at 2 sampled steps")
    assert lines["flipped"] == (
        "ranks disagree: rank-1's gradient differs from rank-0's at step 2 (0.weight): "
        "same norm, different direction (after DDP's all-reduce every rank's gradient "
        "would be the same)")
