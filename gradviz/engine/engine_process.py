"""The engine's process: `python -I -m gradviz.engine.engine_process FD` (see
engine.child). It beats from its first moment, then reads what to train (a Begin)
and serves."""
from __future__ import annotations

import os
import sys

from ..plain.records.engine_stages import STARTING_PYTHON
from . import protocol as p
from .child import parent_connection
from .heartbeat import Heartbeat, SharedConnection


def alive_message(stage: str, seconds: float) -> list[p.Alive]:
    return [p.Alive(stage, seconds)]


def main(argv: list[str]) -> None:
    conn = SharedConnection(parent_connection(argv))
    beat = Heartbeat(conn, alive_message, STARTING_PYTHON).start()
    try:
        begin = p.receive(conn, "the engine")
    except (EOFError, OSError):   # the window went before it said what to train
        os._exit(0)
    if p.refusal("the engine", begin, (p.Begin,)) is not None:
        os._exit(0)   # not our window: the one line logged is all there is to say
    assert isinstance(begin, p.Begin)
    from .host import serve
    serve(conn, begin.config, own_process=True, beat=beat, model_path=begin.model_path)


if __name__ == "__main__":
    main(sys.argv)
