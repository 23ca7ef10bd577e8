"""The exception that abandons a session's step: it carries the Event that says why."""
from __future__ import annotations

from ..plain.records import events as ev


class StepFailed(Exception):
    def __init__(self, event: ev.Event):
        self.event = event
