"""engine.child: children start isolated and are judged by signs of life. A child whose
heartbeat thread is kept from running (a C extension holding the interpreter lock, as
torch's start does for seconds on a busy laptop) still shows progress by its CPU time;
a stopped one does not."""
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from gradviz.engine.child import (
    ChildProcess,
    child_command,
    cpu_seconds,
    descendants,
    end_processes,
    last_sign_of_life,
)

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(),
                                reason="reads Linux's /proc")


def _state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


def test_the_command_starts_python_isolated():
    assert child_command("gradviz.engine.b_process", "7") == [
        sys.executable, "-I", "-m", "gradviz.engine.b_process", "7"]


def test_a_busy_child_shows_progress_by_its_cpu_time_and_a_stopped_one_does_not():
    spin = subprocess.Popen([sys.executable, "-I", "-c", "while True: pass"])
    child = ChildProcess(spin)
    try:
        first = child.cpu_grew_at()
        # the spinning child's CPU time grows: a later look sees it grow later
        while child.cpu_grew_at() == first:
            pass
        grew = child.cpu_grew_at()
        assert last_sign_of_life(child, 0.0) >= grew > first
        os.kill(child.pid, signal.SIGSTOP)
        while _state(child.pid) != "T":   # the stop is delivered asynchronously
            pass
        last = child.cpu_grew_at()        # may still see the ticks before the stop
        for _ in range(50):
            assert child.cpu_grew_at() == last
    finally:
        spin.kill()
        spin.wait()
    assert not child.is_alive() and child.exitcode == -signal.SIGKILL


def test_cpu_seconds_are_the_processes_own_user_and_system_time():
    start = os.times()
    while os.times().user - start.user < 0.2:   # some CPU time of our own to read
        pass
    before = os.times()
    seen = cpu_seconds(os.getpid())
    after = os.times()
    tick = 1 / os.sysconf("SC_CLK_TCK")
    assert before.user + before.system - tick <= seen <= after.user + after.system + tick
    ended = subprocess.Popen([sys.executable, "-I", "-c", "pass"])
    ended.wait(timeout=60)
    assert cpu_seconds(ended.pid) is None         # no such process: the system cannot say


def test_descendants_are_children_and_theirs_alive_and_end_processes_ends_them():
    # a child that starts a grandchild and one more that ends at once, never waited for
    script = ("import subprocess, sys, time\n"
              "g = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
              "z = subprocess.Popen([sys.executable, '-c', 'pass'])\n"
              "print(g.pid, z.pid, flush=True)\n"
              "time.sleep(600)\n")
    child = subprocess.Popen([sys.executable, "-I", "-c", script], stdout=subprocess.PIPE,
                             text=True)
    try:
        grandchild, zombie = map(int, child.stdout.readline().split())
        while _state(zombie) != "Z":                # it ends; its parent never waits
            pass
        assert descendants(child.pid) == [grandchild]         # the zombie has ended
        assert {child.pid, grandchild} <= set(descendants(os.getpid()))
        end_processes([grandchild, child.pid])
        child.wait(timeout=60)
        assert child.returncode == -signal.SIGKILL
        while not _ended(grandchild):   # killed: a zombie, then collected by init
            pass
    finally:
        child.kill()
        child.wait(timeout=60)


def _ended(pid: int) -> bool:
    try:
        return _state(pid) == "Z"
    except FileNotFoundError:
        return True
