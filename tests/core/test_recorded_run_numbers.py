"""What a recorded run's window shows (plain.runs.recorded_run's history), and the
metrics.csv a watch writes, equal an independent computation written here: each step's
losses, total, gradient norms, each loss's push at the features and the bytes its
graph saved. And a
`gradviz run --out` folder opens the same way."""
from __future__ import annotations

import csv
import math

import numpy as np
import pytest
import torch
from torch.nn import functional as F
from watch_loops import TwoHeads, batch, named_losses

import gradviz
from gradviz.app import main
from gradviz.plain.runs.recorded_run import RecordedRun

from core_reference import SavedTracker

STEPS = 4


def _push(model, x, y_depth, y_seg) -> list[float]:
    """Each loss's gradient norm at the trunk's output, on a leaf copy of it."""
    z = model.trunk(x).detach().requires_grad_()
    losses = (F.mse_loss(model.depth(z), y_depth), F.cross_entropy(model.seg(z), y_seg))
    return [torch.autograd.grad(loss, z, retain_graph=True)[0].double().norm().item()
            for loss in losses]


def _saved(model, data) -> int:
    """Bytes the step's graph holds for backward, from saved-tensor hooks on a re-run."""
    tracker = SavedTracker(model)
    with tracker.tracking():
        _, losses = named_losses(model, *data)   # held: the graph lives while counted
        return tracker.bytes_held()


def _watched_run(folder) -> list[dict]:
    model = TwoHeads()
    model.eval()   # no dropout: the push's reference re-runs the forward
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    expected = []
    with gradviz.watch(model, out=folder, every=2) as watch:
        for step in range(STEPS):
            data = batch(step, 0)
            sampled = step % 2 == 0
            push = _push(model, *data) if sampled else None
            saved = _saved(model, data) if sampled else None
            z, losses = named_losses(model, *data)
            watch.losses(losses, features=z)
            sum(losses.values()).backward()
            watch.step()
            expected.append({"losses": {k: v.item() for k, v in losses.items()},
                             "norms": {n: None if p.grad is None else p.grad.norm().item()
                                       for n, p in model.named_parameters()},
                             "push": push, "saved": saved})
            opt.step()
            opt.zero_grad()
    return expected


def test_the_window_and_metrics_csv_show_the_loops_numbers(tmp_path):
    expected = _watched_run(tmp_path)
    run = RecordedRun(tmp_path)
    assert run.poll().new_steps == STEPS
    history = run.history
    assert history is not None and history.head_names == ["depth", "seg"]
    rows = list(csv.DictReader(open(tmp_path / "metrics.csv", newline="")))
    assert len(rows) == STEPS
    for i, (want, row) in enumerate(zip(expected, rows, strict=True)):
        shown = dict(zip(history.head_names, history.column("losses")[i]))
        for name, value in want["losses"].items():
            assert shown[name] == pytest.approx(value, rel=1e-6)
            assert float(row[f"loss.{name}"]) == pytest.approx(value, rel=1e-6)
        assert history.column("total")[i] == pytest.approx(sum(want["losses"].values()))
        for j, param in enumerate(history.param_names):
            norm = want["norms"][param]
            cell, drawn = row[f"grad_norm.{param}"], history.column("grad_norms")[i, j]
            if norm is None:   # `spare` is never used: no gradient, not a zero one
                assert cell == "" and math.isnan(drawn)
                assert history.column("grad_missing")[i, j] == 1.0
            else:
                assert drawn == pytest.approx(norm, rel=1e-5)
                assert float(cell) == pytest.approx(norm, rel=1e-5)
        junction = history.column("junction")[i]
        if want["push"] is None:   # not a sampled step
            assert np.isnan(junction).all() and row["junction_grad_norm.depth"] == ""
        else:
            assert junction == pytest.approx(want["push"], rel=1e-5)
            assert float(row["junction_grad_norm.seg"]) == pytest.approx(want["push"][1],
                                                                         rel=1e-5)
        assert row["micro_batches"] == "1"
        # the most the graph held (the Memory tab's peak); what it holds at the step's
        # end a watch does not measure: not drawn as if it had
        assert math.isnan(history.column("saved_bytes")[i])
        peak = history.column("saved_bytes_peak")[i]
        assert (math.isnan(peak) if want["saved"] is None else peak == want["saved"])


def test_a_run_out_folder_opens_as_a_watched_one_does(tmp_path):
    out = tmp_path / "out"
    assert main(["run", "--steps", "3", "--out", str(out), "-q"]) == 0
    run = RecordedRun(out)
    found = run.poll()
    assert found.problem is None and run.history is not None
    rows = list(csv.DictReader(open(out / "metrics.csv", newline="")))
    assert list(run.history.column("total")) == [float(r["total"]) for r in rows]
    assert run.status().startswith(f"{out}: 3 steps (0 to 2); finished")
    # its last step's graph, drawn from graph.json: a box for each parameter the
    # report has a gradient norm of
    graph = found.graph
    assert graph is not None and run.graph_step == 2
    params = {n.label for n in graph.nodes if n.kind == "param"}
    assert params == set(run.history.param_names) and len(params) > 2
