"""B's process: `python -I -m gradviz.engine.b_process FD` (see engine.child). It beats
from its first moment, before torch is imported, so that A's engine can tell a slow
start from a dead one; then it serves B (engine.b_runner)."""
from __future__ import annotations

import signal
import sys

from . import protocol as p
from .child import parent_connection
from .heartbeat import Heartbeat, SharedConnection, slow_start


def main(argv: list[str]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # the window decides when we stop
    conn = SharedConnection(parent_connection(argv))
    beat = Heartbeat(conn, p.Alive, "importing torch").start()
    slow_start()
    from .b_runner import serve  # torch
    serve(conn, beat)


if __name__ == "__main__":
    main(sys.argv)
