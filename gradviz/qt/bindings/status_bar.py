"""The status bar and what happens: the phase line, the last step's walks and the rate,
composed by the plain StatusLine from the engine's records and the model, drawn by
StatusText lines that repaint on a new text and never ask for a layout for it."""
from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QStatusBar

from ...engine import protocol as p
from ...plain.window.status_line import NOTICE_MS, WALKS_TIP, StatusLine
from ...plain.window.window_model import WindowModel
from ..engine_client import EngineClient
from ..status_text import StatusText


def _status_of(status: StatusLine, model: WindowModel, record: object) -> None:
    """What the line says of one record the engine sent (or the window made)."""
    if isinstance(record, p.Hello):
        status.ready()
    elif isinstance(record, p.ConfigApplied) and record.did_reset:
        status.fresh_model(record.config, model.model_name, model.head_names)
    elif isinstance(record, p.ConfigRejected):
        status.rejected(record.reason)
    elif isinstance(record, p.Notice):
        status.say(record.text)
    elif isinstance(record, p.PhaseDone):
        status.phase_done(record.phase, model.running)
    elif isinstance(record, p.Failed):
        status.failed(record.event)


def bind_status_bar(bar: QStatusBar, status: StatusLine, model: WindowModel,
                    engine: EngineClient) -> tuple[StatusText, StatusText, StatusText]:
    """The three lines, added to the bar: (phase, walks, rate)."""
    texts = status.texts
    phase = StatusText(texts.phase, "phaseLabel", stretches=True)
    walks = StatusText(texts.walks, "walksLabel")
    walks.setToolTip(WALKS_TIP)
    walks.setContentsMargins(0, 0, 16, 0)   # apart from the rate beside it
    rate = StatusText(texts.rate, "rateLabel")
    bar.addWidget(phase, 1)
    bar.addPermanentWidget(walks)
    bar.addPermanentWidget(rate)
    texts.events.phase.connect(phase.setText)
    texts.events.walks.connect(walks.setText)
    texts.events.rate.connect(rate.setText)
    engine.received.connect(lambda record: _status_of(status, model, record))
    model.events.running.connect(lambda running: None if running else status.stopped())
    model.events.preparing.connect(status.preparing)
    return phase, walks, rate


def show_newest_step(status: StatusLine, model: WindowModel, engine: EngineClient) -> None:
    """Between frames, while playing: the step count follows the engine's newest step
    (the history and the panels take it in at the next frame, together)."""
    if model.running and engine.records:
        generation, record = engine.records[-1]
        if generation == model.generation:
            status.steps(record, model.running, model.play_mode == "phases")


def bind_notices(status: StatusLine, parent: QObject) -> Callable[[str], None]:
    """How the window shows a note of its own (a text size refused for the screen, a
    recent file gone, a drop refused): over the phase line for NOTICE_MS after the last
    one, then the line it covered (a failure's, a slide's preparing line) comes back."""
    over = QTimer(parent)
    over.setSingleShot(True)
    over.setInterval(NOTICE_MS)
    over.timeout.connect(status.notice_over)

    def show(text: str) -> None:
        status.notice(text)
        over.start()
    return show
