"""Whether a watched stream's writing process is gone: a stream's header names its host
and process id; only the system's "no such process" or a zombie, on this host, counts as
gone (psutil asks the system, on Linux, macOS and Windows alike)."""
from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from gradviz.plain.run_files.stream_writer_process import this_writer, writer_gone

HOST = socket.gethostname()


def _ended_pid() -> int:
    """The id of a process that has ended (run and waited for)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait(timeout=60)
    return child.pid


def test_a_stream_says_which_process_writes_it():
    assert this_writer() == {"host": HOST, "pid": os.getpid()}


def test_an_ended_process_on_this_host_is_gone():
    assert writer_gone({"writer": {"host": HOST, "pid": _ended_pid()}})


@pytest.mark.parametrize("writer", [
    {"host": HOST, "pid": os.getpid()},          # this process: alive
    {"host": HOST, "pid": os.getppid()},         # the one that started it: alive
    {"host": HOST + ".elsewhere", "pid": 1},     # another host: not known here
    {"host": HOST, "pid": 0},                    # 0 and negative ids name process groups
    {"host": HOST, "pid": -1},
    {"host": HOST, "pid": 2 ** 70},               # past any system's ids (a stranger's file)
    {"host": HOST, "pid": True},                 # not an id at all
    {"host": HOST, "pid": "12"},
    {"host": HOST},
    "pid 12",
])
def test_otherwise_the_writer_may_still_be_writing(writer):
    assert not writer_gone({"writer": writer})


def test_a_header_that_names_no_writer_is_not_gone():
    assert not writer_gone({})   # a stream written before headers named their writer


def test_another_host_with_an_ended_pid_is_not_known_to_be_gone():
    assert not writer_gone({"writer": {"host": HOST + "-b", "pid": _ended_pid()}})


@pytest.mark.skipif(not hasattr(os, "waitid"), reason="waits without collecting: POSIX")
def test_an_ended_process_its_parent_has_not_collected_is_gone():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        # ended, not waited for: its state turns to Z ("zombie") once it exits
        os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)   # waits, collects nothing
        assert writer_gone({"writer": {"host": HOST, "pid": child.pid}})
    finally:
        child.wait(timeout=60)
