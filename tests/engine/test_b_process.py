"""B pinned in a process of its own (as the app's engine pins it): the same comparison
as B beside A in one process, B's process killed or hung stops B alone (A goes on, the
record says why in words), whether its comparison plays or sits paused, Reset starts a
fresh one, and the engine's end ends it."""
import multiprocessing
import os
import signal
import threading
from pathlib import Path

import pytest

from gradviz.engine import b_runner, child, engine_main
from gradviz.engine import protocol as p
from gradviz.engine.loop import EngineLoop
from gradviz.plain.config.config import Config
from gradviz.plain.records.records import StepRecord

pytestmark = pytest.mark.skipif(os.name != "posix", reason="B's process needs POSIX")

BASE = Config(device="cpu", heads=3, trunk_width=16, batch_size=32)


def engine(a: Config, b: Config, own_process: bool) -> EngineLoop:
    loop = EngineLoop(a, b_in_own_process=own_process)
    loop.handle(p.PinB(b))
    pinned = [m for m in loop.take_outbox() if isinstance(m, p.BPinned)]
    assert pinned[-1] == p.BPinned(b, None)
    return loop


def steps(loop: EngineLoop, n: int) -> tuple[list, list]:
    """n optimizer steps of A, then B's replies waited for: (A's records, B's)."""
    a, compared = [], []
    for _ in range(n):
        loop.handle(p.Step())
        for message in loop.take_outbox():
            a += message.records if isinstance(message, p.Records) else []
            compared += message.records if isinstance(message, p.Compared) else []
    loop.pinning.pinned.collect()     # waits on B's replies still in flight
    compared += [r for m in loop.take_outbox() if isinstance(m, p.Compared) for r in m.records]
    return a, compared


def b_process(loop: EngineLoop):
    runner = loop.pinning.pinned.b
    assert isinstance(runner, b_runner.ProcessB) and runner.pid != os.getpid()
    return runner._process


def test_b_in_its_own_process_compares_as_b_in_this_one_does():
    b = BASE.replace(strategy="in-loop")
    here, there = engine(BASE, b, False), engine(BASE, b, True)
    assert isinstance(here.pinning.pinned.b, b_runner.LocalB)
    try:
        _, local = steps(here, 6)
        a, remote = steps(there, 6)
        b_process(there)
    finally:
        there.handle(p.Shutdown())
    assert [r.step for r in remote] == [r.step for r in a] == list(range(6))
    # in-loop backward: head k's gradient reaches the trunk K - k times
    assert remote[0].diff.junction_ratio == pytest.approx([3, 2, 1], rel=1e-5)
    for mine, theirs in zip(local, remote):
        assert theirs.diff.groups == mine.diff.groups          # bit for bit
        assert theirs.b.losses == mine.b.losses and theirs.verdict == mine.verdict
    assert remote[-1].step_verdict == local[-1].step_verdict
    assert remote[-1].verdict.startswith("different: B's gradient on the trunk, head 0: 3.00×")


def test_killing_bs_process_stops_b_alone_and_reset_starts_a_fresh_one():
    loop = engine(BASE, BASE.replace(strategy="separate"), True)
    try:
        steps(loop, 2)
        first = b_process(loop)
        os.kill(first.pid, signal.SIGKILL)
        first.join(10)
        a, compared = steps(loop, 3)
        assert [r.step for r in a] == [2, 3, 4] and loop.session.error is None  # A goes on
        stops = [r for r in compared if r.error is not None]
        assert len(stops) == 1 and compared[-1] is stops[0]
        assert stops[0].error.message == ("B's engine process stopped (exit code -9 / "
                                          "killed by signal SIGKILL).")
        assert stops[0].verdict.startswith("B stopped at step 2: B's engine stopped")
        loop.handle(p.Reset())                       # both from step 0, B in a new process
        assert b_process(loop).pid != first.pid
        a, compared = steps(loop, 2)
        assert [r.step for r in compared] == [0, 1] and all(r.same for r in compared)
    finally:
        loop.handle(p.Shutdown())


def test_a_b_that_stops_answering_is_stopped_and_said_so(monkeypatch):
    monkeypatch.setattr(b_runner, "SILENT_SECONDS", 1.0)
    loop = engine(BASE, BASE, True)
    try:
        steps(loop, 1)
        stuck = b_process(loop)
        os.kill(stuck.pid, signal.SIGSTOP)        # a step that never ends, as B sees it
        a, compared = steps(loop, 3)
        assert [r.step for r in a] == [1, 2, 3]
        assert compared[-1].error.message == ("B's engine process answered nothing for "
                                              "1 s (frozen or stopped), and gradviz "
                                              "ended it.")
        assert stuck.exitcode is not None           # killed, not left behind
    finally:
        loop.handle(p.Shutdown())


def test_the_engines_end_ends_bs_process():
    loop = engine(BASE, BASE, True)
    steps(loop, 2)
    process = b_process(loop)
    loop.handle(p.Shutdown())
    assert process.exitcode is not None   # gone when SHUTDOWN returns
    assert loop.pinning.pinned is None


