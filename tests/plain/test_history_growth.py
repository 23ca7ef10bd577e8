"""The history grows without copying its past at once: each append moves at most a few
older rows into the bigger arrays, and what the columns hold is what the records held."""
import numpy as np

from gradviz.plain.records import history as history_module
from gradviz.plain.records.history import MOVE_ROWS, History
from gradviz.plain.records.records import StepRecord

HEADS, PARAMS = ["head0", "head1"], ["a", "b"]
STEPS = 3000   # from a room of 16 rows: eight doublings


def _record(step: int) -> StepRecord:
    """Every step its losses and gradient norms; every 7th its junction norms."""
    junction = {"head0": step + 0.5, "head1": -step} if step % 7 == 0 else None
    return StepRecord(step, {"head0": step * 2.0, "head1": step * 3.0}, step * 5.0,
                      grad_norms={"a": step / 4, "b": None if step % 2 else step / 8},
                      junction_grad_norms=junction)


def test_each_append_moves_at_most_a_few_rows(monkeypatch):
    moved: list[int] = []
    copy = history_module._copy_rows

    def counted(source, to, start, end):
        moved.append(end - start)
        copy(source, to, start, end)
    monkeypatch.setattr(history_module, "_copy_rows", counted)
    h = History(HEADS, PARAMS, capacity=16)
    for step in range(STEPS):
        h.append(_record(step))
    assert max(moved) <= MOVE_ROWS
    assert sum(moved) >= STEPS // 2   # the rows did move: the room doubled 8 times
    assert h._data["step"].shape[0] >= STEPS


def test_the_columns_hold_what_the_records_held_across_doublings():
    h = History(HEADS, PARAMS, capacity=16)
    h.extend(_record(step) for step in range(STEPS))
    steps = np.arange(STEPS, dtype=float)
    sampled = steps % 7 == 0
    np.testing.assert_array_equal(h.column("step"), steps)
    np.testing.assert_array_equal(h.column("total"), steps * 5)
    np.testing.assert_array_equal(h.column("losses"), np.stack([steps * 2, steps * 3], 1))
    np.testing.assert_array_equal(h.column("grad_norms")[:, 0], steps / 4)
    np.testing.assert_array_equal(h.column("grad_norms")[:, 1],
                                  np.where(steps % 2 == 1, np.nan, steps / 8))
    np.testing.assert_array_equal(h.column("junction")[:, 0],
                                  np.where(sampled, steps + 0.5, np.nan))
    # never measured: NaN on every row, the rows moved and the fresh ones alike
    assert np.isnan(h.column("update_cosine")).all()
    assert np.isnan(h.column("saved_bytes")).all()
