"""engine.protocol: every record crosses a real socket pair unchanged; every record a
side may receive has exactly one handler in that side's table (a record added without
one fails here); what is not a record of that side, or has a field of the wrong type,
is refused in one log line and changes nothing."""
import dataclasses
import functools
import inspect
import logging
import socket
from multiprocessing.connection import Connection

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradviz.core.session import Session
from gradviz.engine import b_runner, host
from gradviz.engine import protocol as p
from gradviz.engine.heartbeat import Heartbeat, SharedConnection
from gradviz.engine.loop import EngineLoop
from gradviz.plain.config.config import Config
from gradviz.plain.records import events as ev
from gradviz.plain.records.records import CompareRecord

CONFIG = Config(device="cpu", heads=2, trunk_width=8, batch_size=16)
# records that are never received as messages of their own: the first message, read
# once by engine_process.main; a field of Settings and Slide; B's replies that A's
# engine makes itself (B's process ended; a reset waiting for B's process)
NOT_DISPATCHED = {p.Begin, p.EngineSettings, p.BGone, p.BPending}


def _records() -> list[type]:
    # EngineSettings is plain data the window's model composes; the protocol carries it
    return [cls for _, cls in inspect.getmembers(p, inspect.isclass)
            if (cls.__module__ == p.__name__ or cls is p.EngineSettings)
            and dataclasses.is_dataclass(cls)]


@pytest.fixture(scope="module")
def examples() -> dict[type, object]:
    """One real instance of every record (a real session's step, phase and graph)."""
    session = Session(CONFIG)
    record = session.step()
    phase = session.advance_phase()
    graph = session.graph()
    event = ev.Event(3, "backward", "backward 2 of 2 (head1)", "RuntimeError",
                     "Trying to backward through the graph a second time", "Freed graph",
                     "why", "hint")
    settings = p.EngineSettings(delay_ms=200, animate_phases=True, stop_at=7,
                                show_saved=True, track_node_grads=False)
    made = [
        p.Begin(CONFIG), p.SetConfig(CONFIG), p.Settings(settings), p.Play(), p.Pause(),
        p.Phase(), p.Step(), p.Reset(), p.RunSteps(12), p.RequestGraph(),
        p.ExportTorchviz("/tmp/g.dot"), p.Shutdown(), p.PinB(CONFIG), p.PinB(None),
        p.WarmB(), p.WarmNext(CONFIG), p.WarmNext(None), p.Slide(CONFIG, settings, True),
        p.Hello([("cpu", "the CPU")]), p.Alive("importing torch", 1.5),
        p.ConfigApplied(CONFIG, True, ["trunk.0.weight"]), p.ConfigRejected("no"),
        p.Notice("a line"), p.PhaseDone(phase), p.Failed(event), p.Running(True),
        p.Graph(graph, "after one step"), p.StepsDone(4), p.Records([record], 120.0),
        p.BPinned(CONFIG, None), p.BPinned(None, "why not"),
        p.Compared([CompareRecord(0, "same gradients", True, b=record)]), p.Warmed(2),
        p.BReset(CONFIG), p.BStep(1, "default", 20), p.BStop(), p.BReady(),
        p.BRefused("ConfigError", "bad"), p.BDone(record, np.arange(5, dtype=np.float32)),
        p.BFailed(event), p.BGone("was stopped"), p.BPending(), settings,
    ]
    return {type(m): m for m in made} | {"all": made}


def _pair() -> tuple[Connection, Connection]:
    """Two ends of a socket pair, as engine.child joins a child to its parent."""
    ours, theirs = socket.socketpair()
    return Connection(ours.detach()), Connection(theirs.detach())


def _same(a: object, b: object) -> bool:
    if isinstance(a, p.BDone):
        assert isinstance(b, p.BDone)
        return a.record == b.record and np.array_equal(a.grads, b.grads) \
            and a.grads.dtype == b.grads.dtype
    return a == b


def test_every_record_crosses_a_socket_pair_unchanged_and_passes_its_own_check(examples):
    assert set(examples) - {"all"} == set(_records())   # an example of each record
    ours, theirs = _pair()
    try:
        for message in examples["all"]:
            ours.send([message])          # as the engine sends: in a list
            assert theirs.poll(10)
            (back,) = theirs.recv()
            assert type(back) is type(message) and _same(back, message), message
            assert p.problem(back, (type(back),)) is None
    finally:
        ours.close()
        theirs.close()


def test_a_childs_heartbeat_crosses_its_socket_pair_as_alive_records():
    """A child (the engine, B) beats with Alive from its first moment, before torch."""
    ours, theirs = _pair()
    beat = Heartbeat(SharedConnection(theirs), p.Alive, "importing torch").start()
    try:
        assert ours.poll(10)
        assert ours.recv() == p.Alive("importing torch", pytest.approx(0, abs=1))
    finally:
        beat.stop()
        ours.close()
        theirs.close()


def _handlers() -> dict[tuple[type, ...], dict[type, object]]:
    """Each receiving side's table, keyed by the records that side may receive."""
    loop = EngineLoop(CONFIG)
    server = b_runner.BServer(SharedConnection(None), None)
    return {p.TO_ENGINE: loop.handlers, p.TO_B: server.handlers,
            p.FROM_B: b_runner.ProcessB().handlers}


def test_every_record_a_side_receives_has_exactly_one_handler_there():
    """The window's table is checked in tests/qt/test_engine_client_protocol.py."""
    for expected, table in _handlers().items():
        assert set(table) == set(expected), (expected, table)
        assert len(expected) == len(set(expected))
        assert all(callable(handler) for handler in table.values())
    loop_table = _handlers()[p.TO_ENGINE]
    # one command, one handler of its own: no two commands share one
    assert len({h.__func__ for h in loop_table.values()}) == len(loop_table)


