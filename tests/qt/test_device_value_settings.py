"""A device value from settings.json or from the engine's refusal: settings fall back to
the default with one warning line, and the refusal shows in the status line and the
settings panel as plain text that neither draws a picture nor grows the window."""
import json

import pytest
from PySide6.QtCore import Qt

from gradviz.engine import protocol as p
from gradviz.plain.config.config import Config
from gradviz.qt.settings import AppSettings

ATTACKS = ["<img width=9999 height=9999>", "<img src=secret.png width=400 height=300>",
           "<b>bold</b>", "cuda:0; rm -rf /", ""]


@pytest.mark.parametrize("device", ATTACKS)
def test_a_hostile_device_in_settings_json_falls_back_with_one_warning(tmp_path, capsys,
                                                                        device):
    path = tmp_path / "settings.json"
    config = dict(Config().to_dict(), device=device)
    path.write_text(json.dumps({"version": 2, "config": config, "theme": "dark"}))
    remembered = AppSettings(path).load(Config())
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("gradviz: settings: config: device must be auto, cpu, cuda")
    assert lines[0].endswith("; using the default config")
    assert remembered.config == Config() and remembered.theme == "dark"


def test_a_well_formed_device_in_settings_json_loads(tmp_path, capsys):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"version": 2, "config": dict(Config().to_dict(),
                                                               device="cuda:3")}))
    assert AppSettings(path).load(Config()).config.device == "cuda:3"
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("device", ATTACKS[:3])
def test_a_refusal_quoting_markup_shows_literally_and_keeps_the_window_size(
        qtbot, shared_window, device):
    w = shared_window()
    qtbot.waitUntil(lambda: w.phase_label.text().startswith("Fresh model"), timeout=10_000)
    size, status_height = w.size(), w.statusBar().height()
    line_height = w.phase_label.fontMetrics().height()
    # what the engine said of such a value before names were checked by form
    reason = f"device must be auto, cpu, cuda, cuda:N or mps (got {device!r})"
    w.engine.received.emit(p.ConfigRejected(reason))
    qtbot.waitUntil(lambda: w.controls.problem.isVisible())
    assert w.phase_label.sizeHint().height() < 3 * line_height      # no 9999 px picture
    assert w.controls.problem.sizeHint().height() < 6 * line_height
    assert w.size() == size
    assert w.statusBar().height() == status_height
    for label in (w.phase_label, w.controls.problem):
        assert label.textFormat() == Qt.PlainText
        assert label.text() == f"Not applied: {reason}"
