"""The engine's life in a process of its own (or on a test's thread): the pipe to the
window, the loop answering it and training between its commands, and the end, which
takes B's process with it."""
from __future__ import annotations

import os
from multiprocessing import connection
from pathlib import Path

from ..core.devices import available_devices
from ..core.threads import leave_a_core_free
from ..plain.config.config import Config
from ..plain.records.engine_stages import BUILDING_MODEL, BUILDING_MODEL_FILE, READY, WORKING
from . import protocol as p
from .child import end_own_group
from .gc_settle import settle_imports
from .loop import EngineLoop
from .niceness import yield_to_the_window
from .profiled import profiled

B_LOOK_SECONDS = 0.005  # B's steps in flight: how soon to look for their replies again
B_IDLE_LOOK_SECONDS = 0.5   # B pinned, A idle: how often, at least, B's process is looked at
# the next slide's ranks or kernel starting ahead: how often to look whether they are ready
WARM_LOOK_SECONDS = 0.1


def run(conn, config: Config, own_process: bool = True, holder: dict | None = None,
        beat=None, model_path: str | None = None) -> None:
    """Answer commands and train until Shutdown or the window's end of the pipe closes
    (the window quit or died: an engine must never outlive it). beat: the process's
    Heartbeat (None on a test's thread), told each stage of the start."""
    if own_process:
        leave_a_core_free()
        yield_to_the_window()
        settle_imports()   # torch and gradviz are imported: out of the full scans
    loop = None
    try:
        conn.send([p.Hello(available_devices())])
        if beat is not None:   # the window shows this stage (and a Stop) meanwhile
            beat.stage = BUILDING_MODEL if model_path is None else \
                f"{BUILDING_MODEL_FILE} {Path(model_path).name}"
        loop = EngineLoop(config, b_in_own_process=own_process, model_path=model_path)
        if beat is not None:
            beat.stage = READY
            loop.say_stage = lambda stage: setattr(beat, "stage", stage)
        if holder is not None:
            holder["loop"] = loop
        with profiled():   # with GRADVIZ_ENGINE_PROFILE only
            _serve(conn, loop, beat)
    except (EOFError, BrokenPipeError, ConnectionResetError, OSError):
        pass   # the window is gone
    finally:
        if beat is not None:
            beat.stop()
        if loop is not None:
            loop.end_b()   # B's process, if any, ends with the engine
            loop.next_slide.end()   # and the ranks started ahead for a next slide
        conn.close()
        if own_process:
            end_own_group()   # what a model file started ends with the engine
            # skip the interpreter's teardown (torch's takes a few hundred ms): nothing
            # is left to save, and quitting must not wait for it
            os._exit(0)


def _serve(conn, loop: EngineLoop, beat) -> None:
    """Answer the window's commands, and train between them, until told to stop."""
    while not loop.stopped:
        loop.pinning.watch()   # B's process ended or silent: said now, paused or not
        loop.say_how_b_starts()
        loop.say_when_warm()
        out = loop.take_outbox()
        if out:
            conn.send(out)
        wait = loop.due_in()
        if loop.pinning.in_flight:
            # B's last steps are still to compare: look again soon, even when idle
            wait = B_LOOK_SECONDS if wait is None else min(wait, B_LOOK_SECONDS)
        if loop.next_slide.pending:   # Warmed is said soon after it is so, even when idle
            wait = WARM_LOOK_SECONDS if wait is None else min(wait, WARM_LOOK_SECONDS)
        # idle: sleep on the pipe; paced: sleep until the next step is due
        if _window_speaks(conn, loop, wait):
            _working(beat, lambda: _answer(conn, loop))
        elif loop.due_in() == 0:
            _working(beat, lambda: loop.train_batch(lambda: conn.poll(0)))


def _window_speaks(conn, loop: EngineLoop, wait: float | None) -> bool:
    """Whether a command waits, after waiting up to `wait` s (None: until one comes).
    With B pinned in a process of its own, B's socket wakes the wait too (its beats, its
    end: EOF), and the wait is at most B_IDLE_LOOK_SECONDS (a silent B, a kill that
    leaves its socket open in a child of B's): a B that dies while A sits paused was
    said only at A's next step, and never while A stayed paused."""
    b = loop.pinning.connection()
    if b is None:
        return bool(conn.poll(wait))
    wait = B_IDLE_LOOK_SECONDS if wait is None else min(wait, B_IDLE_LOOK_SECONDS)
    return bool(connection.wait([conn, b], wait)) and conn.poll(0)


def _answer(conn, loop: EngineLoop) -> None:
    """Every command waiting on the pipe, in order."""
    while conn.poll(0) and not loop.stopped:
        message = p.receive(conn, "the engine")
        if message is not None:
            loop.handle(message)


def _working(beat, work) -> None:
    """work(), the heartbeat saying "working" meanwhile: a step that never returns (a
    model file's forward looping) is then seen by the window as one piece of work
    running for ever, even while playing, when no command waits for an answer."""
    if beat is None:   # an engine on a test's thread: no heartbeat
        work()
        return
    beat.stage = WORKING
    try:
        work()
    finally:
        beat.stage = READY
