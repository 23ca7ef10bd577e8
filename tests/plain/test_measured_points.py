"""A history's measured points (the rows where a column is not NaN), looked for in the
new rows only, are those of the whole column, however the rows came in."""
import numpy as np

from gradviz.plain.records.history import History
from gradviz.plain.records.records import StepRecord

HEADS = ["head0", "head1"]


def _record(step: int) -> StepRecord:
    junction = {"head0": step * 0.5, "head1": -step} if step % 3 == 0 else None
    return StepRecord(step, {"head0": 1.0, "head1": 2.0}, 3.0,
                      graph_nodes=step if step % 5 == 0 else None,
                      junction_grad_norms=junction)


def test_measured_points_are_the_finite_rows_however_they_came():
    h = History(HEADS, [], capacity=8)
    steps = []
    for batch in (1, 2, 0, 7, 300, 1, 40):   # looked at after each batch of appends
        for _ in range(batch):
            h.append(_record(len(h)))
        steps = np.arange(len(h))
        x, nodes = h.measured("graph_nodes")
        np.testing.assert_array_equal(x, steps[steps % 5 == 0])
        np.testing.assert_array_equal(nodes, steps[steps % 5 == 0])
        x, second = h.measured("junction", 1)
        np.testing.assert_array_equal(x, steps[steps % 3 == 0])
        np.testing.assert_array_equal(second, -steps[steps % 3 == 0])
    x, never = h.measured("saved_bytes")   # never measured: no points
    assert len(x) == len(never) == 0 and len(steps) == 351
