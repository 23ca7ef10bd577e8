"""Where a pinned B trains: on A's side, in the engine's own process (tests, and wherever
one process is simpler), or in a process of its own, so that B's step runs on a second
core while A does its next one. A plain loop of this model spends most of a step in
Python, which one process cannot run twice at once (two threads measured slower than
one, the interpreter lock passed back and forth), so the app's pinned B lives in a
process: comparing then costs A little more than its own step, not a second step.

Both runners answer in the same replies, made by BSide wherever B lives: the records
of engine.protocol's B_REPLIES (BReady, BRefused, BDone, BFailed; and, made on the
engine's side, BGone when B's process ended or stopped answering, BPending when a reset
waits for B's process to build B).
"""
from __future__ import annotations

import collections
import os
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from ..core.compare import flat_grads
from ..core.model_file import ModelFile
from ..core.session import Session
from ..core.threads import leave_a_core_free
from ..plain.config.config import Config, ConfigError
from ..plain.records import events as ev
from . import protocol as p
from .child import (
    ChildProcess,
    descendants,
    end_processes,
    exit_words,
    last_sign_of_life,
    start_isolated,
)
from .gc_settle import settle_imports
from .heartbeat import Heartbeat, SharedConnection
from .niceness import yield_to_the_window

SILENT_SECONDS = 20.0    # no beat nor CPU time for this long: B stopped making progress
BEAT_LOOK_SECONDS = 0.1  # waiting for a reply: how often to look at B's liveness
STOP_SECONDS = 0.5       # quitting: how long B's process may take to stop by itself


class BSide:
    """B's Session and what it does when asked, in whichever process it lives."""

    def __init__(self):
        self.session: Session | None = None
        self._model_file: ModelFile | None = None   # A's model file, loaded here once

    def end(self) -> None:
        """Drop B's session, ending the DDP ranks it trained with (ddp-ranks), if any."""
        if self.session is not None:
            self.session.close()
        self.session = None

    def _model(self, path: str | None) -> ModelFile | None:
        """A's model file (the path A's engine sends: plain data), loaded in B's own
        process once, again only when A's is another file."""
        if path is None:
            return None
        if self._model_file is None or str(self._model_file.path) != path:
            self._model_file = ModelFile(path)
        return self._model_file

    def reset(self, config: Config, model_path: str | None = None) -> p.BReady | p.BRefused:
        try:
            session = Session(config, self._model(model_path))
        except ConfigError as exc:
            return p.BRefused("ConfigError", str(exc))
        except (RuntimeError, MemoryError) as exc:   # e.g. too big to allocate
            return p.BRefused(type(exc).__name__, ev.first_line(exc))
        self.end()
        self.session = session
        # its bars show the latest norms: measured on sampled steps, so B costs less
        self.session.grad_norm_steps = "sampled"
        return p.BReady()

    def step(self, sample_floor: int, probes: str, sample_every: int) -> object:
        """One step, probed as A is now (the same sampling, so about the same cost)."""
        b = self.session
        if b is None:   # a refused reset stops B (engine.pinned), so this is only a guard
            return p.BRefused("RuntimeError", "B was not built: its reset was refused")
        try:
            b.sample_floor = sample_floor
            if (b.config.probes, b.config.sample_every) != (probes, sample_every):
                b.set_config(b.config.replace(probes=probes, sample_every=sample_every))
            record = b.step()
            if record is None:
                assert b.error is not None   # step() gives None only with an error
                return p.BFailed(b.error)
            return p.BDone(record, flat_grads(b))
        except Exception as exc:  # a bug of ours stops B alone, never A
            return p.BFailed(ev.from_exception(exc, b.step_index, "internal",
                                               "gradviz itself (B)"))


class LocalB:
    """B in this process: each step done at once, its reply kept until asked for."""

    def __init__(self):
        self._side = BSide()
        self._replies: collections.deque[object] = collections.deque()
        self.step_index = 0   # steps B has been asked to do since its reset

    def reset(self, config: Config, model_path: str | None = None) -> object:
        self._replies.clear()
        self.step_index = 0
        return self._side.reset(config, model_path)

    def start_step(self, sample_floor: int, probes: str, sample_every: int) -> None:
        self._replies.append(self._side.step(sample_floor, probes, sample_every))
        self.step_index += 1

    def ready(self) -> bool:
        return bool(self._replies)

    def reply(self) -> object:
        """The reply to the oldest step asked for and not yet read."""
        return self._replies.popleft()

    def watch(self) -> None:
        """Nothing to look at: B lives in this process, and its end is A's."""
        return None

    def connection(self) -> None:
        return None

    def close(self) -> None:
        self._side.end()


