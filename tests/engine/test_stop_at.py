"""A lesson slide's stop: Play pauses by itself once N steps are done (its stop_at setting), at
exactly N, at full speed (many steps per batch), at a pace and phase by phase; Play
pressed again at the stop goes on past it. Driven command by command in this process,
and once through the engine's own loop on a thread, as the window drives it."""
from dataclasses import replace

from gradviz.engine import host
from gradviz.engine import protocol as p
from gradviz.engine.loop import EngineLoop
from gradviz.plain.config.config import Config

CONFIG = Config(device="cpu")
MOST_STEPS = 2000   # a stop that is never honoured fails here, not by a hung test


def settle(loop: EngineLoop, **changes) -> None:
    """The window changes some of its engine settings: the engine is sent them all."""
    loop.handle(p.Settings(replace(loop.player.settings, **changes)))


def _play_until_paused(loop: EngineLoop) -> list:
    """Train batch after batch, as the engine does between commands, until Play pauses
    itself; every message sent on the way."""
    out = []
    while loop.player.running and loop.session.step_index < MOST_STEPS:
        loop.train_batch(lambda: False)
        out += loop.take_outbox()
    return out


def _recorded_steps(out: list) -> list[int]:
    return [r.step for m in out if isinstance(m, p.Records) for r in m.records]


def test_at_full_speed_play_pauses_once_exactly_n_steps_are_done():
    loop = EngineLoop(CONFIG)
    settle(loop, stop_at=37)
    loop.handle(p.Play())
    assert loop.session.sample_floor > 1          # full speed: many steps per batch
    out = loop.take_outbox() + _play_until_paused(loop)
    assert loop.session.step_index == 37 and not loop.session.in_step
    assert not loop.player.running and loop.due_in() is None
    assert _recorded_steps(out) == list(range(37))
    assert out[-2] == p.Running(False)
    assert isinstance(out[-1], p.Graph) and out[-1].when == "paused"
    assert loop.session.sample_floor == 1         # paused: every step measured again


def test_play_again_at_the_stop_goes_on_past_it():
    loop = EngineLoop(CONFIG)
    settle(loop, stop_at=5)
    loop.handle(p.Play())
    _play_until_paused(loop)
    assert loop.session.step_index == 5
    loop.handle(p.Play())
    assert loop.player.stop_at is None                    # the stop is spent
    while loop.session.step_index < 60:
        assert loop.player.running, f"paused again at step {loop.session.step_index}"
        loop.train_batch(lambda: False)


def test_a_stop_already_passed_does_not_hold_play():
    loop = EngineLoop(CONFIG)
    for _ in range(4):
        loop.handle(p.Step())
    settle(loop, stop_at=2)
    loop.handle(p.Play())
    while loop.session.step_index < 30:
        assert loop.player.running, f"paused at step {loop.session.step_index}"
        loop.train_batch(lambda: False)


def test_no_stop_never_pauses():
    loop = EngineLoop(CONFIG)
    settle(loop, stop_at=3)
    settle(loop, stop_at=None)                   # the next slide has none
    loop.handle(p.Play())
    while loop.session.step_index < 30:
        assert loop.player.running, f"paused at step {loop.session.step_index}"
        loop.train_batch(lambda: False)


def test_at_a_pace_play_pauses_at_the_stop():
    loop = EngineLoop(CONFIG)
    settle(loop, delay_ms=1)                        # one step per batch
    settle(loop, stop_at=3)
    loop.handle(p.Play())
    out = _play_until_paused(loop)
    assert loop.session.step_index == 3 and not loop.player.running
    assert _recorded_steps(out) == [0, 1, 2]


def test_phase_by_phase_play_pauses_after_the_stop_steps_optimizer_step():
    """Played by phases, the stop comes after step N's last phase, not inside a step:
    every phase of steps 0 and 1 is shown, none of step 2."""
    loop = EngineLoop(CONFIG)
    settle(loop, animate_phases=True)
    settle(loop, stop_at=2)
    loop.handle(p.Play())
    out = _play_until_paused(loop)
    assert loop.session.step_index == 2 and not loop.session.in_step and not loop.player.running
    phases = [(m.phase.step, m.phase.name) for m in out if isinstance(m, p.PhaseDone)]
    one_step = ["zero_grad", "forward", "backward", "optimizer step"]   # sum: one backward
    assert phases == [(0, name) for name in one_step] + [(1, name) for name in one_step]
    assert _recorded_steps(out) == [0, 1]
    graphs = [m for m in out if isinstance(m, p.Graph)]
    assert graphs[-1].when == "after optimizer.step()"   # the stop's graph: its last phase
    assert out[-1] == p.Running(False)


def test_through_the_engines_own_loop_play_stops_at_the_step_asked():
    """The engine on a thread, fed over its pipe as the window feeds it: the last
    record before Play's Running(False) is step N - 1, and nothing trains after it."""
    thread, conn = host.start_thread(CONFIG)
    try:
        conn.send(p.Settings(p.EngineSettings(stop_at=25)))
        conn.send(p.Play())
        steps, running = [], []
        while running[-1:] != [False]:
            assert conn.poll(60), "the engine went quiet before pausing"
            for message in conn.recv():
                if isinstance(message, p.Records):
                    steps += [r.step for r in message.records]
                elif isinstance(message, p.Running):
                    running.append(message.running)
        assert running == [True, False]
        assert steps == list(range(25))
        conn.send(p.RequestGraph())   # answered: nothing trained since, still "paused"
        assert conn.poll(60)
        answer = conn.recv()
        assert [type(m) for m in answer] == [p.Graph] and answer[0].when == "paused"
        assert thread.engine["loop"].session.step_index == 25
    finally:
        conn.send(p.Shutdown())
        thread.join(60)
        conn.close()
    assert not thread.is_alive()
