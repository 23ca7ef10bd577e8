"""Starting gradviz's own child processes (the engine, B) isolated, joined to their
parent by a socket pair. Standard library only: the child imports this before torch.

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

    def __init__(self, popen: subprocess.Popen):
        self._popen = popen
        self._cpu = -1.0
        self._cpu_grew_at = time.monotonic()

    def cpu_grew_at(self) -> float | None:
        """When its CPU time was last seen growing (time.monotonic()), or None where the
        system does not say (only Linux's /proc is read). A child's heartbeat thread can
        be kept from running while a C extension holds the interpreter lock (torch's
        start does, for seconds on a busy laptop): CPU time still growing is progress."""
        cpu = _cpu_seconds(self.pid)
        if cpu is None:
            return None
        if cpu > self._cpu:
            self._cpu, self._cpu_grew_at = cpu, time.monotonic()
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
        if self.is_alive():
            self._popen.kill()

    def stop_now(self) -> None:
        """SIGSTOP, for tests of a process that stops making progress (POSIX only)."""
        os.kill(self.pid, signal.SIGSTOP)

    def close(self) -> None:
        """Nothing to free: the Popen is reaped by poll() and wait()."""


def _cpu_seconds(pid: int) -> float | None:
    """User plus system CPU seconds of a process, from /proc (None elsewhere)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def last_sign_of_life(process: ChildProcess, last_beat: float) -> float:
    """When the child last showed it was making progress: its last heartbeat, or later
    CPU time where the system says."""
    grew = process.cpu_grew_at()
    return last_beat if grew is None else max(last_beat, grew)


def child_command(module: str, *args: str) -> list[str]:
    """The command line of an isolated child running `module` as its main module."""
    return [sys.executable, "-I", "-m", module, *args]


def start_isolated(module: str) -> tuple[ChildProcess, Connection]:
    """(the child, our end of its socket pair) for `python -I -m module`, started with
    Ctrl+C ignored: a Ctrl+C in the terminal reaches the whole process group, and the
    window decides when its children stop (it saves settings first)."""
    ours, theirs = socket.socketpair()
    try:
        popen = _popen_ignoring_ctrl_c(module, theirs)
    finally:
        theirs.close()   # else our end never sees EOF when the child dies
    return ChildProcess(popen), Connection(ours.detach())


def _popen_ignoring_ctrl_c(module: str, theirs: socket.socket) -> subprocess.Popen:
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
                                pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL)
    finally:
        if main_thread:
            signal.signal(signal.SIGINT, signal.SIG_DFL if previous is None else previous)


def parent_connection(argv: list[str]) -> Connection:
    """The child's end of the socket pair, as start_isolated handed it down."""
    if sys.platform == "win32" and argv[1] == "stdin":   # see _popen_ignoring_ctrl_c
        shared = socket.fromshare(sys.stdin.buffer.read())
        return Connection(shared.detach())
    return Connection(int(argv[1]))
