"""The settings panel and the model: the settings asked for both ways, the devices the
engine offers, the model file that trains, and why a setting was not applied."""
from __future__ import annotations

from ...engine import protocol as p
from ...plain.config.config import Config
from ...plain.window.window_model import WindowModel
from ..controls import ControlsPanel
from ..engine_client import EngineClient


def bind_settings_panel(panel: ControlsPanel, model: WindowModel,
                        engine: EngineClient) -> None:
    def show_requested(config: Config) -> None:
        if panel.config() != config:   # (not back into the fields being typed in)
            panel.set_config(config)

    def received(record: object) -> None:
        if isinstance(record, p.ConfigRejected):
            panel.problem.setText(f"Not applied: {record.reason}")
        elif isinstance(record, p.ConfigApplied):
            panel.set_config(record.config)   # in force: no problem with it left

    model.events.requested.connect(show_requested)
    model.events.devices.connect(lambda devices: panel.set_devices(list(devices)))
    panel.model_file = lambda: model.model_name
    model.events.model_name.connect(lambda _name: panel.show_model_file())
    panel.configChanged.connect(lambda config: setattr(model, "requested", config))
    engine.received.connect(received)
    show_requested(model.requested)