def test_pinning_another_b_keeps_bs_process_and_unpinning_ends_it():
    loop = engine(BASE, BASE, True)
    try:
        steps(loop, 1)
        process = b_process(loop)
        loop.handle(p.PinB(BASE.replace(strategy="in-loop")))   # another B: same process
        assert b_process(loop) is process
        loop.handle(p.PinB(None))
        assert process.exitcode is not None and loop.pinning.pinned is None
    finally:
        loop.handle(p.Shutdown())


def test_a_b_whose_process_cannot_start_is_stopped_in_words_and_a_trains_on(monkeypatch):
    monkeypatch.setattr(child.sys, "executable", "/nonexistent/python")
    loop = EngineLoop(BASE, b_in_own_process=True)
    loop.handle(p.PinB(BASE))
    compared = [r for m in loop.take_outbox() if isinstance(m, p.Compared) for r in m.records]
    assert compared[-1].error.message.startswith(
        "B's engine process could not be started ([Errno 2] No such file or directory")
    loop.handle(p.Step())
    out = loop.take_outbox()
    assert [r.step for m in out if isinstance(m, p.Records) for r in m.records] == [0]
    loop.handle(p.Shutdown())


def test_bs_pytorch_error_crosses_from_its_process_in_pytorchs_words():
    loop = engine(BASE, BASE.replace(strategy="separate", retain_graph="never"), True)
    try:
        a, compared = steps(loop, 3)
        assert [r.step for r in a] == [0, 1, 2] and loop.session.error is None
        assert len(compared) == 1 and compared[0].diff is None
        assert "backward through the graph a second time" in compared[0].error.message
        assert compared[0].verdict.startswith(
            "B stopped at step 0: Backward through a freed graph")
    finally:
        loop.handle(p.Shutdown())


def _b_processes_of_this_one() -> list[int]:
    """B's processes whose parent is this test's process (Linux's /proc)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            words = cmdline.read_bytes().split(b"\0")
            parent = int((cmdline.parent / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue   # ended while being read
        if parent == os.getpid() and b"gradviz.engine.b_process" in words:
            found.append(int(cmdline.parent.name))
    return found


def _b_processes_once_up(loop) -> list[int]:
    """B's processes, once the one started ahead has said it is up (its first heartbeat,
    sent before any import): Popen returns when the exec has begun, and Linux fills
    /proc/N/cmdline a moment later (a loaded machine found none there once)."""
    spare = loop.pinning.place._spare
    assert spare is not None and spare._conn.poll(60), "B's process never said it is up"
    return _b_processes_of_this_one()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="looks in Linux's /proc")
def test_the_compare_menu_starts_bs_process_ahead_and_the_pin_takes_that_one():
    loop = EngineLoop(BASE, b_in_own_process=True)
    try:
        loop.handle(p.WarmB())
        loop.handle(p.WarmB())                  # the menu opened again: still one process
        warm = _b_processes_once_up(loop)
        assert len(warm) == 1
        loop.handle(p.PinB(BASE.replace(strategy="in-loop")))
        assert [m for m in loop.take_outbox() if isinstance(m, p.BPinned)][-1].problem is None
        assert b_process(loop).pid == warm[0]  # the one started ahead, not a new one
        _, compared = steps(loop, 2)
        assert [r.step for r in compared] == [0, 1]
        assert compared[0].diff.junction_ratio == pytest.approx([3, 2, 1], rel=1e-5)
        loop.handle(p.WarmB())                  # while pinned: nothing more is started
        assert _b_processes_of_this_one() == warm
    finally:
        loop.handle(p.Shutdown())
    assert _b_processes_of_this_one() == []


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="looks in Linux's /proc")
def test_a_b_process_started_ahead_and_never_pinned_ends_with_the_engine():
    loop = EngineLoop(BASE, b_in_own_process=True)
    loop.handle(p.WarmB())
    assert len(_b_processes_once_up(loop)) == 1
    loop.handle(p.Shutdown())
    assert _b_processes_of_this_one() == []


def test_a_b_that_starts_slowly_never_blocks_as_engine_and_is_waited_for(monkeypatch):
    """A busy laptop took 13-14 s to import torch in B's process: A's engine goes on
    answering meanwhile (A ahead of B by at most MAX_AHEAD steps when playing), says
    what B's process is doing, and compares every step once B is up."""
    from gradviz.engine import pinned as pinned_module
    monkeypatch.setenv("GRADVIZ_SLOW_START", "4")
    monkeypatch.setattr(b_runner, "SILENT_SECONDS", 2.0)   # slow, but beating
    loop = engine(BASE, BASE.replace(strategy="separate"), True)
    try:
        for _ in range(3):
            loop.handle(p.Step())           # each answered at once: none waits for B
        assert loop.pinning.pinned.building
        while loop.pinning.pinned.b.stage != "importing torch":   # its first beats
            assert not loop.pinning.pinned.b.ready()
        loop.handle(p.Play())
        assert loop.due_in() == 0         # A may go on: 3 steps ahead of B
        loop.train_batch(lambda: False)
        assert loop.session.step_index == pinned_module.MAX_AHEAD
        assert loop.pinning.pinned.holding_a and loop.due_in() > 0   # now A waits, unblocked
        loop.say_how_b_starts()
        notices = [m.text for m in loop.take_outbox() if isinstance(m, p.Notice)]
        assert notices == ["Compare: B's engine is starting (importing torch); "
                           "A waits for it."]
        loop.handle(p.Pause())
        loop.pinning.pinned.collect()             # B beats all the while: waited for, not stopped
        compared = [r for m in loop.take_outbox() if isinstance(m, p.Compared) for r in m.records]
        # (Pause does one more step, measured, for the paused graph)
        assert [r.step for r in compared] == list(range(pinned_module.MAX_AHEAD + 1))
        assert all(r.same and r.error is None for r in compared)
    finally:
        loop.handle(p.Shutdown())


