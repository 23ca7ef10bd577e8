"""WarmNext: what the lesson's next slide needs that is slow to start is started by the
engine on screen without waiting for it (its DDP ranks, the meta device's first kernel),
Warmed says when it is ready, the next slide takes it as its own (the same rank
processes), and what no slide needs any more ends."""
import os
import threading

import pytest

from gradviz.core.ddp_ranks import _GROUP, close_rank_group
from gradviz.core.devices import available_devices
from gradviz.engine import next_slide, slide_start
from gradviz.engine import protocol as p
from gradviz.engine.child import descendants
from gradviz.engine.loop import EngineLoop
from gradviz.plain.config.config import Config

CONFIG = Config(device="cpu", batch_size=16)
DDP = CONFIG.replace(heads=2, accumulate=2, ddp_ranks=2)
pytestmark = pytest.mark.timeout(300)   # a rank imports torch: seconds, on a busy machine


@pytest.fixture(autouse=True)
def no_rank_left():
    yield
    close_rank_group()
    assert descendants(os.getpid()) == []


def warmed(loop: EngineLoop) -> list[int]:
    loop.say_when_warm()
    return [m.warms for m in loop.take_outbox() if isinstance(m, p.Warmed)]


def test_the_next_slides_ranks_start_ahead_and_are_the_ones_it_trains_with():
    loop = EngineLoop(CONFIG)
    loop.take_outbox()
    loop.handle(p.WarmNext(DDP))   # the slide on screen trains one process
    ranks = descendants(os.getpid())
    assert len(ranks) == 2 and loop.next_slide.pending   # started, not waited for
    _GROUP[0].wait_started()   # (the test waits for them; the engine looks at them)
    assert warmed(loop) == [1] and warmed(loop) == []   # said once
    loop.handle(p.Slide(DDP, p.EngineSettings(), False))
    record = loop.session.step()
    assert record is not None and record.all_reduces == 2
    assert sorted(descendants(os.getpid())) == sorted(ranks)   # the same processes

    loop.handle(p.WarmNext(None))   # the slide on screen trains with them: kept
    assert sorted(descendants(os.getpid())) == sorted(ranks)
    loop.handle(p.Slide(CONFIG, p.EngineSettings(), False))
    loop.handle(p.WarmNext(None))   # (a lecturer leaving the lesson here)
    assert descendants(os.getpid()) == []


def test_ranks_started_for_a_slide_that_no_longer_comes_end():
    loop = EngineLoop(CONFIG)
    loop.handle(p.WarmNext(DDP))
    assert len(descendants(os.getpid())) == 2
    loop.handle(p.WarmNext(CONFIG.replace(heads=3)))   # PageUp: another slide is next
    assert descendants(os.getpid()) == []
    assert warmed(loop) == [2]   # nothing left to wait for


@pytest.mark.skipif(len(available_devices()) > 1, reason="a GPU: the head goes there, not meta")
def test_the_meta_kernel_runs_ahead_on_a_thread_and_the_slide_waits_for_what_is_left(
        monkeypatch):
    release, ran = threading.Event(), []

    def slow_warm() -> None:   # the kernel's imports, held until the test lets them end
        release.wait()
        ran.append(threading.current_thread().name)
    monkeypatch.setattr(next_slide, "warm_meta", slow_warm)
    monkeypatch.setattr(slide_start, "warm_meta", lambda: ran.append("the slide's own"))
    loop = EngineLoop(CONFIG)
    loop.handle(p.WarmNext(CONFIG.replace(heads=3, misplace_head=1)))   # returns at once
    assert warmed(loop) == [] and loop.next_slide.pending
    release.set()
    loop.next_slide.meta_warmed()
    assert warmed(loop) == [1]
    loop.handle(p.Slide(CONFIG.replace(heads=3, misplace_head=1), p.EngineSettings(), False))
    assert ran == ["gradviz meta warm", "the slide's own"]


def test_an_aggregating_strategys_torchjd_is_imported_ahead_on_a_thread(monkeypatch):
    imported = threading.Event()
    names: list[str] = []

    def import_torchjd() -> None:
        names.append(threading.current_thread().name)
        imported.set()
    monkeypatch.setattr(next_slide, "_import_torchjd", import_torchjd)
    loop = EngineLoop(CONFIG.replace(heads=3))
    loop.handle(p.WarmNext(CONFIG.replace(heads=3, strategy="sum")))
    loop.handle(p.WarmNext(CONFIG.replace(heads=3, strategy="upgrad")))
    assert imported.wait(60)
    loop.handle(p.WarmNext(CONFIG.replace(heads=3, strategy="mgda")))   # imported once
    assert names == ["gradviz torchjd warm"]
