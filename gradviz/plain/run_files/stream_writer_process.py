"""Whether the process that writes a watched stream is gone: the stream's header names it
(its host and process id), and a reader on the same host asks the system about it.

A script ended by a signal (the out-of-memory killer, `kill -9`) never writes "finished"
into its header; without this, its folder read "still being written" forever.

Only the system's "no such process", or a process ended and not yet collected by its
parent (a zombie), counts as gone; psutil asks the system, on each system it knows.
Anything else counts as perhaps still writing: a header from another host, a process id
not of the usual kind, or an answer that is not "no such process" (another user's
process, where the system will not say). The check cannot tell a process id the system
has since given to a new process.
"""
from __future__ import annotations

import os
import socket

import psutil

# the largest process id any system gives (a C int); one past it is a stranger's number,
# never asked about
PID_MOST = 2 ** 31 - 1


def this_writer() -> dict:
    """What a stream's header says of the process writing it."""
    return {"host": socket.gethostname(), "pid": os.getpid()}


def writer_gone(header: dict) -> bool:
    """Whether the header's writing process is known to have ended (see the module)."""
    writer = header.get("writer")
    if not isinstance(writer, dict):
        return False
    pid = writer.get("pid")
    if type(pid) is not int or writer.get("host") != socket.gethostname():
        return False
    return process_ended(pid)


def process_ended(pid: int) -> bool:
    """Whether the system says the process of id pid (on this host) has ended: no such
    process, or a zombie. False for this process, for an id no system gives (0 and
    negative ids name process groups), and where the system will not say."""
    if not 0 < pid <= PID_MOST or pid == os.getpid():
        return False
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:   # (a zombie on a system that says so this way too)
        return True
    except psutil.Error:   # another user's process (access denied): it exists
        return False
