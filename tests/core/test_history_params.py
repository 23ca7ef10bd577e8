"""Per-parameter gradient-norm history: one row per recorded step, NaN where unsampled."""
import math

import numpy as np
import pytest

from gradviz.core.session import Session
from gradviz.plain.config.config import Config
from gradviz.plain.records.history import History
from gradviz.plain.records.records import StepRecord

HEADS, PARAMS = ["head0", "head1"], ["a", "b", "c"]


def _record(step, norms):
    return StepRecord(step, {"head0": 1.0, "head1": 2.0}, 3.0, grad_norms=norms)


def test_param_history_is_what_the_records_held():
    h = History(HEADS, PARAMS, capacity=2)   # grows twice on the way
    rows = [{"a": 1.0, "b": 2.0, "c": 3.0}, None, {"a": 4.0, "b": 5.0, "c": 6.0},
            {"a": 7.0, "c": 9.0}, {"a": 0.5, "b": 0.25, "c": 0.0}]
    h.extend(_record(10 + i, norms) for i, norms in enumerate(rows))

    steps, b = h.param_history("b")
    np.testing.assert_array_equal(steps, [10, 11, 12, 13, 14])
    np.testing.assert_array_equal(b, [2.0, np.nan, 5.0, np.nan, 0.25])
    assert h.column("grad_norms").shape == (5, 3)
    steps, c = h.param_history("c", sampled_only=True)
    np.testing.assert_array_equal(steps, [10, 12, 13, 14])
    np.testing.assert_array_equal(c, [3.0, 6.0, 9.0, 0.0])
    # the existing API is unchanged
    assert h.last_grad_norms == rows[-1] and h.last.step == 14 and len(h) == 5
    with pytest.raises(KeyError):
        h.param_history("nope")


def test_param_history_views_see_later_rows_without_copying():
    h = History(HEADS, PARAMS)
    h.append(_record(0, {"a": 1.0, "b": 2.0, "c": 3.0}))
    _, a = h.param_history("a")
    assert np.shares_memory(a, h._data["grad_norms"])


def test_param_history_of_a_session_run():
    s = Session(Config(device="cpu", heads=2, batch_size=16, probes="default"))
    h = History(["head0", "head1"], s.param_names)
    records = [s.step() for _ in range(5)]
    h.extend(records)
    for name in s.param_names:
        steps, norms = h.param_history(name)
        assert list(steps) == [r.step for r in records]
        assert all(math.isclose(v, r.grad_norms[name]) for v, r in zip(norms, records))
