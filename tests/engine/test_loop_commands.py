"""Each of the window's commands, answered by the engine's loop in this process: what it
does to Play (Phase and Step stop it; Play acknowledges an error), what it sends (a
refused config alone; a model that cannot be built re-announced), how a batch ends (a
command waiting, a failed phase) and how long a phase is held (a sweep drawn only from a
graph that could be read)."""
import time

import pytest

from gradviz.core import session as session_module
from gradviz.engine import player, training
from gradviz.engine import protocol as p
from gradviz.engine.loop import EngineLoop
from gradviz.plain.config.config import Config
from gradviz.plain.config.model_names import model_path
from gradviz.plain.records.events import Event
from gradviz.plain.records.records import PhaseRecord

CONFIG = Config(device="cpu", heads=2, trunk_width=8, batch_size=16)


def _fresh(config: Config = CONFIG) -> EngineLoop:
    loop = EngineLoop(config)
    loop.take_outbox()
    return loop


def _kinds(out: list) -> list[type]:
    return [type(m) for m in out]


def _steps(out: list) -> list[int]:
    return [r.step for m in out if isinstance(m, p.Records) for r in m.records]


@pytest.mark.parametrize("command", [p.Phase(), p.Step()])
def test_phase_and_step_stop_play_and_say_so(command):
    loop = _fresh()
    loop.handle(p.Play())
    loop.train_batch(lambda: False)
    loop.take_outbox()
    loop.handle(command)
    out = loop.take_outbox()
    assert out[0] == p.Running(False) and not loop.player.running
    assert loop.due_in() is None


def test_step_sends_the_graph_after_the_optimizer_step():
    loop = _fresh()
    loop.handle(p.Step())
    assert [m.when for m in loop.take_outbox() if isinstance(m, p.Graph)] == [
        "after the optimizer step"]


def test_play_after_an_error_acknowledges_it_and_trains_on():
    loop = _fresh(Config(device="cpu", batch_size=32, model="rnn", truncate="never"))
    loop.handle(p.Play())
    while loop.player.running:
        loop.train_batch(lambda: False)
    assert loop.session.error is not None
    loop.handle(p.Play())
    assert loop.session.error is None and loop.player.running


def test_an_internal_error_is_kept_as_the_sessions_error_and_said(monkeypatch):
    loop = _fresh()

    def broken():
        raise ValueError("a bug of ours")
    monkeypatch.setattr(loop.session, "step", broken)
    loop.handle(p.Step())
    failed = [m.event for m in loop.take_outbox() if isinstance(m, p.Failed)]
    assert failed and failed[0].type == "ValueError"
    assert all(event == loop.session.error for event in failed)


def test_a_config_the_engine_cannot_use_is_refused_alone():
    loop = _fresh()
    loop.handle(p.SetConfig(CONFIG.replace(device="cuda:7")))
    out = loop.take_outbox()
    assert _kinds(out) == [p.ConfigRejected] and loop.session.config == CONFIG


def test_a_model_too_big_to_build_is_refused_and_the_old_one_announced(monkeypatch):
    loop = _fresh()
    real = session_module.MultiHeadNet

    def too_big(heads, *args, **kwargs):
        if heads == 5:
            raise RuntimeError("DefaultCPUAllocator: can't allocate memory")
        return real(heads, *args, **kwargs)
    monkeypatch.setattr(session_module, "MultiHeadNet", too_big)
    loop.handle(p.SetConfig(CONFIG.replace(heads=5)))
    out = loop.take_outbox()
    assert _kinds(out) == [p.ConfigApplied, p.ConfigRejected]
    assert out[0].config == CONFIG and out[0].did_reset is True
    assert out[1].reason.startswith("cannot build that model: DefaultCPUAllocator")


def test_a_model_files_heads_at_several_depths_refuse_an_aggregating_strategy():
    with model_path("deep_supervision") as path:
        loop = EngineLoop(Config(device="cpu", heads=3), model_path=str(path))
    assert loop.model_file is not None and len(set(loop.model_file.taps)) > 1
    loop.take_outbox()
    loop.handle(p.SetConfig(loop.session.config.replace(strategy="upgrad")))
    out = loop.take_outbox()
    assert _kinds(out) == [p.ConfigRejected] and "several depths" in out[0].reason


