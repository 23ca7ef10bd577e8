"""Starting the engine: in a child process (a fresh, isolated interpreter, so the window's
process never imports torch), or on a thread for tests. Both run the same loop."""
from __future__ import annotations

import multiprocessing
import os
import signal
import threading

from ..exit_codes import EXIT_USAGE
from ..plain.records import events as ev
from ..plain.records.engine_stages import IMPORTING_TORCH
from ..plain.text.torch_missing import torch_missing, torch_missing_words
from . import child
from . import protocol as p
from .child import exit_words as exit_words  # the window says how its engine ended
from .heartbeat import slow_start


def serve(conn, config, own_process: bool = True, holder: dict | None = None,
          beat=None, model_path: str | None = None) -> None:
    """The engine's whole life: load torch, build the session, answer commands until
    told to shut down or the window's end of the pipe closes. beat: the process's
    Heartbeat, told what the engine is doing as it starts. model_path: a model file the
    engine loads and trains (None: the built-in model)."""
    if own_process:
        # Ctrl+C in a terminal reaches the whole process group; the window decides
        # when the engine stops (it saves settings first, then shuts the engine down)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    if beat is not None:
        beat.stage = IMPORTING_TORCH
        slow_start()
    try:
        from .engine_main import run  # torch: only ever on the engine's side
    except ModuleNotFoundError as exc:
        if not torch_missing(exc):
            raise
        _say_torch_is_missing(conn, own_process)
        return
    run(conn, config, own_process, holder, beat, model_path)


def _say_torch_is_missing(conn, own_process: bool) -> None:
    """What happened says it in one line with the install command, then the engine
    ends (its window's "engine stopped" follows: there is nothing to train with)."""
    line = torch_missing_words()
    event = ev.Event(step=0, phase="engine", call="starting the training engine",
                     type="ModuleNotFoundError", message=line,
                     title="PyTorch is not installed",
                     explanation="The training engine trains with PyTorch, and this Python "
                                 "has no torch package.",
                     hint="Install it with the command above, then press Reset (R).",
                     source="gradviz")
    try:
        conn.send([p.Failed(event)])
    except OSError:   # the window went meanwhile
        pass
    if own_process:
        os._exit(EXIT_USAGE)


def start_process(config, model_path: str | None = None):
    """(process, the window's end of the pipe) of a fresh engine process, started
    isolated (nothing imported from the working folder) and handed its config and the
    model file's path (plain data: the file runs in that process only)."""
    process, ours = child.start_isolated("gradviz.engine.engine_process", own_group=True)
    try:
        ours.send(p.Begin(config, model_path))
    except OSError:   # it died at once: the window finds out from the pipe's EOF
        pass
    return process, ours


class EngineThread(threading.Thread):
    """An engine on a thread; `engine` is {"loop": the EngineLoop} once it is built."""

    def __init__(self, main, holder: dict):
        super().__init__(target=main, name="gradviz engine", daemon=True)
        self.engine = holder


def start_thread(config, model_path: str | None = None):
    """(thread, the window's end of the pipe) of an engine on a thread of this process:
    what tests use to look inside the session."""
    ours, theirs = multiprocessing.Pipe(duplex=True)
    holder: dict = {}

    def main() -> None:
        try:
            serve(theirs, config, own_process=False, holder=holder,
                  model_path=model_path)
        finally:
            theirs.close()
    thread = EngineThread(main, holder)
    thread.start()
    return thread, ours
