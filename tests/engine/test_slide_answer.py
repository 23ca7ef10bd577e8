"""While a slide's model is built the engine's heartbeat says so, and every ConfigApplied
says how many slides the engine has taken: the window tells the answer to the slide it
sent last (and what follows it) from an earlier command's."""
import pytest

from gradviz.core.devices import available_devices
from gradviz.engine import protocol as p
from gradviz.engine import slide_start
from gradviz.engine.loop import EngineLoop
from gradviz.plain.config.config import Config
from gradviz.plain.records.engine_stages import BUILDING_MODEL, IMPORTING_META, STARTING_RANKS

CONFIG = Config(device="cpu", batch_size=16)


def applied(out: list) -> list[p.ConfigApplied]:
    return [m for m in out if isinstance(m, p.ConfigApplied)]


def test_each_slide_is_answered_with_its_count_and_built_under_its_own_stage():
    loop = EngineLoop(CONFIG)
    stages: list[str] = []
    loop.say_stage = stages.append
    assert [m.slide for m in applied(loop.take_outbox())] == [0]   # no slide yet
    loop.handle(p.Slide(CONFIG.replace(heads=2), p.EngineSettings(), False))
    loop.handle(p.Reset())   # another command's fresh model: still the first slide's
    loop.handle(p.Slide(CONFIG.replace(heads=3), p.EngineSettings(), False))
    out = applied(loop.take_outbox())
    assert [(m.slide, m.config.heads) for m in out] == [(1, 2), (1, 2), (2, 3)]
    assert stages == [BUILDING_MODEL, BUILDING_MODEL]


def test_a_slide_refused_is_still_counted():
    loop = EngineLoop(CONFIG)
    loop.handle(p.Slide(CONFIG.replace(heads=2), p.EngineSettings(), False))
    loop.handle(p.Slide(CONFIG.replace(device="cuda:7"), p.EngineSettings(), False))
    loop.handle(p.SetConfig(CONFIG.replace(heads=2, lr=0.02)))
    out = loop.take_outbox()
    assert any(isinstance(m, p.ConfigRejected) for m in out)
    assert applied(out)[-1].slide == 2


@pytest.mark.skipif(len(available_devices()) > 1, reason="a GPU: the head goes there, not meta")
def test_a_head_on_the_meta_device_has_its_imports_done_and_said_while_built(monkeypatch):
    warmed: list[str] = []
    loop = EngineLoop(CONFIG)
    stages: list[str] = []
    loop.say_stage = stages.append
    # (the warm-up itself is one meta kernel: seconds of imports, left out here)
    monkeypatch.setattr(slide_start, "warm_meta", lambda: warmed.append(stages[-1]))
    loop.handle(p.Slide(CONFIG.replace(heads=3, misplace_head=1), p.EngineSettings(), False))
    loop.handle(p.Slide(CONFIG.replace(heads=3), p.EngineSettings(), False))
    assert stages == [BUILDING_MODEL, IMPORTING_META, BUILDING_MODEL]
    assert warmed == [IMPORTING_META]


def test_a_ddp_slides_ranks_are_started_and_said_while_it_is_built(monkeypatch):
    started: list[str] = []
    loop = EngineLoop(CONFIG)
    stages: list[str] = []
    loop.say_stage = stages.append
    # (starting the ranks is seconds of processes importing torch: left out here, as
    # tests/core/test_ddp_ranks.py starts them)
    monkeypatch.setattr(type(loop.session), "start_ranks",
                        lambda session: started.append(stages[-1]))
    ddp = CONFIG.replace(heads=2, batch_size=16, accumulate=2, ddp_ranks=2)
    loop.handle(p.Slide(ddp, p.EngineSettings(), False))
    loop.handle(p.Slide(CONFIG.replace(heads=2), p.EngineSettings(), False))
    assert stages == [BUILDING_MODEL, STARTING_RANKS, BUILDING_MODEL]
    assert started == [STARTING_RANKS]


def totals(out: list) -> list[float]:
    return [r.total for m in out if isinstance(m, p.Records) for r in m.records]


def test_a_slide_with_steps_trains_them_again_at_full_speed_then_pauses():
    """The window's run from before a lesson, given back: the same config's first steps,
    the same numbers bit for bit, at full speed whatever the pace it ends paused at."""
    loop = EngineLoop(CONFIG)
    for _ in range(3):
        loop.handle(p.Step())
    before = totals(loop.take_outbox())
    loop.handle(p.Slide(CONFIG.replace(heads=2, strategy="separate"), p.EngineSettings(),
                        True))                          # a lesson's slide, playing
    loop.train_batch(lambda: False)
    slow = p.EngineSettings(delay_ms=1500, animate_phases=True)
    loop.take_outbox()
    loop.handle(p.Slide(CONFIG, slow, False, 3))
    batches = 0
    while loop.due_in() is not None:
        assert loop.due_in() == 0.0                     # never the 1.5 s pace
        loop.train_batch(lambda: False)
        batches += 1
    out = loop.take_outbox()
    assert totals(out) == before and len(before) == 3
    assert [m.step for m in out if isinstance(m, p.StepsDone)] == [3]
    assert not loop.player.running and loop.session.step_index == 3
    assert loop.player.settings == slow and batches >= 1


@pytest.mark.parametrize("steps", [0, 1])
def test_a_slide_that_trains_one_step_trains_it_and_one_that_trains_none_stays_at_step_0(
        steps):
    """The boundary of Slide.steps: a run of one step is a run (StepsDone at step 1), a
    run of none leaves the slide at step 0, paused, with no StepsDone."""
    loop = EngineLoop(CONFIG)
    loop.take_outbox()
    loop.handle(p.Slide(CONFIG, p.EngineSettings(), False, steps))
    while loop.due_in() is not None:
        loop.train_batch(lambda: False)
    out = loop.take_outbox()
    assert [m.step for m in out if isinstance(m, p.StepsDone)] == ([1] if steps else [])
    assert loop.session.step_index == steps and not loop.player.running
    assert sum(len(m.records) for m in out if isinstance(m, p.Records)) == steps
