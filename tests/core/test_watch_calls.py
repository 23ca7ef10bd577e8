"""A watched step of several losses() calls, each step's numbers against those computed
here: micro-batches of unequal sizes with weights (the whole batch's losses, the total
of weight x loss), calls naming different losses (one weighted, one not), a call with a
size beside one without (equal shares), a loss of the run not named in a step (NaN, left
out of the total), sampled and unsampled steps alike; the calls refused, each in one
sentence; and a watch that records nothing (an unwritable folder, a closed watch)."""
from __future__ import annotations

import json
import math

import pytest
import torch
from torch import nn
from torch.nn import functional as F

import gradviz
from gradviz.core import watch as watch_module

BATCH = 8


def _data(seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(BATCH, 3, generator=g), torch.randn(BATCH, 2, generator=g)


def _losses(out: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return F.mse_loss(out[:, 0], y[:, 0]), (out[:, 1] - y[:, 1]).abs().mean()


def _model() -> nn.Linear:
    torch.manual_seed(2)
    return nn.Linear(3, 2)


def _whole(model, x, y) -> tuple[float, float]:
    with torch.no_grad():
        a, b = _losses(model(x), y)
    return a.item(), b.item()


@pytest.mark.parametrize("every", [1, 2])   # step 1 sampled, or not
def test_weighted_micro_batches_of_unequal_sizes_give_the_whole_batchs_numbers(
        tmp_path, every):
    model = _model()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with gradviz.watch(model, out=tmp_path / "run", every=every, strict=True) as watch:
        for step in range(2):
            x, y = _data(step)
            expected = _whole(model, x, y)
            at = 0
            for n in (6, 2):
                a, b = _losses(model(x[at:at + n]), y[at:at + n])
                watch.losses({"a": a, "b": b}, weights={"a": 0.5}, batch_size=n)
                ((0.5 * a + b) * n / BATCH).backward()
                at += n
            record = watch.step()
            assert record.losses == pytest.approx(dict(zip("ab", expected)), rel=1e-6)
            assert record.total == pytest.approx(0.5 * expected[0] + expected[1], rel=1e-6)
            assert record.loss_weights == pytest.approx({"a": 0.5, "b": 1.0})
            opt.step()
            opt.zero_grad()


def test_two_equal_micro_batches_at_an_unsampled_step_are_their_mean(tmp_path):
    model = _model()
    with gradviz.watch(model, out=tmp_path / "run", every=2, strict=True) as watch:
        for step in range(2):
            x, y = _data(step)
            halves = []
            for part in (slice(0, 4), slice(4, 8)):
                a, b = _losses(model(x[part]), y[part])
                watch.losses({"a": a, "b": b})
                ((a + b) / 2).backward()
                halves.append((a.item(), b.item()))
            record = watch.step()
            norms = {name: p.grad.norm().item() for name, p in model.named_parameters()}
            model.zero_grad()
    mean = {"a": (halves[0][0] + halves[1][0]) / 2, "b": (halves[0][1] + halves[1][1]) / 2}
    assert record.step == 1 and record.losses == pytest.approx(mean, rel=1e-6)
    assert record.grad_norms == pytest.approx(norms, rel=1e-6)


def test_a_weighted_call_at_an_unsampled_step_totals_weight_times_loss(tmp_path):
    model = _model()
    with gradviz.watch(model, out=tmp_path / "run", every=2, strict=True) as watch:
        for step in range(2):
            a, b = _losses(model(_data(step)[0]), _data(step)[1])
            watch.losses({"a": a, "b": b}, weights={"a": 3.0})
            (3.0 * a + b).backward()
            record = watch.step()
            model.zero_grad()
    assert record.step == 1
    assert record.total == pytest.approx(3.0 * a.item() + b.item(), rel=1e-6)
    assert record.loss_weights == {"a": 3.0, "b": 1.0}


@pytest.mark.parametrize("every", [1, 2])
def test_a_loss_not_named_in_a_step_is_nan_and_left_out_of_the_total(tmp_path, every):
    model = _model()
    with gradviz.watch(model, out=tmp_path / "run", every=every, strict=True) as watch:
        for step in range(2):
            a, b = _losses(model(_data(step)[0]), _data(step)[1])
            named = {"a": a, "b": b} if step == 0 else {"a": a}
            watch.losses(named)
            sum(named.values()).backward()
            record = watch.step()
            model.zero_grad()
    assert record.step == 1 and math.isnan(record.losses["b"])
    assert record.losses["a"] == pytest.approx(a.item(), rel=1e-6)
    assert record.total == pytest.approx(a.item(), rel=1e-6)


def test_a_call_that_gives_weights_and_one_that_gives_none_weigh_1(tmp_path):
    """A GAN's step: the discriminator's loss weighted 2, the generator's not."""
    model = _model()
    with gradviz.watch(model, out=tmp_path / "run", strict=True) as watch:
        x, y = _data()
        d, g = _losses(model(x), y)
        watch.losses({"d": d}, weights={"d": 2.0})
        watch.losses({"g": g})
        (2.0 * d + g).backward()
        record = watch.step()
    assert record.loss_weights == {"d": 2.0, "g": 1.0}
    assert record.total == pytest.approx(2.0 * d.item() + g.item(), rel=1e-6)


def test_a_call_without_a_size_makes_every_call_an_equal_share(tmp_path):
    model = _model()
    with gradviz.watch(model, out=tmp_path / "run", strict=True) as watch:
        x, y = _data()
        parts = []
        for part, size in ((slice(0, 6), 6), (slice(6, 8), None)):
            a, b = _losses(model(x[part]), y[part])
            watch.losses({"a": a, "b": b}, batch_size=size)
            (a + b).backward()
            parts.append(a.item())
        record = watch.step()
    assert record.losses["a"] == pytest.approx((parts[0] + parts[1]) / 2, rel=1e-6)


@pytest.mark.parametrize("every", [1, 2])
def test_a_loss_of_one_element_is_taken_as_a_scalar(tmp_path, every):
    model = _model()
    with gradviz.watch(model, out=tmp_path / "run", every=every, strict=True) as watch:
        for step in range(2):
            a, b = _losses(model(_data(step)[0]), _data(step)[1])
            watch.losses({"a": a.reshape(1), "b": b})
            (a + b).backward()
            record = watch.step()
            model.zero_grad()
            assert record.losses == pytest.approx({"a": a.item(), "b": b.item()})


def _one_step(watch, model) -> None:
    a, b = _losses(model(_data()[0]), _data()[1])
    watch.losses({"a": a, "b": b})
    (a + b).backward()
    watch.step()


@pytest.mark.parametrize("kwargs, words", [
    ({"losses": {}}, "takes a dict of names to scalar loss tensors"),
    ({"weights": {"c": 1.0}}, "names 'c', which is not one of this call's losses"),
    ({"weights": {"a": True}}, "got bool for 'a': a weight is a float or a 0-dim tensor"),
    ({"weights": {"a": torch.ones(2)}}, "got Tensor for 'a'"),
    ({"batch_size": 0}, "must be a whole number above 0, not 0"),
    ({"batch_size": True}, "must be a whole number above 0, not True"),
])
def test_a_call_the_watch_cannot_take_is_refused_in_one_sentence(tmp_path, kwargs, words):
    """Also where the call names the run's losses as the usual call does."""
    model = _model()
    watch = gradviz.watch(model, out=tmp_path / "run", strict=True)
    _one_step(watch, model)
    a, b = _losses(model(_data()[0]), _data()[1])
    losses = kwargs.pop("losses", {"a": a, "b": b})
    with pytest.raises(gradviz.WatchError, match=words):
        watch.losses(losses, **kwargs)
    watch.close()


def test_an_optimizer_stepping_with_no_losses_since_records_nothing_and_says_nothing(
        tmp_path):
    """Two optimizers (a GAN's): the first's step records the step, the second's finds
    no losses() since and is no step of its own."""
    d, g = _model(), _model()
    models = nn.ModuleDict({"d": d, "g": g})
    opt_d, opt_g = (torch.optim.SGD(m.parameters(), lr=0.1) for m in (d, g))
    with gradviz.watch(models, out=tmp_path / "run", optimizer=[opt_d, opt_g],
                       strict=True) as watch:
        for step in range(2):
            x, y = _data(step)
            ld, lg = _losses(d(x), y)[0], _losses(g(x), y)[1]
            watch.losses({"d": ld, "g": lg})
            (ld + lg).backward()
            opt_d.step()
            opt_g.step()
            models.zero_grad()
    assert watch.steps == 2


def test_a_sampled_step_records_each_gradients_fingerprint_and_an_unsampled_one_not(
        tmp_path, monkeypatch):
    import gradviz.core.watch as watch_module  # as one of two ranks (one process has none)
    monkeypatch.setattr(watch_module, "rank_and_world", lambda: (0, 2))
    model = _model()
    records = []
    with gradviz.watch(model, out=tmp_path / "run", every=2, strict=True) as watch:
        for step in range(2):
            a, b = _losses(model(_data(step)[0]), _data(step)[1])
            watch.losses({"a": a, "b": b})
            (a + b).backward()
            records.append(watch.step())
            model.zero_grad()
    assert set(records[0].grad_fingerprint) == {"weight", "bias"}
    assert records[1].grad_fingerprint is None


def test_the_saved_tensors_peak_is_the_largest_micro_batchs(tmp_path):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 2))
    x, y = torch.randn(48, 3), torch.randn(48, 2)
    with gradviz.watch(model, out=tmp_path / "run", strict=True) as watch:
        at = 0
        for n in (40, 8):
            a, b = _losses(model(x[at:at + n]), y[at:at + n])
            watch.losses({"a": a, "b": b}, batch_size=n)
            ((a + b) * n / 48).backward()
            at += n
        record = watch.step()
    assert record.saved_bytes_peak > record.saved_bytes > 0
    assert record.saved_tensor_bytes_peak > record.saved_tensor_bytes > 0


