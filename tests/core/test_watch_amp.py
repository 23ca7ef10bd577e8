"""AMP edge cases, in process: a scale so large that the scaled gradients' norm passes
float32's range (each element finite) is no skipped step, and an overflow the
GradScaler skips is recorded as skipped with its scale; the report says both."""
from __future__ import annotations

import pytest
import torch

import gradviz
from gradviz.plain.run_files.watch_read import StreamReader
from gradviz.plain.runs.watch_summary import summary_lines

BIG = 2.0 ** 126   # the scaled gradients' norms pass float32's range; no element does


def _loop(model, scaler, watch=None, steps=4, overflow_at=2):
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    seen = []
    for step in range(steps):
        g = torch.Generator().manual_seed(step)
        x = torch.randn(8, 4, generator=g) * (3e38 if step == overflow_at else 1.0)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            out = model(x)
        losses = {"a": out[:, 0].float().pow(2).mean(), "b": out[:, 1].float().abs().mean()}
        if watch is not None:
            watch.losses(losses)
        scaler.scale(losses["a"] + losses["b"]).backward()
        scale = scaler.get_scale()
        if watch is not None:
            watch.step()
        scaler.unscale_(opt)
        found = bool(sum(t.item() for t in
                         scaler._per_optimizer_states[id(opt)]["found_inf_per_device"]
                         .values()))
        norms = [torch.linalg.vector_norm(p.grad, dtype=torch.float64).item()
                 for p in model.parameters()]
        seen.append((scale, found, norms))
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()
    return seen


def _model():
    torch.manual_seed(0)
    return torch.nn.Linear(4, 2)


def test_a_huge_scale_is_not_a_skip_and_an_overflow_is(tmp_path):
    bare = _model()
    seen = _loop(bare, torch.amp.GradScaler("cpu", init_scale=BIG))
    model, scaler = _model(), torch.amp.GradScaler("cpu", init_scale=BIG)
    with gradviz.watch(model, out=tmp_path / "run", scaler=scaler, strict=True) as watch:
        seen_w = _loop(model, scaler, watch)
    assert all(torch.equal(p, q) for p, q in zip(bare.parameters(), model.parameters()))
    assert [s[:2] for s in seen] == [s[:2] for s in seen_w]
    found = [f for _, f, _ in seen]
    assert found == [False, False, True, False]   # the overflow at step 2, only
    records = StreamReader(tmp_path / "run").read()
    assert [r.amp_skipped for r in records] == found
    assert [r.amp_scale for r in records] == [scale for scale, _, _ in seen]
    for r, (_, skipped, norms) in zip(records, seen):
        if not skipped:   # the unscaled norms, measured by the loop itself
            assert list(r.grad_norms.values()) == pytest.approx(norms, rel=1e-6)
    report = summary_lines(tmp_path / "run")
    assert report[2] == (f"  AMP: scale {records[-1].amp_scale:.4g} at the last step; 1 of "
                         "4 steps skipped by the GradScaler (an inf or a NaN among the "
                         "gradients), the last at step 2"), report
