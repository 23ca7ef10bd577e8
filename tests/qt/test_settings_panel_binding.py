"""The settings panel bound to the window's model alone (no window, no engine): a config
asked for elsewhere is shown in the panel, and the panel's own change, coming back from
the model, is not shown again over a field the user is still typing in."""
from unittest.mock import MagicMock

from gradviz.plain.config.config import Config
from gradviz.plain.window.window_model import WindowModel
from gradviz.qt.bindings.settings_panel import bind_settings_panel
from gradviz.qt.controls import ControlsPanel
from gradviz.qt.engine_client import EngineClient


def _bound(qtbot) -> tuple[ControlsPanel, WindowModel, list[Config]]:
    panel, model = ControlsPanel(Config()), WindowModel()
    qtbot.addWidget(panel)
    engine = MagicMock(spec=EngineClient)
    engine.client = EngineClient(WindowModel())     # held: its signal must outlive this
    engine.received = engine.client.received
    shown: list[Config] = []
    show = panel.set_config
    panel.set_config = lambda config: (shown.append(config), show(config))
    bind_settings_panel(panel, model, engine)
    return panel, model, shown


def test_a_config_asked_for_elsewhere_is_shown_in_the_panel(qtbot):
    panel, model, shown = _bound(qtbot)
    shown.clear()
    model.requested = Config(heads=2, lr=0.5)
    assert shown == [Config(heads=2, lr=0.5)] and panel.config() == Config(heads=2, lr=0.5)


def test_the_panels_own_change_is_not_shown_back_over_a_field_being_typed_in(qtbot):
    panel, model, shown = _bound(qtbot)
    lr = panel.widgets["lr"]
    lr.lineEdit().selectAll()
    qtbot.keyClicks(lr, "0.25")                    # typed, not yet entered
    shown.clear()
    panel.widgets["zero_grad"].click()             # then another setting changed
    assert model.requested == Config(zero_grad=False)
    assert shown == [] and lr.lineEdit().text() == "0.25"   # the typing left as it was
