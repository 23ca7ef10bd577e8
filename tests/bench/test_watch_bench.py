"""`gradviz bench --watch`'s loops: the watched loop is the user's loop under
gradviz.watch, its lines written at each step or in blocks, and each rate is of the
loop's own steps (a smoke test of the wiring: speed claims live in docs/benchmarks.md)."""
from __future__ import annotations

import json

import pytest
import torch

from gradviz.bench.core.watch_bench import (
    WatchBench,
    loop_rate,
    mlp_parts,
    resnet_parts,
    watch_bench,
)
from gradviz.core.watch import DEFAULT_EVERY
from gradviz.plain.config.config import Config

CPU = torch.device("cpu")


def test_a_watched_run_records_every_step_of_the_loop_it_times(tmp_path):
    parts = mlp_parts(Config(), CPU)
    for write_every, folder in ((0.0, tmp_path / "each"), (0.1, tmp_path / "blocks")):
        assert loop_rate(parts, 7, CPU, str(folder), write_every) > 0
        lines = (folder / "steps.jsonl").read_text().splitlines()
        # the timed steps, and the warm-up ones before them, each once and in order
        steps = [json.loads(line)["step"] for line in lines]
        assert steps == list(range(len(steps))) and len(steps) >= 7


def test_each_way_of_writing_is_named_in_its_row():
    parts = mlp_parts(Config(), CPU)
    each = watch_bench(parts, 3, 1, CPU)
    blocks = watch_bench(parts, 3, 1, CPU, 0.1)
    assert each.name == "default MLP" and blocks.name == "default MLP, lines every 0.1 s"
    assert each.parameters == sum(p.numel() for p in parts.model.parameters())
    assert each.bare > 0 and blocks.watched > 0


def test_the_hand_written_floor_records_the_numbers_watch_records(tmp_path):
    lines = {}
    for floor in (False, True):
        parts = mlp_parts(Config(), CPU)   # seeded: the same model and batches each time
        folder = tmp_path / ("floor" if floor else "watch")
        loop_rate(parts, 4, CPU, str(folder), floor=floor)
        lines[floor] = [json.loads(line)
                        for line in (folder / "steps.jsonl").read_text().splitlines()]
    keys = ("step", "losses", "total", "grad_norms", "global_grad_norm")
    sampled = ("saved_bytes", "saved_tensor_bytes", "graph_nodes")
    assert len(lines[True]) == len(lines[False]) >= 4
    for watched, floor in zip(lines[False], lines[True]):
        assert {k: floor[k] for k in keys} == {k: watched[k] for k in keys}
        assert isinstance(floor["wall_time"], float)
        if watched["step"] % DEFAULT_EVERY == 0:   # the sampled steps' numbers too
            assert {k: floor[k] for k in sampled} == {k: watched[k] for k in sampled}
            assert floor["junction_grad_norms"] == pytest.approx(
                watched["junction_grad_norms"], rel=1e-12)
            assert floor["cosine"] == [pytest.approx(row, rel=1e-12)
                                       for row in watched["cosine"]]
        else:
            assert "cosine" not in floor and watched["cosine"] is None
    # the first step by plain PyTorch: the batch the loop starts with, the fresh model
    parts = mlp_parts(Config(), CPU)
    x, targets = parts.batches[0]
    z = parts.trunk(x)
    losses = [loss(head(z), t) for loss, head, t in zip(parts.losses, parts.heads, targets)]
    pushes = [torch.autograd.grad(loss, z, retain_graph=True)[0] for loss in losses]
    sum(losses).backward()
    first = lines[True][0]
    assert list(first["losses"].values()) == [loss.item() for loss in losses]
    assert first["grad_norms"] == {name: p.grad.norm().item()
                                   for name, p in parts.model.named_parameters()}
    assert list(first["junction_grad_norms"].values()) == pytest.approx(
        [p.double().norm().item() for p in pushes], rel=1e-12)
    a, b = pushes[0].double().flatten(), pushes[1].double().flatten()
    assert first["cosine"][0][1] == pytest.approx((a @ b / (a.norm() * b.norm())).item(),
                                                  rel=1e-12)
    assert first["graph_nodes"] > 10 and first["saved_bytes"] > 0


def test_the_floor_is_named_in_its_row():
    parts = mlp_parts(Config(), CPU)
    assert watch_bench(parts, 3, 1, CPU, floor=True).name == "default MLP, hand-written floor"


def test_the_resnet_row_trains_the_bundled_resnet18_watched(tmp_path):
    parts = resnet_parts(Config(batch_size=2), CPU)
    assert parts.name == "ResNet-18" and len(parts.heads) == 2
    assert loop_rate(parts, 1, CPU, str(tmp_path)) > 0
    line = json.loads((tmp_path / "steps.jsonl").read_text().splitlines()[0])
    assert set(line["losses"]) == set(parts.names) and line["junction_grad_norms"]


def test_the_table_says_how_far_the_watched_mlp_runs_below_its_floor(monkeypatch, capsys):
    from gradviz.bench import command
    from gradviz.bench.core import watch_bench
    rows = [WatchBench("default MLP", 3013, 1000.0, 745.0),
            WatchBench("default MLP, lines every 0.1 s", 3013, 1000.0, 780.0),
            WatchBench("default MLP, hand-written floor", 3013, 1000.0, 783.0),
            WatchBench("ResNet-18", 11_182_155, 10.0, 9.8)]
    monkeypatch.setattr(watch_bench, "watch_benches", lambda *args: rows)
    assert command._print_watch(Config(), 1, 1, quiet=True) == 0
    out = capsys.readouterr().out
    assert "ResNet-18" in out and "98%" in out
    assert "default MLP: watched 74.5% of bare, its floor 78.3%: 3.8 points below" in out
