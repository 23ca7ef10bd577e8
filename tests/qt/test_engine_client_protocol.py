"""The window's side of engine.protocol: one handler for every record the engine may
send; a batch that is not a list of them is refused in one log line, never a crash;
every one of the window's engine settings survives the engine's end and a fresh start;
and what the watch decides of a silent, stuck or ended engine is done and said."""
import logging
import multiprocessing
from types import SimpleNamespace

import pytest
from PySide6.QtCore import Qt

from gradviz.engine import host
from gradviz.engine import protocol as p
from gradviz.plain.config.config import Config
from gradviz.plain.records.engine_stages import BUILDING_MODEL_FILE, IMPORTING_TORCH, WORKING
from gradviz.plain.window.engine_watch import LONG_BUSY_SECONDS, SILENT_SECONDS
from gradviz.plain.window.window_model import WindowModel
from gradviz.qt.engine_client import EngineClient

from waits import WAIT_MS, on_record


def test_every_record_the_engine_sends_has_a_handler_in_the_window(qapp):
    client = EngineClient(WindowModel())
    assert set(client.handlers) == set(p.FROM_ENGINE)
    handed: list = []
    client.received.connect(handed.append)
    said = [p.Notice("n"), p.ConfigRejected("r"), p.StepsDone(3)]
    for record in said:   # what is not state goes on as itself
        p.dispatch("the test", client.handlers, record)
    assert handed == said


def test_what_the_window_cannot_use_is_refused_in_one_line(shared_window, qtbot, caplog):
    w = shared_window(Config(device="cpu", batch_size=16))
    engine_end = w.engine.loop
    with caplog.at_level(logging.WARNING, logger="gradviz.protocol"):
        engine_end.outbox.messages += [p.Play(), ("records", [], 1.0), p.Running("yes")]
        engine_end.send(p.Notice("still here"))
        said: list = []
        on_record(w.engine, p.Notice, lambda r: said.append(r.text))
        w.engine.request_graph()   # wakes the engine's loop, which sends its outbox
        qtbot.waitUntil(lambda: len(said) > 0, timeout=WAIT_MS)
    assert said == ["still here"] and not w.model.running
    refused = [r for r in caplog.records if "the window refused" in r.getMessage()]
    assert len(refused) == 3


def test_every_engine_setting_survives_the_engines_end_and_a_fresh_start(shared_window,
                                                                          qtbot):
    """Each setting changed as a user changes it; the engine then ends (as one that
    crashed: the window reads the end of its pipe) and R starts a fresh one, which must
    hold every one of them; ended again, Shift+R starts one with the defaults."""
    # the shared window's last use in this file: it closes the graph's dock
    w = shared_window(Config(device="cpu", batch_size=16, heads=2))
    w.run_bar.speed.setValue(4)                           # a pace of 100 ms
    qtbot.keyClick(w, Qt.Key_P)                           # Play phase by phase
    w.graph_view.show_saved.setChecked(True)              # saved tensors drawn
    w.graph_dock.close()                                  # no graph: no per-node hooks
    w.model.stop_at = 9                                   # a slide's stop
    wanted = p.EngineSettings(delay_ms=100, animate_phases=True, stop_at=9,
                              show_saved=True, track_node_grads=False)
    qtbot.waitUntil(lambda: w.engine.loop.player.settings == wanted, timeout=WAIT_MS)
    first = w.engine.loop
    generation = w.model.generation
    w.engine._conn.send(p.Shutdown())                     # the engine ends by itself
    qtbot.waitUntil(lambda: not w.engine.alive, timeout=WAIT_MS)
    qtbot.keyClick(w, Qt.Key_R)                           # a fresh engine
    qtbot.waitUntil(lambda: w.model.generation > generation, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: w.engine.loop not in (None, first)
                    and w.engine.loop.player.settings == wanted, timeout=WAIT_MS)
    loop = w.engine.loop
    assert loop is not first and loop.session.track_node_grads is False
    assert (loop.player.delay_s, loop.player.animate_phases, loop.player.stop_at) == (0.1, True, 9)
    assert w.model.engine_settings() == w.engine.sent_settings == wanted
    # ended again: Shift+R starts one with the default settings instead
    generation = w.model.generation
    w.engine._conn.send(p.Shutdown())
    qtbot.waitUntil(lambda: not w.engine.alive, timeout=WAIT_MS)
    qtbot.keyClick(w, Qt.Key_R, Qt.ShiftModifier)
    qtbot.waitUntil(lambda: w.engine.alive and w.model.generation > generation,
                    timeout=WAIT_MS)
    assert w.model.confirmed == w.model.requested == Config()


