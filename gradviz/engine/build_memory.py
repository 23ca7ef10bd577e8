"""A ceiling on the memory a model file may take while it loads and builds, in the
engine's process: its address space may grow by at most the memory the machine has
free (or GRADVIZ_BUILD_MEMORY_MB, for tests and for a user who wants less).

Why: a build() that allocates more than the machine has is otherwise granted the
address space (Linux overcommits), touches it, and the out-of-memory killer ends the
engine with SIGKILL, or the whole desktop swaps first; the window could then say only
that the engine died. Under the ceiling the allocation itself fails, as MemoryError or
torch's RuntimeError ("can't allocate memory"), inside build(), and What happened shows
the model file's own line that asked for it.

Only the soft limit is lowered, and only for the build: it is put back after, so
training (and a GPU driver's large reservations at its first use) runs unlimited.
Where the system has no such limit (Windows; macOS ignores it) nothing changes."""
from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

import psutil

MEMORY_ENV = "GRADVIZ_BUILD_MEMORY_MB"
MB = 1 << 20


def _address_space_bytes() -> int | None:
    """This process's address space now (Linux's VmSize), or None where the system does
    not say."""
    try:
        return psutil.Process().memory_info().vms
    except psutil.Error:
        return None


def headroom_bytes() -> int | None:
    """How much the address space may grow during the build: GRADVIZ_BUILD_MEMORY_MB
    where set (a positive number), else the memory the system says is available."""
    given = os.environ.get(MEMORY_ENV, "")
    try:
        mb = float(given)
        if mb > 0:
            return int(mb * MB)
    except ValueError:
        pass
    try:
        return psutil.virtual_memory().available
    except (psutil.Error, OSError):
        return None


def limit_words() -> str:
    """The ceiling in words, for What happened ("18.2 GB"), or "" where there is none."""
    room = headroom_bytes()
    return "" if room is None else f"{room / 1e9:.1f} GB"


@contextlib.contextmanager
def capped_memory() -> Iterator[bool]:
    """Within: the address space may grow by at most headroom_bytes(). Yields whether a
    ceiling is in force."""
    try:
        import resource
    except ImportError:   # not POSIX
        yield False
        return
    now, room = _address_space_bytes(), headroom_bytes()
    if now is None or room is None:
        yield False
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    ceiling = now + room
    if hard != resource.RLIM_INFINITY:
        ceiling = min(ceiling, hard)
    if soft != resource.RLIM_INFINITY and soft <= ceiling:
        yield False   # already lower: someone chose that, and it stays
        return
    try:
        resource.setrlimit(resource.RLIMIT_AS, (ceiling, hard))
    except (ValueError, OSError):   # not allowed here: build without a ceiling
        yield False
        return
    try:
        yield True
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
