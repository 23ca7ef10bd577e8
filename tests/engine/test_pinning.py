"""engine.pinning: a B unpinned or replaced by another still has its last steps compared
and said, once, before the answer to the pin; and while A waits for B's process to
start, what it is doing is said once per stage."""
from types import SimpleNamespace

import pytest

from gradviz.engine import protocol as p
from gradviz.engine.b_runner import LocalB
from gradviz.engine.loop import EngineLoop
from gradviz.engine.pinning import Pinning
from gradviz.plain.config.config import Config

BASE = Config(device="cpu", heads=2, trunk_width=8, batch_size=16)


class LateB(LocalB):
    """B in this process whose replies are never ready before they are waited for: its
    steps stay in flight, as a B in a process of its own still training them."""

    def ready(self) -> bool:
        return False


def _compared(out: list) -> list[int]:
    return [r.step for m in out if isinstance(m, p.Compared) for r in m.records]


def _in_flight(monkeypatch) -> EngineLoop:
    """A with a late B pinned, two steps done by both and none compared yet."""
    loop = EngineLoop(BASE)
    monkeypatch.setattr(loop.pinning.place, "runner", LateB)
    loop.handle(p.PinB(BASE))
    loop.handle(p.Step())
    loop.handle(p.Step())
    assert _compared(loop.take_outbox()) == [] and loop.pinning.in_flight
    return loop


@pytest.mark.parametrize("again", [BASE.replace(strategy="separate"), None])
def test_the_last_steps_of_a_b_replaced_or_unpinned_are_compared_and_said_once(
        monkeypatch, again):
    loop = _in_flight(monkeypatch)
    loop.handle(p.PinB(again))
    out = loop.take_outbox()
    assert _compared(out) == [0, 1]
    said = [i for i, m in enumerate(out) if isinstance(m, p.Compared)]
    pinned = [i for i, m in enumerate(out) if isinstance(m, p.BPinned)]
    assert said[-1] < pinned[0]                    # before the answer to the pin
    loop.handle(p.RequestGraph())
    assert _compared(loop.take_outbox()) == []     # and never again


def _starting(words: str | None) -> SimpleNamespace:
    return SimpleNamespace(starting_words=words, holding_a=True)


def test_what_bs_process_is_doing_is_said_once_per_stage():
    pinning = Pinning(False)
    assert pinning.starting_notice() is None           # nothing pinned
    pinning.pinned = _starting("importing torch")  # type: ignore[assignment]
    assert pinning.starting_notice() == ("Compare: B's engine is starting (importing "
                                         "torch); A waits for it.")
    assert pinning.starting_notice() is None           # the same stage: said once
    pinning.pinned = _starting("building B")  # type: ignore[assignment]
    assert "(building B)" in pinning.starting_notice()
    pinning.pinned = SimpleNamespace(starting_words="loading", holding_a=False)  # A goes on
    assert pinning.starting_notice() is None
