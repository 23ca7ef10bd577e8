"""The window's side of engine.protocol: one handler for every record the engine may
send; a batch that is not a list of them is refused in one log line, never a crash; and
every one of the window's engine settings survives the engine's end and a fresh start."""
import logging

from PySide6.QtCore import Qt

from gradviz.engine import protocol as p
from gradviz.plain.config import Config
from gradviz.plain.window_model import WindowModel
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
        engine_end.outbox += [p.Play(), ("records", [], 1.0), p.Running("yes")]
        engine_end.send(p.Notice("still here"))
        said: list = []
        on_record(w.engine, p.Notice, lambda r: said.append(r.text))
        w.engine.request_graph()   # wakes the engine's loop, which sends its outbox
        qtbot.waitUntil(lambda: len(said) > 0, timeout=WAIT_MS)
    assert said == ["still here"] and not w.model.running
    refused = [r for r in caplog.records if "the window refused" in r.getMessage()]
    assert len(refused) == 3


def test_every_engine_setting_survives_the_engines_end_and_a_fresh_start(make_window,
                                                                          qtbot):
    """Each setting changed as a user changes it; the engine then ends (as one that
    crashed: the window reads the end of its pipe) and R starts a fresh one, which must
    hold every one of them."""
    w = make_window(Config(device="cpu", batch_size=16, heads=2))
    w.run_bar.speed.setValue(4)                           # a pace of 100 ms
    qtbot.keyClick(w, Qt.Key_P)                           # Play phase by phase
    w.graph_view.show_saved.setChecked(True)              # saved tensors drawn
    w.graph_dock.close()                                  # no graph: no per-node hooks
    w.model.stop_at = 9                                   # a slide's stop
    wanted = p.EngineSettings(delay_ms=100, animate_phases=True, stop_at=9,
                              show_saved=True, track_node_grads=False)
    qtbot.waitUntil(lambda: w.engine.loop.settings == wanted, timeout=WAIT_MS)
    first = w.engine.loop
    generation = w.model.generation
    w.engine._conn.send(p.Shutdown())                     # the engine ends by itself
    qtbot.waitUntil(lambda: not w.engine.alive, timeout=WAIT_MS)
    qtbot.keyClick(w, Qt.Key_R)                           # a fresh engine
    qtbot.waitUntil(lambda: w.model.generation > generation, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: w.engine.loop not in (None, first)
                    and w.engine.loop.settings == wanted, timeout=WAIT_MS)
    loop = w.engine.loop
    assert loop is not first and loop.session.track_node_grads is False
    assert (loop.delay_s, loop.animate_phases, loop.stop_at) == (0.1, True, 9)
    assert w.model.engine_settings() == w.engine.sent_settings == wanted
