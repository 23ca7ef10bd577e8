"""gradviz.lightning.WatchCallback on a real Lightning Trainer (CPU): a two-loss module
fitted with and without gradient accumulation, its recording checked against the same
model, data and optimizer trained by a plain-PyTorch loop written here (losses and
gradient norms bit-equal; the push and cosines, computed apart in float64, to 1e-12),
one recorded step per optimizer step; a fit that raises, or is stopped by Ctrl+C, ends
its stream so and leaves the module as it was; docs/watch.md's example runs as written."""
from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from torch import nn
from torch.nn import functional as F
from torch.utils.data import DataLoader, TensorDataset

L = pytest.importorskip("lightning", reason="the lightning extra: pip install -e '.[lightning]'")

from gradviz.lightning import WatchCallback  # noqa: E402
from gradviz.plain.run_files.watch_read import StreamReader  # noqa: E402

BATCH, EXAMPLES = 4, 64


def _data() -> TensorDataset:
    g = torch.Generator().manual_seed(11)
    return TensorDataset(torch.randn(EXAMPLES, 5, generator=g),
                         torch.randn(EXAMPLES, 1, generator=g),
                         torch.randint(0, 3, (EXAMPLES,), generator=g))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(2)
        self.trunk = nn.Sequential(nn.Linear(5, 8), nn.Tanh())
        self.reg, self.cls = nn.Linear(8, 1), nn.Linear(8, 3)


def _losses(net, x, y_reg, y_cls):
    z = net.trunk(x)
    return z, {"reg": F.mse_loss(net.reg(z), y_reg), "cls": F.cross_entropy(net.cls(z), y_cls)}


class TwoLosses(L.LightningModule):
    def __init__(self, fail_at: int | None = None):
        super().__init__()
        self.net = Net()
        self.fail_at = fail_at
        self.optimizer_steps = 0

    def training_step(self, batch, batch_idx):
        if batch_idx == self.fail_at:
            raise RuntimeError("the data ran dry")
        _, losses = _losses(self.net, *batch)
        return {"loss": losses["reg"] + losses["cls"], "losses": losses}

    def configure_optimizers(self):
        opt = torch.optim.SGD(self.net.parameters(), lr=0.1, momentum=0.9)
        opt.register_step_post_hook(lambda *_: setattr(self, "optimizer_steps",
                                                       self.optimizer_steps + 1))
        return opt


def _fit(module, steps, accumulate, callbacks):
    trainer = L.Trainer(accelerator="cpu", max_steps=steps, accumulate_grad_batches=accumulate,
                        logger=False, enable_checkpointing=False, enable_progress_bar=False,
                        enable_model_summary=False, callbacks=callbacks)
    trainer.fit(module, DataLoader(_data(), batch_size=BATCH, shuffle=False))
    return trainer


def _plain_loop(steps, accumulate):
    """The same fit, written out: per step (losses as the mean over the micro-batches,
    each parameter's gradient norm before the optimizer step, the pushes' Gram matrix
    in float64 summed over the micro-batches), and the final parameters."""
    net = Net()
    opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    batches = iter(DataLoader(_data(), batch_size=BATCH, shuffle=False))
    seen = []
    for _ in range(steps):
        values, gram = {"reg": [], "cls": []}, torch.zeros(2, 2, dtype=torch.float64)
        opt.zero_grad()
        for _ in range(accumulate):
            z, losses = _losses(net, *next(batches))
            pushes = [torch.autograd.grad(v, z, retain_graph=True)[0].double().reshape(-1)
                      for v in losses.values()]
            gram += torch.stack(pushes) @ torch.stack(pushes).T
            for name, v in losses.items():
                values[name].append(v.item())
            ((losses["reg"] + losses["cls"]) / accumulate).backward()
        norms = {n: p.grad.norm().item() for n, p in net.named_parameters()}
        seen.append(({k: sum(v) / accumulate for k, v in values.items()}, norms, gram))
        opt.step()
    return seen, dict(net.named_parameters())


