"""Whether the process that writes a watched stream is gone: the stream's header names it
(its host and process id), and a reader on the same host asks the system about it.

A script ended by a signal (the out-of-memory killer, `kill -9`) never writes "finished"
into its header; without this, its folder read "still being written" forever.

Only the system's "no such process", or a process ended and not yet collected by its
parent (Linux's zombie), counts as gone. Anything else counts as perhaps still
writing: a header from another host, Windows (where os.kill would end the process, not
ask about it), a process id not of the usual kind, or an answer that is not "no such
process". The check cannot tell a process id the system has since given to a new process.
"""
from __future__ import annotations

import os
import socket
from pathlib import Path


def this_writer() -> dict:
    """What a stream's header says of the process writing it."""
    return {"host": socket.gethostname(), "pid": os.getpid()}


def writer_gone(header: dict) -> bool:
    """Whether the header's writing process is known to have ended (see the module)."""
    writer = header.get("writer")
    if os.name != "posix" or not isinstance(writer, dict):
        return False
    pid = writer.get("pid")
    # a positive int only: 0 and negative ids name process groups
    if type(pid) is not int or pid <= 0 or pid == os.getpid() \
            or writer.get("host") != socket.gethostname():
        return False
    try:
        os.kill(pid, 0)   # signal 0: nothing is sent, the system only checks the id
    except ProcessLookupError:
        return True
    except OSError:   # another user's process (PermissionError): it exists
        return False
    except OverflowError:   # an id past what the system's ids can be: no answer
        return False
    return _zombie(pid)


def _zombie(pid: int) -> bool:
    """Whether the process has ended but its parent has not collected it yet (a
    notebook that started the script and never waited for it): on Linux, its state in
    /proc is Z. Elsewhere, or where /proc does not say, it is not known to have ended."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    # "pid (command) state ...": the command may hold spaces and parentheses
    return stat[stat.rfind(")") + 1:].split()[:1] == ["Z"]
