"""The generated program's parts a reader reuses: model(x) runs the forward the loop
spells out, the micro-batch loop keeps the step's x and targets, running_loss is read."""
from __future__ import annotations

import ast
import subprocess
import sys

import pytest
import torch

from gradviz.plain.config.config import Config
from gradviz.plain.program.loop_code import loop_code
from gradviz.plain.program.script import LOOP_MARK, script_text

BASE = Config(device="cpu", heads=3, trunk_width=8, trunk_depth=2, batch_size=16, steps=2)


def definitions(cfg: Config) -> dict:
    """The script's names before its training loop: model, data and helpers."""
    text = script_text(cfg)
    names: dict = {"__name__": "gradviz_script"}
    exec(compile(text[:text.index(LOOP_MARK)], "script", "exec"), names)  # noqa: S102
    return names


@pytest.mark.parametrize("model", ["mlp", "rnn"])
def test_model_x_is_the_forward_the_loop_runs(model):
    names = definitions(BASE.replace(model=model))
    torch.manual_seed(0)
    net = (names["MultiHeadNet"](heads=3, width=8, depth=2) if model == "mlp"
           else names["MultiHeadNet"](heads=3, width=8))
    x = names["X"][:5]
    if model == "mlp":
        got = net(x)
        z = net.trunk(x)
    else:
        got, h = net(x)
        z, h_expected = net.trunk(x, torch.zeros(5, 8))
        assert torch.equal(h, h_expected)
    expected = [head(z) for head in net.heads]
    assert len(got) == 3
    assert all(torch.equal(g, e) for g, e in zip(got, expected))


def _assigned(tree: ast.AST) -> list[str]:
    """Every name a for loop binds."""
    return [n.id for node in ast.walk(tree) if isinstance(node, ast.For)
            for n in ast.walk(node.target) if isinstance(n, ast.Name)]


@pytest.mark.parametrize("mode", ["backward-each", "sum-first"])
def test_the_micro_batch_loop_does_not_rebind_the_steps_batch(mode):
    tree = ast.parse(loop_code(BASE.replace(accumulate=2, accumulate_mode=mode)))
    bound = _assigned(tree)
    assert "x_mb" in bound and "targets_mb" in bound
    assert "x" not in bound and "targets" not in bound


def test_running_loss_is_read_and_is_the_sum_of_the_logged_totals(tmp_path):
    cfg = BASE.replace(steps=3)
    path = tmp_path / "loop.py"
    path.write_text(script_text(cfg), encoding="utf-8")
    done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    # the printout's last number on each line is that step's total (sum of w_k * L_k)
    totals = [float(line.split()[-1]) for line in done.stdout.splitlines()]
    assert len(totals) == 3
    said = [line for line in done.stderr.splitlines() if line.startswith("running_loss:")]
    assert len(said) == 1
    assert float(said[0].split()[-1]) == pytest.approx(sum(totals), rel=1e-5)
