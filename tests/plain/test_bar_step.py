"""Two recorded runs' bars at one step: A's newest where B has it, else the newest both
have, with each one's norms there (None: no gradient), whichever run is ahead."""
from __future__ import annotations

from gradviz.plain.charts.bar_step import shared_bar_step
from gradviz.plain.records.history import History
from gradviz.plain.records.records import StepRecord


def _history(steps: range, scale: float = 1.0, sampled_every: int = 1) -> History:
    h = History(["a"], ["w", "v"])
    for s in steps:
        norms = {"w": scale * s, "v": None} if s % sampled_every == 0 else None
        h.append(StepRecord(step=s, losses={"a": 1.0}, total=1.0, grad_norms=norms))
    return h


def test_b_behind_a_both_at_b_s_newest_step():
    a, b = _history(range(80)), _history(range(30), scale=2.0)
    at = shared_bar_step(a, b)
    assert at is not None and at.step == 29 and not at.a_newest
    assert at.a == {"w": 29.0, "v": None} and at.b == {"w": 58.0, "v": None}


def test_b_ahead_of_a_both_at_a_s_newest_step():
    at = shared_bar_step(_history(range(30)), _history(range(80), scale=2.0))
    assert at is not None and at.step == 29 and at.a_newest and at.b["w"] == 58.0


def test_only_steps_with_gradient_norms_count():
    # A's norms every 5th step (79's newest is 75), B's every step up to 77
    at = shared_bar_step(_history(range(80), sampled_every=5), _history(range(78)))
    assert at is not None and at.step == 75 and at.a_newest


def test_no_step_in_common_is_none():
    assert shared_bar_step(_history(range(0, 10)), _history(range(10, 20))) is None
    assert shared_bar_step(_history(range(5)), _history(range(0))) is None
