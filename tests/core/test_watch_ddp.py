"""Two ranks under DistributedDataParallel (gloo, CPU, 127.0.0.1), each watched: the
bundled example runs, counts N all-reduces per step without no_sync() and 1 with it,
and each rank's stream holds the all-reduced gradient, equal to one process's."""
from __future__ import annotations

import importlib.util
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from torch.nn import functional as F

from gradviz.plain.run_files.watch_read import StreamReader, stream_folders

EXAMPLE = Path(__file__).parents[2] / "resources" / "examples" / "ddp_accumulation.py"


def _example():
    spec = importlib.util.spec_from_file_location("ddp_accumulation", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _reference_norms(ex) -> list[dict[str, float]]:
    """Per step, each parameter's gradient norm in one process given the whole batch
    (the example's weights and data; the training written here), then SGD."""
    model = ex.TwoHeads()
    norms = []
    for step in range(ex.STEPS):
        parts = [ex.micro_batch(step, r, m) for r in range(ex.WORLD) for m in range(ex.MICRO)]
        x = torch.cat([p[0] for p in parts])
        z = model.trunk(x)
        loss = (F.mse_loss(model.depth(z), torch.cat([p[1] for p in parts]))
                + F.cross_entropy(model.seg(z), torch.cat([p[2] for p in parts])))
        grads = torch.autograd.grad(loss, list(model.parameters()))
        norms.append({n: g.norm().item() for (n, _), g in zip(model.named_parameters(), grads)})
        with torch.no_grad():
            for p, g in zip(model.parameters(), grads):
                p -= ex.LR * g
    return norms


@pytest.mark.timeout(600)
def test_two_ranks_accumulate_like_one_process(tmp_path):
    done = subprocess.run([sys.executable, str(EXAMPLE), str(tmp_path)], timeout=540,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    ex = _example()
    counts = dict(re.findall(r"^(\w+): all-reduces per step \[([\d, ]+)\]", done.stdout, re.M))
    assert counts == {"without_no_sync": ", ".join([str(ex.MICRO)] * ex.STEPS),
                      "with_no_sync": ", ".join(["1"] * ex.STEPS)}
    assert done.stdout.count("full batch: yes") == 2
    expected = _reference_norms(ex)
    for mode in ex.MODES:
        streams = stream_folders(tmp_path / mode)
        assert list(streams) == ["rank-0", "rank-1"]
        for name, folder in streams.items():
            reader = StreamReader(folder)
            records = reader.read()
            assert reader.header["rank"] == int(name[5:]) and reader.header["world_size"] == 2
            assert reader.finished and reader.micro_batches == {ex.MICRO: ex.STEPS}
            assert reader.header["param_names"][0] == "trunk.0.weight"   # no "module."
            for record, want in zip(records, expected, strict=True):
                assert record.grad_norms == pytest.approx(want, rel=1e-5)
                assert record.global_grad_norm == pytest.approx(
                    math.sqrt(sum(v * v for v in want.values())), rel=1e-5)
                assert set(record.junction_grad_norms) == {"depth", "seg"}
