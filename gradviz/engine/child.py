"""Starting gradviz's own child processes (the engine, B) isolated, joined to their
parent by a socket pair. The standard library and psutil (the system's process table,
on every system it knows) only: the child imports this before torch.

`python -m` puts the working folder first on sys.path, so a `numpy.py` beside a lesson
file would run inside the child; `-I` starts it isolated instead: no working folder, no
PYTHONPATH, no user site. gradviz itself is found where it is installed."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from multiprocessing.connection import Connection

import psutil

CPU_LOOK_SECONDS = 0.25   # a child's CPU time is asked of the system at most this often


def exit_words(exitcode: int | None) -> str:
    """How a process ended, in words: 'exit code -9 / killed by signal SIGKILL' and the
    like (the window says it of the engine, the engine of a pinned B's process)."""
    if exitcode is None:
        return "it no longer answers"
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        return f"exit code {exitcode} / killed by signal {name}"
    return f"exit code {exitcode}"


class ChildProcess:
    """A started child, asked about as multiprocessing.Process is (exitcode negative for
    a signal), so the window and the engine treat any child alike."""

    def __init__(self, popen: subprocess.Popen, own_group: bool = False):
        self._popen = popen
        self._group = own_group and sys.platform != "win32"   # its pid is its group's id
        self._cpu = -1.0
        self._cpu_grew_at = self._looked_at = time.monotonic()

    def cpu_grew_at(self) -> float | None:
        """When its CPU time was last seen growing (time.monotonic()), or None where the
        system does not say (asked of it at most every CPU_LOOK_SECONDS).
        A child's heartbeat thread can be kept from running while a C extension holds
        the interpreter lock (torch's start does, for seconds on a busy laptop): CPU
        time still growing is progress. Ask at every look, not only once the beats
        stop: one look cannot tell when the CPU time stopped growing, and counting it
        as growth gave a SIGSTOPped engine twice the silence (41 s for 20)."""
        now = time.monotonic()
        if now - self._looked_at < CPU_LOOK_SECONDS and self._cpu >= 0:
            return self._cpu_grew_at
        cpu = cpu_seconds(self.pid)
        if cpu is None:
            return None
        self._looked_at = now
        if cpu > self._cpu:
            self._cpu, self._cpu_grew_at = cpu, now
        return self._cpu_grew_at

    @property
    def pid(self) -> int:
        return self._popen.pid

    @property
    def exitcode(self) -> int | None:
        return self._popen.poll()

    def is_alive(self) -> bool:
        return self._popen.poll() is None

    def join(self, timeout: float | None = None) -> None:
        try:
            self._popen.wait(timeout)
        except subprocess.TimeoutExpired:
            pass

    def terminate(self) -> None:
        if self.is_alive():
            self._popen.terminate()

    def kill(self) -> None:
        """SIGKILL, to its whole process group where it leads one: what it started (B's
        process, a model file's children) ends with it."""
        if self._group:
            self._kill_group()
        elif self.is_alive():
            self._popen.kill()

    def _kill_group(self) -> None:
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):   # the group has ended already
            pass

    def stop_now(self) -> None:
        """SIGSTOP, for tests of a process that stops making progress (POSIX only)."""
        os.kill(self.pid, signal.SIGSTOP)

    def close(self) -> None:
        """It has ended (the Popen is reaped by poll() and wait()); what it started and
        left in its process group ends now. (Linux never gives a pid out again while a
        group of that id has a member, so the id still names its group.)"""
        if self._group and not self.is_alive():
            self._kill_group()


def cpu_seconds(pid: int) -> float | None:
    """User plus system CPU seconds of a process (None where the system does not say: it
    has ended, or is another user's)."""
    try:
        times = psutil.Process(pid).cpu_times()
    except psutil.Error:
        return None
    return times.user + times.system


def last_sign_of_life(process: ChildProcess, last_beat: float) -> float:
    """When the child last showed it was making progress: its last heartbeat, or later
    CPU time where the system says. Ask at every look (see ChildProcess.cpu_grew_at)."""
    grew = process.cpu_grew_at()
    return last_beat if grew is None else max(last_beat, grew)


def child_command(module: str, *args: str) -> list[str]:
    """The command line of an isolated child running `module` as its main module."""
    return [sys.executable, "-I", "-m", module, *args]


def start_isolated(module: str, own_group: bool = False) -> tuple[ChildProcess, Connection]:
    """(the child, our end of its socket pair) for `python -I -m module`, started with
    Ctrl+C ignored: a Ctrl+C in the terminal reaches the whole process group, and the
    window decides when its children stop (it saves settings first). own_group: in a
    session and process group of its own, which everything it starts joins, so that
    ChildProcess.kill() and close() end them all (the engine; B joins the engine's)."""
    ours, theirs = socket.socketpair()
    try:
        popen = _popen_ignoring_ctrl_c(module, theirs, own_group)
    finally:
        theirs.close()   # else our end never sees EOF when the child dies
    return ChildProcess(popen, own_group), Connection(ours.detach())


def _popen_ignoring_ctrl_c(module: str, theirs: socket.socket,
                           own_group: bool = False) -> subprocess.Popen:
    # an ignored signal stays ignored through exec, and Python at start keeps it so
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main_thread else None
    try:
        # spelled as sys.platform, which type checkers know: socket.share is Windows' own
        if sys.platform == "win32":   # no fd passing there: the child reads it from stdin
            popen = subprocess.Popen(child_command(module, "stdin"), stdin=subprocess.PIPE)
            pipe = popen.stdin
            assert pipe is not None   # stdin=PIPE
            pipe.write(theirs.share(popen.pid))
            pipe.close()
            return popen
        return subprocess.Popen(child_command(module, str(theirs.fileno())),
                                pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL,
                                start_new_session=own_group)
    finally:
        if main_thread:
            signal.signal(signal.SIGINT, signal.SIG_DFL if previous is None else previous)


def parent_connection(argv: list[str]) -> Connection:
    """The child's end of the socket pair, as start_isolated handed it down."""
    if sys.platform == "win32" and argv[1] == "stdin":   # see _popen_ignoring_ctrl_c
        shared = socket.fromshare(sys.stdin.buffer.read())
        return Connection(shared.detach())
    return Connection(int(argv[1]))


def _live(process: psutil.Process) -> bool:
    """Whether it still runs: a zombie has ended, only its parent's wait is due."""
    try:
        return process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:   # ended meanwhile
        return False


def descendants(pid: int) -> list[int]:
    """The live processes pid started, and theirs, and so on."""
    try:
        found = psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []
    return [child.pid for child in found if _live(child)]


def end_processes(pids: list[int]) -> None:
    """SIGKILL each (one that has ended meanwhile is skipped)."""
    for pid in pids:
        try:
            psutil.Process(pid).kill()
        except psutil.Error:
            pass


def end_own_group() -> None:
    """Where this process leads a process group (the engine does): every other process
    in it (B's process, what a model file started) ends now, before this one does."""
    if sys.platform == "win32" or os.getpgrp() != os.getpid():
        return
    me = os.getpid()
    end_processes([process.pid for process in psutil.process_iter()
                   if process.pid != me and _group(process.pid) == me and _live(process)])


def _group(pid: int) -> int | None:
    """Its process group's id (None once it has ended)."""
    try:
        return os.getpgid(pid)
    except OSError:
        return None
