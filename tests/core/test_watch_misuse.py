"""A wrong call to gradviz.watch raises one clear error and records nothing of itself:
the steps after it are recorded as if it had not been made."""
from __future__ import annotations

import pytest
import torch

import gradviz
from gradviz.plain.watch_read import StreamReader


def test_a_refused_losses_call_leaves_the_step_as_it_was(tmp_path):
    model = torch.nn.Linear(3, 2)
    expected = []
    with gradviz.watch(model, out=tmp_path) as watch:
        for step in range(3):
            out = model(torch.full((4, 3), float(step)))
            a, b = out[:, 0].mean(), out[:, 1].pow(2).mean()
            with pytest.raises(TypeError, match="scalar"):
                watch.losses({"a": a, "b": out[:, 1]})   # b is not a scalar
            if step:
                with pytest.raises(ValueError, match="same names"):
                    watch.losses({"b": b, "a": a})
            watch.losses({"a": a, "b": b})
            (a + b).backward()
            record = watch.step()
            assert record.losses == {"a": a.item(), "b": b.item()}
            assert record.total == a.item() + b.item()
            expected.append({"a": a.item(), "b": b.item()})
            model.zero_grad()
    assert [r.losses for r in StreamReader(tmp_path).read()] == expected


@pytest.mark.parametrize("value", [-0.1, 61, True, "0.1", float("nan")])
def test_a_write_spacing_that_is_not_seconds_is_refused_by_name(tmp_path, value):
    with pytest.raises(ValueError, match="write_every must be seconds from 0 to 60"):
        gradviz.watch(torch.nn.Linear(3, 2), out=tmp_path, write_every=value)
    assert not (tmp_path / "steps.jsonl").exists()