# ---- the watch's decisions, done: a client on a fake engine process and a test clock --------
# (when each is decided: tests/plain/test_engine_watch.py; with a real process:
# tests/qt/test_stuck_engine_reset.py)

class _Process:
    """An engine process that does only what it is told: killed, it has ended (-9)."""
    pid = 4242

    def __init__(self) -> None:
        self.exitcode: int | None = None

    def is_alive(self) -> bool:
        return self.exitcode is None

    def cpu_grew_at(self) -> float | None:
        return None

    def kill(self) -> None:
        self.exitcode = -9

    def join(self, timeout: float | None = None) -> None:
        pass

    def close(self) -> None:
        pass


@pytest.fixture
def fake_engines(qapp, monkeypatch):
    """Engine processes that are fakes the test speaks for: each one started, with its
    end of the pipe (`end`) and the model file it was started on (`path`), newest last."""
    started: list = []

    def start(config, path):
        ours, theirs = multiprocessing.Pipe()
        started.append(SimpleNamespace(process=_Process(), end=theirs, path=path))
        return started[-1].process, ours
    monkeypatch.setattr(host, "start_process", start)
    return started


def _client(fake_engines, model_path: str | None = None):
    """A client started on a fake engine, on a clock the test moves (clock.now); what
    it says in `said`."""
    client = EngineClient(WindowModel(), model_path=model_path)
    clock = SimpleNamespace(now=1000.0)
    client.watch.clock = lambda: clock.now
    said: list = []
    client.received.connect(said.append)
    client.start()
    client._watch.stop()   # its timer's looks are the test's (_check_alive), on its clock
    return client, clock, said


@pytest.fixture
def fake_engine(fake_engines):
    client, clock, said = _client(fake_engines)
    yield client, clock, fake_engines, said
    client.shutdown()


def _engine_says(qtbot, client, end, *messages) -> None:
    end.send(list(messages))
    qtbot.waitUntil(lambda: not client._conn.poll(0), timeout=WAIT_MS)   # all read


def _started(qtbot, client, started) -> None:
    _engine_says(qtbot, client, started[-1].end, p.Hello([("cpu", "CPU")]))
    assert client.model.engine_state == "ready"


def _lines(said) -> list[str]:
    return [r.text for r in said if isinstance(r, p.Notice)]


def test_a_silent_engine_is_ended_and_said_stopped_in_the_apps_words(qtbot, fake_engine):
    client, clock, started, said = fake_engine
    _started(qtbot, client, started)
    clock.now += SILENT_SECONDS + 0.5
    client._check_alive()                                 # the watch's timer
    process = started[0].process
    assert process.exitcode == -9 and not client.alive
    assert client.model.engine_state == "stopped"
    failed = [r for r in said if isinstance(r, p.Failed)]
    assert [f.event.message for f in failed] == [
        f"gradviz ended the training engine after it answered nothing for "
        f"{SILENT_SECONDS:.0f} s (frozen or stopped)."]
    # killed by the window (-9), not by the out-of-memory killer: memory is not blamed
    event = failed[0].event
    assert "memory" not in event.explanation + event.hint
    assert "stopped from outside (SIGSTOP" in event.explanation
    assert len(started) == 1                              # no Reset asked: none fresh


def test_a_reset_the_silent_engine_never_answered_starts_the_fresh_one(qtbot,
                                                                      fake_engine):
    client, clock, started, said = fake_engine
    _started(qtbot, client, started)
    client.reset()
    clock.now += SILENT_SECONDS + 0.5
    client._check_alive()
    assert len(started) == 2 and client.alive
    assert any(line.startswith("Starting a fresh training engine, as Reset asked, with "
                               "the settings it had (") for line in _lines(said))


def test_a_reset_not_answered_ends_the_engine_after_long_busy(qtbot, fake_engine):
    client, clock, started, said = fake_engine
    _started(qtbot, client, started)
    client.model.running = True
    client.reset()
    clock.now += 1.5
    client._check_alive()
    assert _lines(said)[-1].startswith("Reset (R) is waiting for the training engine's "
                                       "answer (none for 2 s); at 10 s without one")
    clock.now += LONG_BUSY_SECONDS
    client._check_alive()
    assert started[0].process.exitcode == -9 and len(started) == 2 and client.alive
    assert not client.model.running                      # the fresh engine starts paused
    assert _lines(said)[-1].startswith(
        "Reset ended the training engine, which had not answered for 12 s; starting a "
        "fresh one with the settings it had (")
    assert _lines(said)[-1].endswith("); Shift+R starts one with the default settings "
                                     "instead.")


