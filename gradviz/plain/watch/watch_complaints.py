"""What a watch says of its own failures inside the user's process: one `gradviz:` line on
stderr per kind of failure, and the user's training goes on; with strict=True (tests, CI)
a WatchError with the same words instead.

A logger inside a week-long training run must never be what ends it: a full disk, a
removed folder or a call in the wrong place costs the recording, never the run.
"""
from __future__ import annotations

import sys


class WatchError(Exception):
    """A watch's own failure, raised only under strict=True (else said on stderr)."""


class Complaints:
    """Says each kind of failure once. kind: a short key (e.g. "disk"); words: the line
    without its "gradviz: " (what happened, then what to do)."""

    def __init__(self, strict: bool = False):
        self.strict = strict
        self.said: dict[str, str] = {}   # kind -> the words said, in order

    def __call__(self, kind: str, words: str) -> None:
        if self.strict:
            raise WatchError(f"gradviz: {words}")
        if kind in self.said:
            return
        self.said[kind] = words
        try:
            print(f"gradviz: {words}", file=sys.stderr, flush=True)
        except (OSError, ValueError):   # stderr closed or gone: nothing more to do
            pass
