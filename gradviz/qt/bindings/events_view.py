"""What happened and the engine: a failure shown (its dock in front), and the current
one cleared when the engine applies a config (a fresh model, settings that work)."""
from __future__ import annotations

from PySide6.QtWidgets import QDockWidget

from ...engine import protocol as p
from ..engine_client import EngineClient
from ..widgets.events_view import EventsView


def bind_events_view(view: EventsView, dock: QDockWidget, engine: EngineClient) -> None:
    def received(record: object) -> None:
        if isinstance(record, p.ConfigApplied):
            view.clear_current()
        elif isinstance(record, p.Failed):
            view.show_event(record.event)
            dock.raise_()

    engine.received.connect(received)
