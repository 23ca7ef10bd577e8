"""The settings panel: a widget for every config key. Each change builds a new Config,
validates it, and emits it; an unusable combination is named in one line, not applied.
What the panel shows, row by row, is CONTROLS (control_table)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSlider,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from ..plain.config.config import Config, ConfigError, parse_sizes, settle_micro_batches
from ..plain.config.model_keys import FIXED_BY_THE_FILE
from .control_table import (
    CHECK,
    COMBO,
    CONTROLS,
    DEVICE_TEXT,
    FLOAT,
    GROUPS,
    HEAD_CHECKS,
    HEAD_COMBO,
    HEAD_SLIDERS,
    OFF_OR_FLOAT,
    SIZES,
    SPIN,
    WEIGHTS,
    Control,
)
from .plain_text import plain_tip

WEIGHT_STEPS = 100  # slider units per 1.0 of loss weight

def _combo(name: str, items: dict) -> QComboBox:
    box = QComboBox()
    box.setObjectName(name)
    for value, text in items.items():
        box.addItem(text, value)
    return box


def _spin(name: str, low: int, high: int) -> QSpinBox:
    spin = QSpinBox()
    spin.setObjectName(name)
    spin.setRange(low, high)
    spin.setKeyboardTracking(False)  # apply on Enter or focus-out, not per keystroke
    return spin


def _float_spin(name: str, low: float, high: float) -> QDoubleSpinBox:
    spin = QDoubleSpinBox()
    spin.setObjectName(name)
    spin.setDecimals(5)
    spin.setRange(low, high)
    spin.setSingleStep(0.01)
    spin.setKeyboardTracking(False)
    return spin


def _check(name: str, text: str) -> QCheckBox:
    box = QCheckBox(text)
    box.setObjectName(name)
    return box


def _make(c: Control) -> QWidget | None:
    """The widget of a one-widget control (None for the per-head kinds)."""
    widget: QWidget
    if c.kind == COMBO:
        combo = _combo(c.name, c.choices)
        for i, value in enumerate(c.choices):
            if value in c.item_tips:
                combo.setItemData(i, c.item_tips[value], Qt.ItemDataRole.ToolTipRole)
        widget = combo
    elif c.kind == HEAD_COMBO:
        widget = _combo(c.name, {None: "none"})
    elif c.kind == SPIN:
        widget = _spin(c.name, *c.range)
    elif c.kind == FLOAT:
        widget = _float_spin(c.name, *c.range)
    elif c.kind == CHECK:
        widget = _check(c.name, c.label)
    elif c.kind == SIZES:
        edit = QLineEdit()
        edit.setObjectName(c.name)
        edit.setPlaceholderText("equal parts")
        widget = edit
    elif c.kind == OFF_OR_FLOAT:
        spin = _float_spin(c.name, *c.range)
        spin.setSpecialValueText("off")   # shown at the minimum, 0
        widget = spin
    else:
        return None
    if c.tip:
        widget.setToolTip(c.tip)
    return widget


class ControlsPanel(QWidget):
    configChanged = Signal(object)   # a validated Config

    def __init__(self, config: Config, parent=None):
        super().__init__(parent)
        self.setObjectName("controlsPanel")
        self._config = config
        # the model file the engine trains ("": the built-in model): read where it is
        # kept (the window's model, once bound), not copied here
        self.model_file: Callable[[], str] = lambda: ""
        self._updating = False
        self._build()
        self.set_config(config)

    # ---- building ----------------------------------------------------------------
    def _build(self) -> None:
        self.widgets: dict[str, QWidget] = {}     # Config field -> its widget
        # the same widgets by type, for their values (a control's kind decides its type)
        self.combos: dict[str, QComboBox] = {}         # COMBO, HEAD_COMBO
        self.spins: dict[str, QSpinBox] = {}           # SPIN
        self.floats: dict[str, QDoubleSpinBox] = {}    # FLOAT, OFF_OR_FLOAT
        self.checks: dict[str, QCheckBox] = {}         # CHECK
        self.edits: dict[str, QLineEdit] = {}          # SIZES
        self.detach_row = QHBoxLayout()
        self.weights_form = QFormLayout()
        self.detach_boxes: list[QCheckBox] = []
        self.weight_sliders: list[QSlider] = []
        self.weight_labels: list[QLabel] = []
        self.problem = QLabel("")
        self.problem.setObjectName("controlsProblem")
        self.problem.setTextFormat(Qt.TextFormat.PlainText)   # it quotes the refused value
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("color: #C00000; font-weight: bold")

        forms = {group: QFormLayout() for group in GROUPS}
        forms[WEIGHTS] = self.weights_form          # its rows come with the heads
        for c in CONTROLS:
            widget = _make(c)
            if widget is not None:
                self._keep(c.key, widget)
            if c.kind == CHECK:
                forms[c.group].addRow(self.checks[c.key])   # the box's text is its label
            elif c.kind == HEAD_CHECKS:
                forms[c.group].addRow(c.label, self.detach_row)
            elif widget is not None:
                forms[c.group].addRow(c.label, widget)

        layout = QVBoxLayout(self)
        for title in GROUPS:
            box = QGroupBox(title)
            box.setLayout(forms[title])
            layout.addWidget(box)
        layout.addWidget(self.problem)
        layout.addStretch(1)

    def _keep(self, key: str, widget: QWidget) -> None:
        """File a control's widget under its Config field, in the map of its type too,
        and connect its change."""
        self.widgets[key] = widget
        if isinstance(widget, QComboBox):
            self.combos[key] = widget
        elif isinstance(widget, QSpinBox):
            self.spins[key] = widget
        elif isinstance(widget, QDoubleSpinBox):
            self.floats[key] = widget
        elif isinstance(widget, QCheckBox):
            self.checks[key] = widget
        elif isinstance(widget, QLineEdit):
            self.edits[key] = widget
        self._connect(widget)

    def _connect(self, widget: QWidget) -> None:
        if isinstance(widget, QComboBox):
            widget.currentIndexChanged.connect(self._changed)
        elif isinstance(widget, (QSpinBox, QDoubleSpinBox, QSlider)):
            widget.valueChanged.connect(self._changed)
        elif isinstance(widget, QLineEdit):   # on Enter or focus-out, only when edited
            widget.editingFinished.connect(lambda: widget.isModified() and self._changed())
        elif isinstance(widget, QCheckBox):
            widget.toggled.connect(self._changed)
        else:   # a programming error: a control kind with no change signal here
            raise TypeError(f"ControlsPanel: no change signal for {type(widget).__name__}")

    def _rebuild_heads(self, heads: int) -> None:
        """One detach box and one weight slider per head, one item per head in the head
        combos."""
        detach = _control_of_kind(HEAD_CHECKS)
        weights = _control_of_kind(HEAD_SLIDERS)
        for box in self.detach_boxes:
            box.deleteLater()
        while self.weights_form.rowCount():
            self.weights_form.removeRow(0)
        self.detach_boxes, self.weight_sliders, self.weight_labels = [], [], []
        for c in CONTROLS:   # "none", then one per head
            if c.kind == HEAD_COMBO:
                combo = self.combos[c.key]
                while combo.count() > 1:
                    combo.removeItem(combo.count() - 1)
                for k in range(heads):
                    combo.addItem(f"head {k}", k)
        for k in range(heads):
            box = _check(f"{detach.name}{k}", str(k))
            self._connect(box)
            self.detach_row.addWidget(box)
            self.detach_boxes.append(box)
            slider = QSlider(Qt.Orientation.Horizontal)
            slider.setObjectName(f"{weights.name}{k}")
            slider.setRange(0, 3 * WEIGHT_STEPS)
            self._connect(slider)
            value = QLabel()
            value.setObjectName(f"weightLabel{k}")
            value.setMinimumWidth(48)
            row = QHBoxLayout()
            row.addWidget(slider, 1)
            row.addWidget(value)
            self.weights_form.addRow(weights.label.format(k=k), row)
            self.weight_sliders.append(slider)
            self.weight_labels.append(value)

    # ---- config <-> widgets --------------------------------------------------------
    def config(self) -> Config:
        return self._config

    def set_config(self, cfg: Config) -> None:
        """Show cfg in the widgets without emitting anything."""
        self._updating = True
        try:
            if len(self.detach_boxes) != cfg.heads:
                self._rebuild_heads(cfg.heads)
            for c in CONTROLS:
                self._show(c, cfg.truncation() if c.key == "truncate" else getattr(cfg, c.key))
            self._sync_enabled()
            for k, box in enumerate(self.detach_boxes):
                box.setChecked(k in cfg.detach)
            for slider, label, w in zip(self.weight_sliders, self.weight_labels, cfg.weights()):
                slider.setValue(round(w * WEIGHT_STEPS))
                label.setText(f"{w:.2f}")
            self._config = cfg
            self._shown = self._widget_values()
            self.problem.setText("")
        finally:
            self._updating = False

    def _show(self, c: Control, value: Any) -> None:
        """Show a one-widget control's Config value (the per-head kinds are shown apart).
        The value has its field's type, which the control's kind was chosen for."""
        if c.kind in (COMBO, HEAD_COMBO):
            self._select(self.combos[c.key], value)
        elif c.kind == SPIN:
            self.spins[c.key].setValue(value)
        elif c.kind == FLOAT:
            self.floats[c.key].setValue(value)
        elif c.kind == CHECK:
            self.checks[c.key].setChecked(value)
        elif c.kind == SIZES:
            self.edits[c.key].setText(",".join(map(str, value)))
            self.edits[c.key].setModified(False)
        elif c.kind == OFF_OR_FLOAT:
            self.floats[c.key].setValue(0.0 if value is None else value)

    def set_devices(self, devices: list) -> None:
        """The engine's (name, description) list: list them, keeping the selection and
        emitting nothing."""
        self._updating = True
        try:
            combo = self.combos["device"]
            chosen = combo.currentData()
            combo.clear()
            combo.addItem(DEVICE_TEXT["auto"], "auto")
            for name, desc in devices:
                combo.addItem(f"{name} — {desc}", name)
            self._select(combo, chosen)
        finally:
            self._updating = False

    def _sync_enabled(self) -> None:
        rnn = self.combos["model"].currentData() == "rnn"
        self.widgets["truncate"].setEnabled(rnn)
        self.widgets["trunk_depth"].setEnabled(not rnn)   # the rnn's depth is its 4 time steps
        self.widgets["batch_norm"].setEnabled(not rnn)    # it sits between the mlp's layers
        self.widgets["clip_at"].setEnabled(self.floats["clip"].value() > 0)
        if self.model_file():   # the file's build() decides these: shown, not changeable
            for key in FIXED_BY_THE_FILE:
                if key in self.widgets:   # (the DDP keys have no control: lessons only)
                    self.widgets[key].setEnabled(False)

    def show_model_file(self) -> None:
        """The model file the engine trains (model_file(); "": the built-in model): the
        controls only the built-in model has are disabled, their tooltip saying why."""
        name = self.model_file()
        for c in CONTROLS:
            if c.key in FIXED_BY_THE_FILE:
                self.widgets[c.key].setEnabled(not name)
                self.widgets[c.key].setToolTip(plain_tip(   # the file's name as written
                    f"{name} builds its own model (its build() decides the heads and "
                    f"the trunk): {c.label} is for the built-in model") if name else c.tip)
        if not name:
            self._sync_enabled()

    @staticmethod
    def _select(combo: QComboBox, value: object) -> None:
        index = combo.findData(value)
        if index < 0:  # e.g. a device named in a config that is not listed
            combo.addItem(str(value), value)
            index = combo.count() - 1
        combo.setCurrentIndex(index)

    def _widget_values(self) -> dict:
        """What the widgets show, as config fields."""
        values = {}
        for c in CONTROLS:
            if c.kind in (COMBO, HEAD_COMBO):
                values[c.key] = self.combos[c.key].currentData()
            elif c.kind == SPIN:
                values[c.key] = self.spins[c.key].value()
            elif c.kind == FLOAT:
                values[c.key] = self.floats[c.key].value()
            elif c.kind == CHECK:
                values[c.key] = self.checks[c.key].isChecked()
            elif c.kind == SIZES:   # ConfigError (one line) for text that is not sizes
                values[c.key] = parse_sizes(self.edits[c.key].text())
            elif c.kind == OFF_OR_FLOAT:
                values[c.key] = self.floats[c.key].value() or None
        heads = values["heads"]
        values["detach"] = tuple(k for k, b in enumerate(self.detach_boxes)
                                 if b.isChecked() and k < heads)
        weights = tuple(s.value() / WEIGHT_STEPS for s in self.weight_sliders)
        if len(weights) != heads or all(w == 1.0 for w in weights):
            weights = ()
        values["loss_weights"] = weights
        if values["model"] != "rnn":     # truncation means something for the rnn alone
            values["truncate"] = None
        return values

    def _read(self) -> Config:
        """The config with what the user changed since it was shown. Only changed widgets
        count: a value from a file beyond a widget's range (trunk depth 150, lr 50)
        stays as it was instead of being clipped when another toggle is touched."""
        now = self._widget_values()
        changes = {k: v for k, v in now.items() if v != self._shown.get(k)}
        if "heads" in changes:   # the per-head rows were for the old count
            for key in ("detach", "loss_weights", "misplace_head", "edit_detached",
                        "edit_data"):
                changes.setdefault(key, now[key])
        if "model" in changes:   # truncation means something for the rnn alone
            changes["truncate"] = now["truncate"]
        return self._config.replace(**settle_micro_batches(changes))

    def _changed(self, *_):
        if self._updating:
            return
        for slider, label in zip(self.weight_sliders, self.weight_labels):
            label.setText(f"{slider.value() / WEIGHT_STEPS:.2f}")
        self._sync_enabled()
        try:
            cfg = self._read()
        except ConfigError as exc:
            self.problem.setText(f"Not applied: {exc}")
            return
        self.problem.setText("")
        if self.spins["heads"].value() != len(self.detach_boxes) or \
                self.spins["accumulate"].value() != cfg.accumulate or \
                parse_sizes(self.edits["micro_batch_sizes"].text()) != cfg.micro_batch_sizes:
            # a new head count: new rows for detach and weights; sizes that set
            # accumulate, or an accumulate that cleared the sizes: show the other one
            self.set_config(cfg)
        self._config = cfg
        self._shown = self._widget_values()
        self.configChanged.emit(cfg)


def _control_of_kind(kind: str) -> Control:
    (control,) = [c for c in CONTROLS if c.kind == kind]
    return control