WAIT_S = 120   # for B's process to start (it imports torch) and answer, at most


def serving(a: Config, b: Config):
    """The engine's loop answering a pipe on a thread, as the app's engine process does
    (engine_main), B pinned in a process of its own: (the window's end, the loop, the
    thread)."""
    loop = engine(a, b, True)
    ours, theirs = multiprocessing.Pipe()
    thread = threading.Thread(target=engine_main._serve, args=(theirs, loop, None),
                              daemon=True)
    thread.start()
    return ours, loop, thread


def until(conn, pick):
    """The first record the engine sends for which pick(record) is true (Records and
    Compared opened into their steps' records), waiting on the pipe."""
    while conn.poll(WAIT_S):
        for message in conn.recv():
            inside = message.records if isinstance(message, (p.Records, p.Compared)) \
                else [message]
            for record in inside:
                if pick(record):
                    return record
    raise AssertionError("the engine said nothing more")


def _compared(step: int):
    return lambda r: getattr(r, "diff", None) is not None and r.step >= step


def _b_stopped(r) -> bool:
    return getattr(r, "error", None) is not None and hasattr(r, "verdict")


def _ended(ours, thread) -> None:
    ours.send(p.Shutdown())
    thread.join(WAIT_S)
    assert not thread.is_alive()


def test_b_killed_while_its_comparison_sits_paused_is_said_at_once(monkeypatch):
    """A paused takes no step, and B's end was found only at A's next one: the dock said
    nothing. B's process is watched while A waits too. (Its silence limit is set far
    off: only its end can have said it.)"""
    monkeypatch.setattr(b_runner, "SILENT_SECONDS", 3600.0)
    ours, loop, thread = serving(BASE, BASE.replace(strategy="separate"))
    try:
        for _ in range(2):
            ours.send(p.Step())
        until(ours, _compared(1))            # both steps compared: A sits paused
        process = b_process(loop)
        os.kill(process.pid, signal.SIGKILL)
        stop = until(ours, _b_stopped)        # nothing more is sent to the engine
        assert stop.error.message == ("B's engine process stopped (exit code -9 / "
                                      "killed by signal SIGKILL).")
        assert stop.verdict.startswith("B stopped at step 2: B's engine stopped")
        assert not loop.player.running and loop.session.step_index == 2   # A still paused
    finally:
        _ended(ours, thread)


def test_b_killed_while_its_comparison_plays_is_said_and_a_plays_on(monkeypatch):
    monkeypatch.setattr(b_runner, "SILENT_SECONDS", 3600.0)
    ours, loop, thread = serving(BASE, BASE.replace(strategy="separate"))
    try:
        ours.send(p.Play())
        until(ours, _compared(2))
        os.kill(b_process(loop).pid, signal.SIGKILL)
        stop = until(ours, _b_stopped)
        assert stop.error.message == ("B's engine process stopped (exit code -9 / "
                                      "killed by signal SIGKILL).")
        later = until(ours, lambda r: isinstance(r, StepRecord) and r.step > stop.step + 5)
        assert later is not None and loop.session.error is None   # A plays on
        ours.send(p.Pause())
    finally:
        _ended(ours, thread)


def test_b_stopped_while_its_comparison_sits_paused_is_ended_after_its_silence(
        monkeypatch):
    monkeypatch.setattr(b_runner, "SILENT_SECONDS", 1.0)
    ours, loop, thread = serving(BASE, BASE)
    try:
        ours.send(p.Step())
        until(ours, _compared(0))
        process = b_process(loop)
        os.kill(process.pid, signal.SIGSTOP)
        stop = until(ours, _b_stopped)
        assert stop.error.message == ("B's engine process answered nothing for 1 s "
                                      "(frozen or stopped), and gradviz ended it.")
        assert process.exitcode is not None           # killed, not left behind
    finally:
        _ended(ours, thread)
