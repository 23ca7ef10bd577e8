"""Two recorded runs compared (plain.runs.run_comparison, what the recorded-run window and
`gradviz open A --compare B` show): the same loop twice is "the same"; a loop that adds
each loss to a running total and calls backward inside the loop (the early loss counted
again at every call) differs at step 0, told by the parameter whose norm differs most
and B's multiple of A's, as an independent computation here finds them."""
from __future__ import annotations

import pytest
import torch
from watch_loops import TwoHeads, batch, named_losses

import gradviz
from gradviz.plain.runs.recorded_run import RecordedRun
from gradviz.plain.runs.run_comparison import compare_lines

STEPS = 4


def _loop(folder, in_loop: bool) -> list[dict[str, float]]:
    """The user's loop, watched; per step each parameter's gradient norm as it saw it.
    in_loop: `total += loss; total.backward()` per loss (retain_graph but for the last)."""
    model = TwoHeads()
    model.eval()   # no dropout: two runs see the same numbers
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    norms = []
    with gradviz.watch(model, out=folder, every=1) as watch:
        for step in range(STEPS):
            z, losses = named_losses(model, *batch(step, 0))
            watch.losses(losses, features=z)
            if in_loop:
                total = 0
                for k, loss in enumerate(losses.values()):
                    total = total + loss
                    total.backward(retain_graph=k < len(losses) - 1)
            else:
                sum(losses.values()).backward()
            watch.step()
            norms.append({n: p.grad.norm().item() for n, p in model.named_parameters()
                          if p.grad is not None})
            opt.step()
            opt.zero_grad()
    return norms


def _history(folder):
    run = RecordedRun(folder)
    run.poll()
    return run.history


def test_the_same_loop_twice_is_the_same(tmp_path):
    _loop(tmp_path / "a", in_loop=False)
    _loop(tmp_path / "b", in_loop=False)
    lines = compare_lines("a", _history(tmp_path / "a"), "b", _history(tmp_path / "b"))
    assert lines[0] == "A = a · B = b"
    assert lines[1].startswith(f"same gradient norms at all {STEPS} steps")
    assert lines[2] == f"push at the features: the same at all {STEPS} steps both measured"
    assert lines[3] == f"losses: the same at all {STEPS} steps"


def test_backward_inside_the_loop_differs_at_step_0_by_the_parameter_most_apart(tmp_path):
    a = _loop(tmp_path / "sum", in_loop=False)
    b = _loop(tmp_path / "in-loop", in_loop=True)
    lines = compare_lines("sum", _history(tmp_path / "sum"), "in-loop",
                          _history(tmp_path / "in-loop"))
    # independently: at step 0 (the same weights) the parameter whose norm differs most
    gap = {n: abs(b[0][n] - a[0][n]) / max(a[0][n], b[0][n]) for n in a[0]}
    most = max(gap, key=gap.__getitem__)
    assert b[0]["depth.weight"] / a[0]["depth.weight"] == pytest.approx(2.0)   # counted twice
    assert lines[1] == (f"different gradients from step 0: {most}'s norm, B's "
                        f"{b[0][most] / a[0][most]:.3g}× A's; {STEPS} of {STEPS} steps differ")
    # the push of each loss on the features is measured loss by loss: the same while the
    # weights are (step 0), then apart as the runs' updates differ
    assert lines[2].startswith("push at the features, step 1: B's depth ")
    assert lines[3].startswith("losses: different from step 1 (depth A ")


def test_a_run_with_no_step_yet_is_waited_for(tmp_path):
    _loop(tmp_path / "a", in_loop=False)
    assert compare_lines("a", _history(tmp_path / "a"), "b", None) == [
        "A = a · B = b: b has no finished step yet"]