class BServer:
    """B's process answering A's engine: one handler per record of protocol.TO_B."""

    def __init__(self, conn: SharedConnection, beat: Heartbeat):
        self.conn, self.beat = conn, beat
        self.side = BSide()
        self.stopped = False
        self.handlers: dict[type, Callable[[Any], None]] = {
            p.BReset: self._on_reset, p.BStep: self._on_step, p.BStop: self._on_stop}

    def _on_reset(self, message: p.BReset) -> None:
        self.beat.stage = "building the model"
        self.conn.send(self.side.reset(message.config, message.model_path))
        self.beat.stage = "ready"

    def _on_step(self, message: p.BStep) -> None:
        self.conn.send(self.side.step(message.sample_floor, message.probes,
                                      message.sample_every))

    def _on_stop(self, _: p.BStop) -> None:
        self.stopped = True

    def serve(self) -> None:
        while not self.stopped:
            message = p.receive(self.conn, "B's engine")
            if message is not None:
                p.dispatch("B's engine", self.handlers, message)


def serve(conn: SharedConnection, beat: Heartbeat) -> None:
    """B's process (engine.b_process, which started the beat before torch was imported):
    answer reset and step until told to stop or A's end closes."""
    try:
        leave_a_core_free(sharers=2)   # A's engine trains at the same time
        yield_to_the_window()
        settle_imports()   # torch and gradviz are imported: out of the full scans
        server = BServer(conn, beat)
        beat.stage = "ready"
        server.serve()
    except (EOFError, BrokenPipeError, ConnectionResetError, OSError):
        pass    # A's engine is gone: so is B
    finally:
        beat.stop()
        conn.close()
        os._exit(0)   # skip torch's teardown: nothing to save, and quitting must be quick


