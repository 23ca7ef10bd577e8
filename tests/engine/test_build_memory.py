"""The memory ceiling on a model file's build (engine.build_memory): within it an
allocation beyond the room fails as MemoryError instead of being granted (and the
out-of-memory killer ending the engine later); after it the limit is what it was.
Each case runs in a fresh Python, so the ceiling never touches the test's process."""
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="RLIMIT_AS and /proc are Linux's")

PROBE = """
import resource
from gradviz.engine.build_memory import capped_memory
before = resource.getrlimit(resource.RLIMIT_AS)
with capped_memory() as capped:
    try:
        bytearray(SIZE)   # zeroed pages from the system: granted, never touched
        print("granted")
    except MemoryError:
        print("refused")
print(capped, resource.getrlimit(resource.RLIMIT_AS) == before)
bytearray(SIZE)           # after: granted again
print("after")
"""


def _probe(size: int, room_mb: str) -> list[str]:
    env = dict(os.environ, GRADVIZ_BUILD_MEMORY_MB=room_mb)
    done = subprocess.run([sys.executable, "-I", "-c", PROBE.replace("SIZE", str(size))],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_an_allocation_beyond_the_room_fails_and_the_limit_comes_back():
    assert _probe(4 << 30, "256") == ["refused", "True", "True", "after"]


def test_an_allocation_within_the_room_is_granted():
    assert _probe(64 << 20, "1024") == ["granted", "True", "True", "after"]


def _proc_kb(path: str, field: str) -> int:
    for line in open(path):
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise AssertionError(f"no {field} in {path}")


def test_the_readings_are_the_systems_address_space_and_available_memory(monkeypatch):
    """psutil's readings, against Linux's own words for them (VmSize, MemAvailable)."""
    from gradviz.engine import build_memory
    vm = _proc_kb("/proc/self/status", "VmSize") * 1024
    assert abs(build_memory._address_space_bytes() - vm) <= 64 << 20
    monkeypatch.delenv("GRADVIZ_BUILD_MEMORY_MB", raising=False)
    free = _proc_kb("/proc/meminfo", "MemAvailable") * 1024
    assert abs(build_memory.headroom_bytes() - free) <= max(free // 10, 256 << 20)
    monkeypatch.setenv("GRADVIZ_BUILD_MEMORY_MB", "256")
    assert build_memory.headroom_bytes() == 256 << 20
