"""What of the window's model the engine has still to be told: the model's state compared
with what was last sent, so that a value is sent once, whatever order its fields were
written in, and a value already sent (inside a lesson's slide, say) is not sent again."""
from __future__ import annotations

from dataclasses import dataclass

from ..config.config import Config
from ..records.engine_settings import EngineSettings
from .window_model import WindowModel


@dataclass
class Sent:
    """What one engine was last sent (None: nothing yet). A fresh engine starts with
    the config it was started with, and no settings or B."""
    config: Config | None = None
    settings: EngineSettings | None = None
    b: Config | None = None


@dataclass(frozen=True)
class Outgoing:
    """The messages the model still owes the engine (None: nothing to send of that)."""
    config: Config | None = None
    settings: EngineSettings | None = None
    pin_b: bool = False           # B to pin (b, which may be None: stop comparing)
    b: Config | None = None
    # the engine answers a change of saved tensors with a graph: an answer to wait for
    answered: bool = False

    @property
    def empty(self) -> bool:
        return self.config is None and self.settings is None and not self.pin_b


def outgoing(model: WindowModel, sent: Sent) -> Outgoing:
    """What differs between the model and what the engine was last sent."""
    config = model.requested if model.requested != sent.config else None
    settings = model.engine_settings()
    changed = settings if settings != sent.settings else None
    answered = changed is not None and sent.settings is not None \
        and changed.show_saved != sent.settings.show_saved
    pin_b = model.b_requested != sent.b
    return Outgoing(config, changed, pin_b, model.b_requested if pin_b else None, answered)


def mark_sent(sent: Sent, out: Outgoing) -> None:
    """Record what went out: the next comparison is against it."""
    if out.config is not None:
        sent.config = out.config
    if out.settings is not None:
        sent.settings = out.settings
    if out.pin_b:
        sent.b = out.b