class ProcessB:
    """B in a process of its own (a fresh, isolated interpreter running this module,
    joined to the engine by a socket pair), started at the first reset and again after
    it has died. Steps are asked for as A does them and their replies read when A wants
    them: B works through the ones asked for meanwhile, so neither process waits for
    the other at each step. Nothing here blocks A's engine while B loads torch: reset
    answers BPending and the reply is read, like a step's, once it is in.

    B is judged by its heartbeat, never by a stopwatch: slow but beating is waited for
    (its stage is `stage`), silent for SILENT_SECONDS is stopped."""

    def __init__(self):
        self._process: ChildProcess | None = None
        self._conn: Connection | None = None
        self._replies: collections.deque[object] = collections.deque()
        self._in_flight = 0   # replies asked for (resets and steps) not yet read
        self._discard = 0     # replies still to come for a B since reset: dropped
        self._last_beat = 0.0
        self.stage = ""       # what B's process last said it was doing
        self.step_index = 0
        # what B's process may say, and who takes it (protocol.FROM_B)
        self.handlers: dict[type, Callable[[Any], None]] = {
            p.Alive: self._on_alive, p.BReady: self._on_reply, p.BRefused: self._on_reply,
            p.BDone: self._on_reply, p.BFailed: self._on_reply}

    def _on_alive(self, message: p.Alive) -> None:
        self.stage = message.stage

    def _on_reply(self, message: object) -> None:
        if self._discard:
            self._discard -= 1
        else:
            self._replies.append(message)

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    def prepare(self) -> None:
        """Start the process now rather than at the first reset: it loads torch (about
        2 s) while the user is still choosing B. A start that fails is said at reset."""
        if self._process is None or not self._process.is_alive():
            self.close()
            try:
                self._start()
            except OSError:
                self.close()

    def _start(self) -> Connection:
        self._process, self._conn = start_isolated("gradviz.engine.b_process")
        self._discard = 0
        self._last_beat = time.monotonic()
        self.stage = "starting Python"
        return self._conn

    def _gone(self, how: str) -> p.BGone:
        self.close()
        return p.BGone(how)

    def _ended(self) -> p.BGone:
        process = self._process
        if process is not None:
            process.join(STOP_SECONDS)
        code = None if process is None else process.exitcode
        return self._gone(f"stopped ({exit_words(code)})")

    def _pump(self, wait: float = 0.0) -> p.BGone | None:
        """Read what has come (waiting up to `wait` for it): beats are noted, replies
        kept in order. A BGone reply when the process ended or fell silent, or said
        what is no message of B's (its replies would no longer match the steps)."""
        conn = self._conn
        if conn is None:   # closed: nothing more comes
            return p.BGone("was stopped")
        try:
            while conn.poll(wait):
                wait = 0.0
                message = p.receive(conn, "A's engine (from B)")
                self._last_beat = time.monotonic()
                if message is None or not p.dispatch("A's engine (from B)", self.handlers,
                                                     message):
                    return self._gone("sent a message gradviz cannot read, and was "
                                      "stopped")
        except (EOFError, BrokenPipeError, ConnectionResetError, OSError):
            return self._ended()
        process = self._process
        if process is None or not process.is_alive():
            return self._ended()
        # CPU time is looked at every time, so that it is known when it stopped growing
        self._last_beat = last_sign_of_life(process, self._last_beat)
        if time.monotonic() - self._last_beat > SILENT_SECONDS:
            return self._gone(f"answered nothing for {SILENT_SECONDS:g} s (frozen or "
                              f"stopped), and gradviz ended it")
        return None

    def watch(self) -> p.BGone | None:
        """B's process looked at while nothing is asked of it (its comparison paused):
        its beats read (they would fill the socket), and its end said, BGone, whether
        it ended (a kill, a crash) or fell silent. None: alive, or closed already."""
        if self._conn is None:
            return None
        return self._pump()

    def connection(self) -> Connection | None:
        """Our end of B's socket, readable when B beats, replies or ends (None: no
        process)."""
        return self._conn

    def reset(self, config: Config, model_path: str | None = None) -> p.BPending | p.BGone:
        # the replies still on their way belong to the old B: dropped as they come
        self._discard += max(0, self._in_flight - len(self._replies))
        self._replies.clear()
        self._in_flight = 0
        conn = self._conn
        if conn is None or self._process is None or not self._process.is_alive():
            self.close()
            try:
                conn = self._start()
            except OSError as exc:   # no interpreter to run, no process left to make
                return p.BGone(f"could not be started ({ev.first_line(exc)})")
        self.step_index = 0
        try:
            conn.send(p.BReset(config, model_path))
        except (BrokenPipeError, ConnectionResetError, OSError):
            return self._ended()
        self._in_flight = 1
        return p.BPending()

    def start_step(self, sample_floor: int, probes: str, sample_every: int) -> None:
        self.step_index += 1
        self._in_flight += 1
        if self._conn is None:   # closed: reply() says so
            return
        try:
            self._conn.send(p.BStep(sample_floor, probes, sample_every))
        except (BrokenPipeError, ConnectionResetError, OSError):
            pass        # reply() finds out how it ended

    def ready(self) -> bool:
        """A reply is in (or B's process has gone: reply() says how, at once)."""
        if self._conn is None or self._replies:
            return True
        gone = self._pump()
        if gone is not None:
            self._replies.append(gone)
        return bool(self._replies)

    def reply(self) -> object:
        """The reply to the oldest reset or step asked for and not yet read (waiting
        for it, for as long as B's process beats)."""
        self._in_flight = max(0, self._in_flight - 1)
        while not self._replies:
            if self._conn is None:
                return p.BGone("was stopped")
            gone = self._pump(BEAT_LOOK_SECONDS)
            if gone is not None:
                return gone
        return self._replies.popleft()

    def close(self) -> None:
        """Stop B's process: asked first, killed if it does not stop at once. What it
        started (a model file's children) ends with it, at unpinning, not only when A's
        engine ends: they are looked up while B still runs, since once B has gone they
        are nobody's children."""
        conn, process, self._conn, self._process = self._conn, self._process, None, None
        self._in_flight = 0
        started = [] if process is None else descendants(process.pid)
        if conn is not None:
            try:
                conn.send(p.BStop())
            except (BrokenPipeError, ConnectionResetError, OSError):
                pass
            conn.close()
        if process is not None:
            process.join(STOP_SECONDS)
            if process.is_alive():
                process.kill()
                process.join()
        end_processes(started)


class BPlace:
    """Where a pinned B trains: in a process of its own (the app's engine, on POSIX, which
    hands the socket pair down to it) or else in the engine's; and B's process started
    ahead of a pin, while the Compare menu is open, until a pin takes it."""

    def __init__(self, own_process: bool):
        self.own_process = own_process and os.name == "posix"
        self._spare: ProcessB | None = None

    def warm(self) -> None:
        """Start B's process now: it loads torch (about 2 s) while the user chooses B."""
        if self.own_process and self._spare is None:
            self._spare = ProcessB()
            self._spare.prepare()

    def runner(self) -> LocalB | ProcessB:
        """A runner for a new pin: the process started ahead, if there is one."""
        if not self.own_process:
            return LocalB()
        spare, self._spare = self._spare, None
        return spare if spare is not None else ProcessB()

    def close(self) -> None:
        """The process started ahead and never pinned ends."""
        if self._spare is not None:
            self._spare.close()
            self._spare = None

