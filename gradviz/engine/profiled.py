"""Off by default: with GRADVIZ_ENGINE_PROFILE set to a file's path, the engine's loop
runs under cProfile (by CPU time) and writes its stats there when the engine ends."""
from __future__ import annotations

import cProfile
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager

ENGINE_PROFILE_ENV = "GRADVIZ_ENGINE_PROFILE"


@contextmanager
def profiled() -> Iterator[None]:
    path = os.environ.get(ENGINE_PROFILE_ENV)
    if not path:
        yield
        return
    # by CPU time: at the engine's low priority the wall clock counts others' turns
    profile = cProfile.Profile(time.process_time)
    profile.enable()
    try:
        yield
    finally:
        profile.disable()
        profile.dump_stats(path)
