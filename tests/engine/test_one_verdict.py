"""One Compare verdict: the app's pinned B (fed step by step as A trains) and `gradviz
compare` (over all its steps) decide and word it in one place, core.compare.Verdict.
The same steps given to both entry points give the same verdict, word for word."""
import pytest

from gradviz.core.compare import Verdict, compare, verdict
from gradviz.engine import protocol as p
from gradviz.engine.loop import EngineLoop
from gradviz.plain.config.config import Config

BASE = Config(device="cpu", heads=3, trunk_width=16, batch_size=32)
STEPS = 4


def _pinned(a: Config, b: Config, steps: int) -> list:
    """B pinned beside A in the engine, A stepped `steps` times: B's CompareRecords."""
    loop = EngineLoop(a)
    loop.handle(p.PinB(b))
    loop.take_outbox()
    compared = []
    for _ in range(steps):
        loop.handle(p.Step())
        compared += [r for m in loop.take_outbox() if isinstance(m, p.Compared)
                     for r in m.records]
    return compared


@pytest.mark.parametrize("change, opening", [
    ({"strategy": "separate"}, "same gradients"),
    ({"strategy": "in-loop"}, "different: B's gradient on the trunk, head 0: 3.00×"),
    ({"loss_weights": (0.0, 0.0, 0.0)}, "different: "),
    ({"lr": 0.5}, "different: "),   # the same first step, then other weights
])
def test_the_live_verdict_and_gradviz_compares_are_the_same_words(change, opening):
    b = BASE.replace(**change)
    live = _pinned(BASE, b, STEPS)
    batch = compare(BASE, b, STEPS)
    assert [r.step for r in live] == [s.step for s in batch.steps] == list(range(STEPS))
    assert live[-1].verdict == batch.verdict() and live[-1].verdict.startswith(opening)
    assert live[-1].same == batch.same
    # and step by step: the verdict since pinned is that of the steps so far
    for k, record in enumerate(live):
        assert record.verdict == verdict(batch.steps[:k + 1], batch.rtol)


def test_fed_one_at_a_time_or_all_at_once_the_verdict_is_one():
    batch = compare(BASE, BASE.replace(strategy="in-loop"), STEPS)
    fed = Verdict(batch.rtol)
    assert fed.words() == "nothing compared (0 steps)" and not fed.same
    for step in batch.steps:
        fed.add(step)
    assert fed.words() == batch.verdict() and fed.same is batch.same is False
