"""How a watched stream ended, as its header records it and as readers say it: finished
(its with block or close() ran, or the interpreter exited normally), ended by an exception
(which), ended by a signal (SIGTERM from torchrun or a job scheduler, SIGINT from Ctrl+C),
or stopped (its process gone without a word: a kill -9, the out-of-memory killer)."""
from __future__ import annotations

WHAT_CHARS = 200    # an exception's words kept in the header


def exception_end(exc: BaseException | None) -> dict:
    """The header's "ended" for a stream whose process is leaving by exc (None: no
    exception, finished)."""
    if exc is None or (isinstance(exc, SystemExit) and exc.code in (None, 0)):
        return {"how": "finished"}
    if isinstance(exc, KeyboardInterrupt):
        return {"how": "signal", "what": "SIGINT (Ctrl+C)"}
    words = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return {"how": "exception", "what": words[:WHAT_CHARS]}


def end_words(header: dict | None, gone: bool) -> str:
    """The stream's state in a few words, for the report and the window's status; gone:
    its writing process is known to have ended (stream_writer_process)."""
    if not header:
        return "no run yet"
    ended = header.get("ended")
    if isinstance(ended, dict) and ended.get("how") in ("exception", "signal"):
        what = ended.get("what")
        what = f" ({what[:WHAT_CHARS]})" if isinstance(what, str) and what else ""
        words = ("ended by an exception" if ended["how"] == "exception"
                 else "ended by a signal") + what
    elif "finished" in header:
        words = "finished"
    elif gone:
        words = "stopped without finishing (its process is gone)"
    else:
        words = "still being written"
    return words + recording_words(header)


def recording_words(header: dict) -> str:
    """"; recording stopped after N steps (why)" where the watch stopped writing early."""
    stopped = header.get("recording_stopped")
    if not isinstance(stopped, dict):
        return ""
    steps, why = stopped.get("steps"), stopped.get("why")
    count = f" after {steps} steps" if type(steps) is int else ""
    reason = f" ({why[:WHAT_CHARS]})" if isinstance(why, str) and why else ""
    return f"; recording stopped{count}{reason}"