def test_a_step_that_runs_long_is_said_and_one_reset_ends_it_at_once(qtbot, fake_engine):
    client, clock, started, said = fake_engine
    _started(qtbot, client, started)
    _engine_says(qtbot, client, started[0].end, p.Alive(WORKING, LONG_BUSY_SECONDS + 1))
    client._check_alive()
    assert _lines(said)[-1] == ("The training engine has worked on this for 11 s and is "
                                "still going: press Reset (R) to stop it.")
    client.reset()                                         # once: ended at once
    assert started[0].process.exitcode == -9 and len(started) == 2
    assert _lines(said)[-1].startswith("Reset ended the training engine, which had not "
                                       "answered for 11 s")


def test_an_engine_that_ended_without_a_word_is_said_stopped(qtbot, fake_engine):
    client, clock, started, said = fake_engine
    _started(qtbot, client, started)
    started[0].process.kill()                                  # the out-of-memory killer
    client._check_alive()
    assert not client.alive
    failed = [r for r in said if isinstance(r, p.Failed)]
    assert failed[0].event.message == ("The training engine stopped (exit code -9 / "
                                       "killed by signal SIGKILL).")
    # a kill from outside, as the out-of-memory killer sends: memory may be why
    assert "what the system does to a process that runs out of memory" in \
        failed[0].event.explanation


def test_a_starting_engine_says_what_it_is_at(qtbot, fake_engine):
    client, clock, started, said = fake_engine
    assert client.model.engine_state == "starting"   # from the start, before any beat
    _started(qtbot, client, started)
    client.restart_with_defaults()                    # a fresh one: starting again
    assert client.model.engine_state == "starting"
    started[:] = started[1:]
    clock.now += 0.5
    client._check_alive()
    assert _lines(said)[-1] == "Starting the training engine: starting Python (0 s)…"
    clock.now += 2
    _engine_says(qtbot, client, started[0].end, p.Alive(IMPORTING_TORCH, 2.0))
    assert client.model.engine_stage == IMPORTING_TORCH
    assert client.model.engine_state == "starting"
    assert _lines(said)[-1] == "Starting the training engine: importing torch (2 s)…"


def test_stopping_a_build_goes_back_to_the_model_file_before_it(qtbot, fake_engines):
    """The build is shown with its seconds and is the user's to stop; Stop building
    ends that engine and trains, in a fresh one, the file that trained before it."""
    client, _clock, said = _client(fake_engines, "/models/deep.py")
    _engine_says(qtbot, client, fake_engines[0].end, p.Hello([("cpu", "CPU")]),
                 p.ConfigApplied(Config(), False, [], model="deep.py"))
    client.open_model("/models/hangs.py")   # as File → Open model… does
    building = fake_engines[1]
    assert building.path == "/models/hangs.py"
    _engine_says(qtbot, client, building.end,
                 p.Alive(f"{BUILDING_MODEL_FILE} hangs.py", 3.0))
    assert client.model.engine_state == "building"
    assert _lines(said)[-1] == "Building the model file hangs.py… 3 s (Stop building ends it)"
    client.stop_building()
    line = "Stopped building the model file hangs.py; training the model file deep.py instead."
    assert building.process.exitcode == -9 and _lines(said)[-1] == line
    back = fake_engines[2]
    assert back.path == client.model.model_path == "/models/deep.py"
    _engine_says(qtbot, client, back.end, p.Hello([("cpu", "CPU")]),
                 p.ConfigApplied(Config(), False, [], model="deep.py"))
    failed = [r for r in said if isinstance(r, p.Failed)]   # What happened, once ready
    assert [f.event.message for f in failed] == [line]
    client.shutdown()


def test_stopping_the_first_build_trains_the_built_in_model(qtbot, fake_engines):
    client, _clock, said = _client(fake_engines, "/models/hangs.py")
    _engine_says(qtbot, client, fake_engines[0].end,
                 p.Alive(f"{BUILDING_MODEL_FILE} hangs.py", 1.0))
    client.stop_building()
    assert fake_engines[1].path is None and client.model.model_path is None
    assert _lines(said)[-1] == ("Stopped building the model file hangs.py; training the "
                                "built-in model instead.")
    client.shutdown()
