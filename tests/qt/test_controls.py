"""Every Config field can be set from the command line and, but for a few named ones,
from the settings panel; the panel's table and its widgets agree."""
from __future__ import annotations

import argparse
import dataclasses

from PySide6.QtWidgets import QWidget

from gradviz.commands.options import add_training_options
from gradviz.plain.config.config import Config
from gradviz.qt.control_table import CONTROLS, HEAD_CHECKS, HEAD_SLIDERS, NO_CONTROL
from gradviz.qt.controls import ControlsPanel

FIELDS = [f.name for f in dataclasses.fields(Config)]


def test_every_config_field_has_a_command_line_flag():
    parser = argparse.ArgumentParser()
    add_training_options(parser)
    dests = {action.dest for action in parser._actions}
    assert [name for name in FIELDS if name not in dests] == []


def test_every_config_field_has_a_control_or_a_reason_for_none():
    keys = [c.key for c in CONTROLS]
    assert len(keys) == len(set(keys)), "a field listed twice"
    assert set(keys).isdisjoint(NO_CONTROL)
    assert sorted(keys + list(NO_CONTROL)) == sorted(FIELDS)
    assert all(reason for reason in NO_CONTROL.values())


def test_each_control_is_in_the_panel_under_its_object_name(qtbot):
    panel = ControlsPanel(Config(heads=2))
    qtbot.addWidget(panel)
    for c in CONTROLS:
        if c.kind in (HEAD_CHECKS, HEAD_SLIDERS):
            names = [f"{c.name}{k}" for k in range(2)]
        else:
            names = [c.name]
            assert panel.widgets[c.key].objectName() == c.name
        for name in names:
            assert panel.findChild(QWidget, name) is not None, name
    names = [c.name for c in CONTROLS]
    assert len(names) == len(set(names))


def test_the_panel_shows_a_config_and_reads_it_back_unchanged(qtbot):
    cfg = Config(heads=4, strategy="separate", retain_graph="always", detach=(1, 3),
                 detach_mode="detach_", accumulate=2, scale=False, zero_grad=False,
                 keep_graphs=True, optimizer="adam", lr=0.125, batch_size=48, seed=7,
                 model="rnn", truncate="never", accumulate_mode="sum-first",
                 misplace_head=2, edit_detached=3, retain_grad=True, trunk_width=20,
                 loss_weights=(1.0, 0.5, 2.0, 1.0))
    panel = ControlsPanel(cfg)
    qtbot.addWidget(panel)
    shown = panel._widget_values()
    assert {k: v for k, v in shown.items() if getattr(cfg, k) != v} == {}