@pytest.mark.parametrize("accumulate", [1, 3])
def test_a_lightning_fit_is_recorded_as_the_plain_loop_computes_it(tmp_path, accumulate):
    steps = 5
    module = TwoLosses()
    callback = WatchCallback(out=tmp_path / "run", features="net.trunk", every=2, strict=True)
    trainer = _fit(module, steps, accumulate, [callback])
    seen, params = _plain_loop(steps, accumulate)

    # the watch changed nothing Lightning computed: the fit ends where the plain loop does
    for name, p in module.net.named_parameters():
        assert torch.equal(p, params[name]), name
    assert "training_step" not in vars(module)   # the wrapper is gone with the fit
    assert module.optimizer_steps == trainer.global_step == steps

    reader = StreamReader(tmp_path / "run")
    records = reader.read()
    assert reader.header["ended"] == {"how": "finished"}
    assert [r.step for r in records] == list(range(steps))   # one per optimizer step
    assert reader.micro_batches == {accumulate: steps}   # losses() calls a step: steps
    for record, (losses, norms, gram) in zip(records, seen):
        assert record.losses == losses
        assert record.total == losses["reg"] + losses["cls"]
        assert record.grad_norms == {f"net.{n}": v for n, v in norms.items()}
        if record.step % 2:
            assert record.junction_grad_norms is None and record.cosine is None
            continue
        push = [math.sqrt(gram[k, k].item()) for k in range(2)]
        assert list(record.junction_grad_norms.values()) == pytest.approx(push, rel=1e-12)
        assert record.cosine[0][1] == pytest.approx(
            gram[0, 1].item() / (push[0] * push[1]), rel=1e-12)


def test_a_fit_that_raises_ends_its_stream_with_the_exception(tmp_path):
    module = TwoLosses(fail_at=3)
    with pytest.raises(RuntimeError, match="the data ran dry"):
        _fit(module, 5, 1, [WatchCallback(out=tmp_path / "run", features="net.trunk")])
    reader = StreamReader(tmp_path / "run")
    assert [r.step for r in reader.read()] == [0, 1, 2]
    assert reader.header["ended"] == {"how": "exception",
                                      "what": "RuntimeError: the data ran dry"}
    assert "training_step" not in vars(module)
    assert not (tmp_path / "run" / "watch.lock").exists()
    json.loads((tmp_path / "run" / "watch.json").read_text())   # whole, rewritten at the end


def test_a_module_without_named_losses_is_recorded_as_one_loss(tmp_path, capfd):
    class OneLoss(TwoLosses):
        def training_step(self, batch, batch_idx):
            _, losses = _losses(self.net, *batch)
            return losses["reg"] + losses["cls"]

    module = OneLoss()
    _fit(module, 2, 1, [WatchCallback(out=tmp_path / "run")])
    records = StreamReader(tmp_path / "run").read()
    assert [list(r.losses) for r in records] == [["loss"], ["loss"]]
    said = [line for line in capfd.readouterr().err.splitlines() if line.startswith("gradviz:")]
    assert len(said) == 1 and "no 'losses' dict" in said[0]


def test_the_docs_lightning_example_runs_as_written(tmp_path):
    text = (Path(__file__).resolve().parents[2] / "docs" / "watch.md").read_text()
    section = text[text.index("## Lightning"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, timeout=600,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    reader = StreamReader(tmp_path / "runs" / "lightning")
    records = reader.read()
    assert [r.step for r in records] == list(range(50)) and reader.finished
    assert reader.micro_batches == {2: 50}   # losses() calls a step: steps
    assert [r.step for r in records if r.cosine] == [0, 10, 20, 30, 40]
    assert "gradviz:" not in done.stderr


INTERRUPTED_FIT = """
import sys
sys.path.insert(0, {tests!r})
import test_watch_lightning as t

class Interrupted(t.TwoLosses):
    def training_step(self, batch, batch_idx):
        if batch_idx == 2:
            raise KeyboardInterrupt   # what Ctrl+C raises in the fit's thread
        return super().training_step(batch, batch_idx)

module = Interrupted()
try:
    t._fit(module, 5, 1, [t.WatchCallback(out={out!r}, features="net.trunk")])
finally:
    print("training_step" in vars(module))
"""


def test_ctrl_c_in_a_fit_ends_its_stream_by_sigint(tmp_path):
    """Lightning catches the KeyboardInterrupt (on_exception, then exit status 1, and
    SIGINT ignored from then on: hence a process of its own)."""
    code = INTERRUPTED_FIT.format(tests=str(Path(__file__).parent), out=str(tmp_path / "run"))
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, timeout=600,
                          capture_output=True, text=True)
    assert done.returncode == 1, done.stderr[-2000:]
    assert done.stdout.splitlines()[-1] == "False"
    reader = StreamReader(tmp_path / "run")
    assert [r.step for r in reader.read()] == [0, 1]
    assert reader.header["ended"] == {"how": "signal", "what": "SIGINT (Ctrl+C)"}
    assert reader.state == "ended by a signal (SIGINT (Ctrl+C))"


def test_a_training_step_set_on_the_instance_is_watched_and_put_back(tmp_path):
    module = TwoLosses()
    own = module.training_step   # a user's own per-instance step (a bound method here)
    module.training_step = own
    _fit(module, 2, 1, [WatchCallback(out=tmp_path / "run", strict=True)])
    assert vars(module)["training_step"] is own
    assert [list(r.losses) for r in StreamReader(tmp_path / "run").read()] == \
        [["reg", "cls"], ["reg", "cls"]]
