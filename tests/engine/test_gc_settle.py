"""The engine's process freezes its imports out of the collector's full scans; the loop's
keep-graphs freezing undoes only what it froze itself, and a settled process is frozen
again after it."""
import gc
import weakref

import pytest

from gradviz.engine import gc_settle, training
from gradviz.engine import protocol as p
from gradviz.engine.loop import EngineLoop
from gradviz.plain.config.config import Config

SMALL = Config(device="cpu", heads=2, trunk_width=8, batch_size=8)


@pytest.fixture
def thawed():
    """Nothing frozen before or after the test: the test process is not ours to change."""
    gc.unfreeze()
    yield
    gc.unfreeze()


def _steps(loop: EngineLoop, n: int) -> None:
    for _ in range(n):
        loop.training.after_step(loop.session.step())


def test_settle_imports_freezes_what_exists(thawed, monkeypatch):
    monkeypatch.setattr(gc_settle, "_settled", False)
    alive = len(gc.get_objects())
    gc_settle.settle_imports()
    assert gc.get_freeze_count() >= alive // 2 and not gc.get_objects(generation=2)


def test_steps_without_keep_graphs_leave_someone_elses_freeze_alone(thawed):
    """A window in the same process (an engine on a test's thread) froze its objects:
    the engine's steps must not thaw them (they did while anything at all was frozen)."""
    loop = EngineLoop(SMALL)
    gc.freeze()
    frozen = gc.get_freeze_count()
    assert frozen > 0
    _steps(loop, 3)
    assert gc.get_freeze_count() > frozen // 2   # (a frozen object can still be freed)


@pytest.mark.parametrize("settled", [False, True])
def test_keep_graphs_off_thaws_what_it_froze_and_a_settled_process_freezes_again(
        thawed, monkeypatch, settled):
    monkeypatch.setattr(gc_settle, "_settled", settled)
    monkeypatch.setattr(training, "FREEZE_EVERY", 2)
    loop = EngineLoop(SMALL.replace(keep_graphs=True))
    _steps(loop, 2)
    assert gc.get_freeze_count() > 0   # the kept graphs (and all else) out of the way
    cycle = _Cycle()   # garbage only a collection finds, frozen with the graphs
    gone = weakref.ref(cycle)
    gc.freeze()
    del cycle
    loop.handle(p.SetConfig(SMALL))   # keep graphs off
    _steps(loop, 1)
    if settled:   # collected, then what is left frozen again
        assert gone() is None and gc.get_freeze_count() > 0
    else:         # back with the collector, which finds it in its own time
        assert gc.get_freeze_count() == 0
        gc.collect()
        assert gone() is None


class _Cycle:
    def __init__(self):
        self.me = self
