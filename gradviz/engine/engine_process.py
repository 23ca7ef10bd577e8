"""The engine's process: `python -I -m gradviz.engine.engine_process FD` (see
engine.child). It beats from its first moment, then reads its config and serves."""
from __future__ import annotations

import os
import sys

from . import protocol as p
from .child import parent_connection
from .heartbeat import Heartbeat, SharedConnection


def alive_message(stage: str, seconds: float) -> list[tuple]:
    return [(p.ALIVE, stage, seconds)]


def main(argv: list[str]) -> None:
    conn = SharedConnection(parent_connection(argv))
    beat = Heartbeat(conn, alive_message, "starting Python").start()
    try:
        config = conn.recv()
    except (EOFError, OSError):   # the window went before it said what to train
        os._exit(0)
    from .host import serve
    serve(conn, config, own_process=True, beat=beat)


if __name__ == "__main__":
    main(sys.argv)