def test_every_record_is_received_by_some_side_or_named_as_never_dispatched():
    received = set(p.TO_ENGINE) | set(p.FROM_ENGINE) | set(p.TO_B) | set(p.FROM_B)
    assert received | NOT_DISPATCHED == set(_records())
    assert set(p.ALL) == set(_records())


def test_an_unknown_or_malformed_command_is_refused_in_one_log_line(caplog):
    loop = EngineLoop(CONFIG)
    loop.take_outbox()
    for bad in [("play",), "play", None, p.RunSteps("ten"), p.SetConfig(None),  # type: ignore
                p.Hello([]), p.Settings(p.EngineSettings(delay_ms="fast")),  # type: ignore
                p.Settings(None)]:  # type: ignore[arg-type]
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="gradviz.protocol"):
            loop.handle(bad)
        assert len(caplog.records) == 1 and "the engine refused a message" in caplog.text
        assert "\n" not in caplog.records[0].getMessage()
    assert loop.take_outbox() == [] and not loop.player.running
    assert loop.player.settings == p.EngineSettings()
    loop.handle(p.RunSteps(2))                # and it goes on answering
    assert loop.player.steps_left == 2


@settings(max_examples=60, deadline=None)
@given(st.one_of(
    st.none(), st.integers(), st.text(max_size=8), st.binary(max_size=8),
    st.tuples(st.sampled_from(["play", "step", "config", "pin_b"]), st.integers()),
    st.builds(p.RunSteps, st.one_of(st.text(max_size=4), st.floats(), st.none())),
    st.builds(p.ExportTorchviz, st.one_of(st.integers(), st.none())),
    st.builds(p.PinB, st.one_of(st.integers(), st.text(max_size=4))),
    st.builds(p.Slide, st.none(), st.builds(p.EngineSettings), st.booleans()),
    st.builds(p.Settings, st.builds(p.EngineSettings, delay_ms=st.text(max_size=3))),
    st.builds(p.Settings, st.builds(p.EngineSettings, stop_at=st.floats())),
))
def test_nothing_malformed_reaches_a_handler(message):
    loop = _idle_loop()
    before = loop.player.settings
    loop.handle(message)
    assert loop.take_outbox() == [] and loop.player.settings == before and not loop.player.running


@functools.cache
def _idle_loop() -> EngineLoop:
    """One engine for all of hypothesis's examples: none of them may change it."""
    loop = EngineLoop(CONFIG)
    loop.take_outbox()
    return loop


def test_bytes_that_are_no_message_leave_the_engine_answering(caplog):
    """The engine on a thread, fed over its pipe as the window feeds it."""
    thread, conn = host.start_thread(CONFIG)
    try:
        with caplog.at_level(logging.WARNING, logger="gradviz.protocol"):
            conn.send_bytes(b"not a pickle")
            conn.send(p.Step())
            out: list = []
            while not any(isinstance(m, p.Records) for m in out):
                assert conn.poll(60), "the engine went quiet"
                out += conn.recv()
        assert [r.step for m in out if isinstance(m, p.Records) for r in m.records] == [0]
        assert "could not read" in caplog.text
    finally:
        conn.send(p.Shutdown())
        thread.join(60)
        conn.close()
    assert not thread.is_alive()


@pytest.mark.parametrize("message", [
    p.RunSteps(True), p.Warmed(False), p.StepsDone(True),  # type: ignore[arg-type]
    p.Settings(p.EngineSettings(delay_ms=True)),  # type: ignore[arg-type]
    p.Settings(p.EngineSettings(stop_at=False)),  # type: ignore[arg-type]
    p.Alive("working", True),  # type: ignore[arg-type]
    p.BStep(True, "default", 20),  # type: ignore[arg-type]
])
def test_a_bool_where_a_number_is_meant_is_refused(message):
    """isinstance(True, int) holds in Python: RunSteps(True) would train one step, and a
    stop at False would stop at step 0."""
    assert p.problem(message, (type(message),)) is not None


def test_a_bool_command_reaches_no_handler_and_numbers_do(caplog):
    loop = EngineLoop(CONFIG)
    loop.take_outbox()
    with caplog.at_level(logging.WARNING, logger="gradviz.protocol"):
        loop.handle(p.RunSteps(True))  # type: ignore[arg-type]
        loop.handle(p.Settings(p.EngineSettings(stop_at=True)))  # type: ignore[arg-type]
    assert loop.player.steps_left is None and loop.player.stop_at is None
    assert caplog.text.count("the engine refused a message") == 2
    loop.handle(p.Settings(p.EngineSettings(stop_at=1, delay_ms=5)))
    loop.handle(p.RunSteps(1))
    assert loop.player.stop_at == 1 and loop.player.steps_left == 1
    # an int where a float is meant is a number too (Alive's seconds)
    assert p.problem(p.Alive("working", 2), (p.Alive,)) is None


def test_a_list_field_holding_no_list_is_refused():
    for message in (p.Records("not a list", 1.0), p.Compared(None),  # type: ignore
                    p.Hello("cpu")):  # type: ignore[arg-type]
        assert p.problem(message, (type(message),)) is not None, message
    assert p.problem(p.Records([], 1.0), (p.Records,)) is None


def test_the_other_side_gone_is_the_callers_to_see_not_a_refusal():
    """EOF on the pipe ends the engine (the window is gone), where bytes that are no
    message are refused and reading goes on."""
    ours, theirs = _pair()
    theirs.close()
    try:
        with pytest.raises(EOFError):
            p.receive(ours, "the engine")
    finally:
        ours.close()
