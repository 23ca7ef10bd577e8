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

from gradviz.engine.child import ChildProcess, child_command, last_sign_of_life

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
