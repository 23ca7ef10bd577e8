"""What gradviz.watch records equals an independent computation written here: the
losses, each parameter's gradient norm (None without a gradient), the push of each loss
at the features and their cosines (summed over accumulated micro-batches), the bytes
the graph saved and its node count; and a reader following the folder sees each step."""
from __future__ import annotations

import copy
import math

import pytest
import torch
from torch.nn import functional as F
from watch_loops import TwoHeads, batch, named_losses

import gradviz
from gradviz.plain.run_files.watch_read import FolderFollower, StreamReader

from core_reference import SavedTracker, reachable_nodes

MICRO = 3


def _leaf_pushes(model, x, y_depth, y_seg) -> list[torch.Tensor]:
    """Each loss's gradient at the trunk's output, from copies of the heads run on a
    leaf copy of it (nothing of the model's own .grad is touched)."""
    z = model.trunk(x).detach().requires_grad_()
    pushes = []
    for head, loss_of in ((model.depth, lambda o: F.mse_loss(o, y_depth)),
                          (model.seg, lambda o: F.cross_entropy(o, y_seg))):
        z.grad = None
        loss_of(copy.deepcopy(head)(z)).backward()
        pushes.append(z.grad.reshape(-1).double())
    return pushes


def _saved_reference(model, x, y_depth, y_seg) -> tuple[int, int]:
    tracker = SavedTracker(model)
    with tracker.tracking():
        _, losses = named_losses(model, x, y_depth, y_seg)
        return tracker.bytes_held(), reachable_nodes([v.grad_fn for v in losses.values()])


def _run(tmp_path, every, follower):
    model = TwoHeads()
    model.eval()   # dropout off: the references re-run the forward and must get the same
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    expected = []
    with gradviz.watch(model, out=tmp_path, every=every) as watch:
        for step in range(4):
            gram, losses_seen, saved = torch.zeros(2, 2, dtype=torch.float64), [], []
            for m in range(MICRO):
                data = batch(step, m)
                rows = torch.stack(_leaf_pushes(model, *data))
                gram += rows @ rows.T
                saved.append(_saved_reference(model, *data))
                z, losses = named_losses(model, *data)
                watch.losses(losses, features=z)
                losses_seen.append({k: v.item() for k, v in losses.items()})
                (sum(losses.values()) / MICRO).backward()
            watch.step()
            expected.append((gram, losses_seen, saved, {
                n: None if p.grad is None else p.grad.norm().item()
                for n, p in model.named_parameters()}))
            assert follower.read() == 1   # each finished step is on disk at once
            opt.step()
            opt.zero_grad()
    return expected


@pytest.mark.parametrize("every", [1, 2])
def test_recorded_numbers_equal_a_reference(tmp_path, every):
    follower = FolderFollower(tmp_path)
    expected = _run(tmp_path, every, follower)
    records = StreamReader(tmp_path).read()
    assert [r.step for r in records] == [0, 1, 2, 3]
    for record, (gram, losses_seen, saved, norms) in zip(records, expected, strict=True):
        for name in ("depth", "seg"):
            mean = sum(seen[name] for seen in losses_seen) / MICRO
            assert record.losses[name] == pytest.approx(mean, rel=1e-6)
        assert record.total == pytest.approx(sum(record.losses.values()), rel=1e-12)
        assert record.grad_norms is not None and record.grad_norms["spare.weight"] is None
        for name, norm in norms.items():
            if norm is None:
                assert record.grad_norms[name] is None, name
            else:
                assert record.grad_norms[name] == pytest.approx(norm, rel=1e-5, abs=1e-7)
        present = [n for n in norms.values() if n is not None]
        assert record.global_grad_norm == pytest.approx(
            math.sqrt(sum(n * n for n in present)), rel=1e-5)
        if record.step % every:
            assert record.junction_grad_norms is None and record.cosine is None
            assert record.saved_bytes is None
            continue
        push = gram.diag().sqrt()
        assert record.junction_grad_norms == pytest.approx(
            {"depth": push[0].item(), "seg": push[1].item()}, rel=1e-5)
        cosine = (gram / torch.outer(push, push)).tolist()
        assert record.cosine is not None
        for got, want in zip(record.cosine, cosine, strict=True):
            assert got == pytest.approx(want, rel=1e-5)
        assert record.saved_bytes == saved[-1][0]
        assert record.saved_bytes_peak == max(b for b, _ in saved)
        assert record.graph_nodes == saved[-1][1]
    history = follower.histories[""]
    assert len(history) == 4 and history.param_names[-1] == "spare.bias"
    assert StreamReader(tmp_path).read()[0].losses == records[0].losses


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_usual_steps_record_exactly_what_plain_pytorch_computes(tmp_path, dtype):
    """Unsampled steps (one losses() call, every parameter but `spare` with a gradient,
    and then `spare` too): each loss and each gradient norm bit-equal to .item() and
    .norm() of the loop's own tensors, in the returned record and in steps.jsonl."""
    model = TwoHeads().to(dtype)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    expected = []
    with gradviz.watch(model, out=tmp_path, every=1000) as watch:
        for step in range(6):
            x, y_depth, y_seg = batch(step, 0)
            z, losses = named_losses(model, x.to(dtype), y_depth.to(dtype), y_seg)
            if step >= 3:   # every parameter with a gradient from here on
                losses["depth"] = losses["depth"] + 0 * model.spare(z).sum()
            watch.losses(losses, features=z)
            sum(losses.values()).backward()
            record = watch.step()
            norms = {n: None if p.grad is None else p.grad.norm().item()
                     for n, p in model.named_parameters()}
            seen = {k: v.item() for k, v in losses.items()}
            present = [n for n in norms.values() if n is not None]
            want = (seen, sum(seen.values()), norms, math.sqrt(sum([n * n for n in present])))
            assert (record.losses, record.total, record.grad_norms,
                    record.global_grad_norm) == want
            expected.append(want)
            opt.step()
            opt.zero_grad()
    records = StreamReader(tmp_path).read()
    assert [(r.losses, r.total, r.grad_norms, r.global_grad_norm) for r in records] == expected