@pytest.mark.parametrize("every", [1, 3])   # each step sampled, or only the first
def test_a_call_naming_every_loss_in_another_order_keeps_each_loss_s_name(tmp_path, every):
    model = _model()
    expected = []
    with gradviz.watch(model, out=tmp_path / "run", every=every, strict=True) as watch:
        for step in range(3):
            x, y = _data(step)
            a, b = _losses(model(x), y)
            watch.losses({"a": a, "b": b} if step == 0 else {"b": b, "a": a})
            (a + b).backward()
            record = watch.step()
            expected.append({"a": a.item(), "b": b.item()})
            assert record is not None and record.losses == expected[-1]
            assert list(record.losses) == ["a", "b"]   # the run's order, as its columns
            model.zero_grad()
    lines = (tmp_path / "run" / "steps.jsonl").read_text().splitlines()
    assert [json.loads(line)["losses"] for line in lines] == expected


def test_a_failed_step_is_said_and_counted_and_the_next_is_recorded(tmp_path, monkeypatch,
                                                                   capsys):
    real = watch_module.global_norm   # every recorded step's, sampled or not
    calls = []

    def fails_once(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise ArithmeticError("a fault of the watch's")
        return real(*args, **kwargs)
    monkeypatch.setattr(watch_module, "global_norm", fails_once)
    model = _model()
    with gradviz.watch(model, out=tmp_path / "run", every=1) as watch:
        steps = []
        for _ in range(2):
            a, b = _losses(model(_data()[0]), _data()[1])
            watch.losses({"a": a, "b": b})
            (a + b).backward()
            record = watch.step()
            steps.append(None if record is None else record.step)
    assert steps == [None, 1]
    assert "gradviz: watch.step() failed at step 0" in capsys.readouterr().err


def test_an_unwritable_folder_records_nothing_and_says_so_once(tmp_path, capsys):
    (tmp_path / "file").write_text("")
    model = _model()
    watch = gradviz.watch(model, out=tmp_path / "file" / "run")
    a, b = _losses(model(_data()[0]), _data()[1])
    watch.losses({"a": a, "b": b})
    (a + b).backward()
    assert watch.step() is None
    watch.close()
    lines = [line for line in capsys.readouterr().err.splitlines()
             if line.startswith("gradviz:")]
    assert len(lines) == 1 and "cannot write the run folder" in lines[0]


def test_a_closed_watch_takes_no_more_calls_and_says_nothing_of_them(tmp_path, capsys):
    model = _model()
    watch = gradviz.watch(model, out=tmp_path / "run")
    _one_step(watch, model)
    watch.close()
    watch.losses({"a": torch.ones(3)})   # not a scalar: said, were the watch open
    assert watch.step() is None
    assert "gradviz:" not in capsys.readouterr().err


def test_a_model_without_parameters_is_recorded_with_no_gradient_norm(tmp_path):
    """Its losses only (a loss of the input alone): every step's line is read back,
    the unsampled ones too."""
    from gradviz.plain.run_files.watch_read import StreamReader

    class Doubling(nn.Module):
        def forward(self, x):
            return x * 2

    model = Doubling()
    with gradviz.watch(model, out=tmp_path / "run", every=2, strict=True) as watch:
        for _ in range(2):
            loss = model(torch.ones(3, requires_grad=True)).sum()
            watch.losses({"l": loss})
            loss.backward()
            watch.step()
    read = StreamReader(tmp_path / "run").read()
    assert [(r.step, r.losses, r.global_grad_norm) for r in read] == [
        (0, {"l": 6.0}, None), (1, {"l": 6.0}, None)]


def test_calls_naming_the_losses_one_by_one_at_an_unsampled_step_keep_their_names(tmp_path):
    """A GAN's step after the first: the generator's loss said first, then the
    discriminator's; each number goes to its own name."""
    model = _model()
    with gradviz.watch(model, out=tmp_path / "run", every=2, strict=True) as watch:
        for step in range(2):
            a, b = _losses(model(_data(step)[0]), _data(step)[1])
            if step == 0:
                watch.losses({"a": a, "b": b})
            else:
                watch.losses({"b": b})
                watch.losses({"a": a})
            (a + b).backward()
            record = watch.step()
            model.zero_grad()
    assert record.step == 1
    assert record.losses == pytest.approx({"a": a.item(), "b": b.item()}, rel=1e-6)


def test_a_recording_stopped_before_any_step_is_said_once_not_as_a_missing_step(
        tmp_path, capsys, monkeypatch):
    import errno

    from gradviz.plain.run_files.watch_stream import StreamWriter

    def full(self):
        raise OSError(errno.ENOSPC, "No space left on device")
    model = _model()
    watch = gradviz.watch(model, out=tmp_path / "run", write_every=0.5)
    monkeypatch.setattr(StreamWriter, "flush", full)
    watch.flush()
    watch.close()
    lines = [line for line in capsys.readouterr().err.splitlines()
             if line.startswith("gradviz:")]
    assert len(lines) == 1 and "is full" in lines[0]