def test_a_pace_set_during_play_measures_the_very_next_step():
    loop = _fresh()
    loop.handle(p.Play())
    assert loop.session.sample_floor > 1
    loop.handle(p.Settings(p.EngineSettings(delay_ms=100)))
    assert loop.session.sample_floor == 1


def test_pause_at_a_pace_takes_no_step_more():
    loop = _fresh()
    loop.handle(p.Settings(p.EngineSettings(delay_ms=100)))
    loop.handle(p.Play())
    loop.train_batch(lambda: False)
    loop.handle(p.Pause())
    assert loop.session.step_index == 1
    assert [m.when for m in loop.take_outbox() if isinstance(m, p.Graph)][-1] == "paused"


def test_shutdown_ends_the_sessions_ranks(monkeypatch):
    loop = _fresh()
    closed = []
    monkeypatch.setattr(loop.session, "close", lambda: closed.append(True))
    loop.handle(p.Shutdown())
    assert closed == [True] and loop.stopped and loop.due_in() is None


def test_a_command_waiting_ends_a_batch_at_the_step_it_was_seen(monkeypatch):
    monkeypatch.setattr(player, "BATCH_SECONDS", 30.0)   # only the command ends it
    monkeypatch.setattr(training, "LOOK_SECONDS", 0.0)   # looked for after every step
    loop = _fresh()
    loop.handle(p.Play())
    looks = []

    def waiting() -> bool:
        looks.append(loop.session.step_index)
        return len(looks) == 3
    loop.train_batch(waiting)
    assert looks == [1, 2, 3] and loop.session.step_index == 3


def test_played_by_phases_a_failed_phase_pauses_play():
    loop = _fresh(Config(device="cpu", strategy="separate", retain_graph="never"))
    loop.handle(p.Settings(p.EngineSettings(animate_phases=True)))
    loop.handle(p.Play())
    out: list = []
    while loop.player.running and len(out) < 500:
        loop.train_batch(lambda: False)
        out += loop.take_outbox()
    failed = [i for i, m in enumerate(out) if isinstance(m, p.Failed)]
    assert failed and out[-1] == p.Running(False) and not loop.player.running


def test_a_quiet_phase_that_fails_still_sends_its_graph(monkeypatch):
    """zero_grad draws nothing and is played on at once with the forward pass; one that
    fails is the error, and its graph is sent."""
    loop = _fresh()
    loop.handle(p.Settings(p.EngineSettings(animate_phases=True)))
    loop.handle(p.Play())
    event = Event(0, "zero_grad", "zero_grad", "RuntimeError", "m", "t", "e", "h")
    monkeypatch.setattr(loop.session, "advance_phase",
                        lambda: PhaseRecord(0, "zero_grad", "zero_grad", event=event))
    loop.train_batch(lambda: False)
    out = loop.take_outbox()
    assert [m.when for m in out if isinstance(m, p.Graph)] == ["at the error"]
    assert out[-1] == p.Running(False)


def test_a_backward_graph_that_cannot_be_read_holds_no_sweep(monkeypatch):
    """Played phase by phase at a sweep pace, a backward phase is held for the sweep of
    the graph sent after it; where that graph could not be read, none was sent, and the
    sweep of the backward call before is not held again."""
    loop = _fresh(Config(device="cpu", heads=3, strategy="separate"))
    loop.handle(p.Settings(p.EngineSettings(animate_phases=True, sweep_box_ms=400)))
    loop.handle(p.Play())
    backward = 0
    while backward < 1:   # the first backward call: its graph read, its sweep held
        loop.train_batch(lambda: False)
        backward += sum(m.phase.name == "backward" for m in loop.take_outbox()
                        if isinstance(m, p.PhaseDone))
    assert loop.player.next_due - time.monotonic() > 1.0

    def unreadable(**_):
        raise RuntimeError("a graph we cannot read")
    monkeypatch.setattr(loop.session, "graph", unreadable)
    loop.player.next_due = 0.0
    loop.train_batch(lambda: False)   # the second backward call
    assert [m.phase.name for m in loop.take_outbox() if isinstance(m, p.PhaseDone)] == [
        "backward"]
    assert loop.player.next_due - time.monotonic() < 0.5
