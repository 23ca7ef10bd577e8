"""A wrong call to gradviz.watch is one `gradviz:` line on stderr, said once, named at the
first step, and the training goes on: the steps after it are recorded as if it had not
been made (strict=True raises gradviz.WatchError with the same line instead)."""
from __future__ import annotations

import re

import pytest
import torch

import gradviz
from gradviz.plain.run_files.watch_read import StreamReader


def _gradviz_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("gradviz:")]


def _two_losses(model, step):
    out = model(torch.full((4, 3), float(step)))
    return out, out[:, 0].mean(), out[:, 1].pow(2).mean()


def test_a_refused_losses_call_is_one_line_and_the_steps_are_recorded(tmp_path, capsys):
    model = torch.nn.Linear(3, 2)
    expected = []
    with gradviz.watch(model, out=tmp_path) as watch:
        for step in range(3):
            out, a, b = _two_losses(model, step)
            watch.losses({"a": a, "b": out[:, 1]})   # b is not a scalar
            if step:
                watch.losses({"c": a})               # a name the first step did not use
            watch.losses({"a": a, "b": b})
            (a + b).backward()
            record = watch.step()
            assert record is not None
            assert record.losses == {"a": a.item(), "b": b.item()}
            expected.append({"a": a.item(), "b": b.item()})
            model.zero_grad()
    assert [r.losses for r in StreamReader(tmp_path).read()] == expected
    assert _gradviz_lines(capsys.readouterr().err) == [
        "gradviz: watch.losses() got a tensor of shape (4,) for 'b': each loss must be a "
        "scalar tensor (e.g. loss.mean()); this call is not recorded (the training goes on)",
        "gradviz: watch.losses() got 'c', a loss the run's first step did not name (its "
        "losses: ['a', 'b']); name every loss in the first step; this call is not recorded "
        "(the training goes on)"]


@pytest.mark.parametrize("value", [-0.1, 61, True, "0.1", float("nan")])
def test_a_write_spacing_that_is_not_seconds_is_named_and_nothing_is_written(
        tmp_path, value, capsys):
    watch = gradviz.watch(torch.nn.Linear(3, 2), out=tmp_path / "run", write_every=value)
    watch.close()
    assert _gradviz_lines(capsys.readouterr().err) == [
        f"gradviz: watch's write_every must be seconds from 0 to 60, not {value!r}; this "
        "run is not recorded (the training goes on)"]
    assert not (tmp_path / "run").exists()
    with pytest.raises(gradviz.WatchError, match="write_every must be seconds"):
        gradviz.watch(torch.nn.Linear(3, 2), out=tmp_path / "run", write_every=value,
                      strict=True)


def _loop(watch, model, steps, misuse):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(steps):
        out, a, b = _two_losses(model, step)
        if misuse == "after-backward":
            (a + b).backward()
            watch.losses({"a": a, "b": b}, features=out)
        elif misuse == "features-unreached":
            watch.losses({"a": a, "b": b}, features=torch.ones(3, requires_grad=True) * 2)
            (a + b).backward()
        else:
            watch.losses({"a": a, "b": b})
            (a + b).backward()
        if misuse != "no-step":
            watch.step()
        if misuse == "step-twice":
            watch.step()
        opt.step()
        opt.zero_grad()


MISUSE_LINES = {
    "after-backward": "gradviz: watch.losses() came after backward (the step's graph was "
                      "already freed): call watch.losses before backward; this step's push "
                      "and memory are not recorded",
    "features-unreached": "gradviz: no loss reaches the features given to watch.losses(): "
                          "pass the tensor the heads read (the trunk's output); no push is "
                          "recorded",
    "step-twice": "gradviz: watch.step() was called again after step 0 without watch.losses() "
                  "since the last one: call watch.step() once per optimizer step, after its "
                  "losses() and backward; this step is not recorded",
    "no-step": "gradviz: watch.losses() was called 3 time(s) after the last watch.step(): "
               "those losses are not recorded; call watch.step() after backward in each "
               "step",
}


@pytest.mark.parametrize("misuse", sorted(MISUSE_LINES))
def test_each_misuse_is_one_line_at_the_first_step_and_the_training_is_unchanged(
        tmp_path, capsys, misuse):
    torch.manual_seed(0)
    bare = torch.nn.Linear(3, 2)
    watched = torch.nn.Linear(3, 2)
    watched.load_state_dict(bare.state_dict())

    class NoWatch:
        def losses(self, *a, **k): pass
        def step(self): pass

    _loop(NoWatch(), bare, 3, misuse)
    with gradviz.watch(watched, out=tmp_path / "run", every=1) as watch:
        _loop(watch, watched, 3, misuse)
        if misuse != "no-step":
            assert _gradviz_lines(capsys.readouterr().err) == [MISUSE_LINES[misuse]]
    if misuse == "no-step":
        assert _gradviz_lines(capsys.readouterr().err) == [MISUSE_LINES[misuse]]
    for p, q in zip(bare.parameters(), watched.parameters()):
        assert torch.equal(p, q)
    with pytest.raises(gradviz.WatchError, match="^" + re.escape(MISUSE_LINES[misuse][:40])):
        with gradviz.watch(torch.nn.Linear(3, 2), out=tmp_path / "strict", every=1,
                           strict=True) as watch:
            _loop(watch, torch.nn.Linear(3, 2), 3, misuse)


def test_an_empty_loss_tensor_is_refused_as_no_scalar_not_as_the_watchs_own_failure(
        tmp_path, capsys):
    """A loss of no elements (a mean over an empty mask's selection, unreduced) is no
    scalar: the sentence says what to pass, as for a loss of several elements, not
    "watch.losses() failed" as for a fault of the watch's own."""
    model = torch.nn.Linear(3, 2)
    with gradviz.watch(model, out=tmp_path) as watch:
        out, a, b = _two_losses(model, 0)
        watch.losses({"a": a, "b": out[:0, 1]})   # shape (0,)
        watch.losses({"a": a, "b": b})
        (a + b).backward()
        record = watch.step()
    assert record is not None and record.losses == {"a": a.item(), "b": b.item()}
    assert _gradviz_lines(capsys.readouterr().err) == [
        "gradviz: watch.losses() got a tensor of shape (0,) for 'b': each loss must be a "
        "scalar tensor (e.g. loss.mean()); this call is not recorded (the training goes on)"]
