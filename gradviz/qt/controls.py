"""The settings panel: a widget for every config key. Each change builds a new Config,
validates it, and emits it; an unusable combination is named in one line, not applied.

CONTROLS is the one list of what the panel shows: each Config field's widget kind, its
objectName, label, tooltip and range or choices, in the order of the rows. A field with
no control is in NO_CONTROL, with the reason (tests check that every field is in one).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
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

from ..plain.config import (
    CLIP_AT,
    DETACH_MODES,
    MAX_ACCUMULATE,
    MAX_BATCH_SIZE,
    MAX_CLIP,
    MAX_HEADS,
    MAX_LR,
    MAX_SEED,
    MAX_TRUNK_DEPTH,
    MAX_TRUNK_WIDTH,
    OPTIMIZERS,
    RETAIN_MODES,
    SCALE_BY,
    STRATEGIES,
    Config,
    ConfigError,
    parse_sizes,
    settle_micro_batches,
)
from ..plain.model_keys import FIXED_BY_THE_FILE

WEIGHT_STEPS = 100  # slider units per 1.0 of loss weight
MIN_LR = 0.00001
STRATEGY_TEXT = {"sum": "sum", "separate": "separate", "in-loop": "in-loop",
                 "upgrad": "UPGrad (torchjd)", "pcgrad": "PCGrad (torchjd)",
                 "mgda": "MGDA (torchjd)"}
_AGGREGATE_TIP = ("torchjd: each head's own layers get its gradient; the trunk gets the "
                  "heads' trunk gradients combined by {} instead of added")
STRATEGY_TIPS = {"sum": "total = Σ w_k·L_k; total.backward() once",
                 "separate": "L_k.backward() for each head k",
                 "in-loop": "total += L_k; total.backward() inside the loop (the classic mistake)",
                 "upgrad": _AGGREGATE_TIP.format("UPGrad (no head's gradient is opposed)"),
                 "pcgrad": _AGGREGATE_TIP.format("PCGrad (conflicting parts projected away)"),
                 "mgda": _AGGREGATE_TIP.format("MGDA (the shortest vector in their hull)")}
# one pass vs K passes
STRATEGY_TEXT |= {"backward-list": "backward list", "autograd-grad": "autograd.grad"}
STRATEGY_TIPS |= {"backward-list": "torch.autograd.backward([w_k·L_k]): the sum's gradient "
                                   "in one pass, the trunk walked once",
                  "autograd-grad": "torch.autograd.grad per loss, .grad untouched; the loop "
                                   "adds them and assigns .grad (K passes, as separate)"}
DETACH_TEXT = {"detach": "z.detach()", "detach_": "z.detach_()"}
DETACH_TIPS = {"detach": "head k reads z.detach(): z's storage, cut from the graph",
               "detach_": "z itself is cut out of the graph, for every head after this one too"}
DETACH_TEXT |= {"no_grad": "torch.no_grad()", "inference_mode": "torch.inference_mode()"}
DETACH_TIPS |= {"no_grad": "head k's forward runs under no_grad: its loss has no grad_fn, "
                           "so the head gets no gradient and pushes none into the trunk",
                "inference_mode": "as no_grad, and head k's outputs are inference tensors: "
                                  "an in-place edit or saving them for backward raises"}
ACCUMULATE_TEXT = {"backward-each": "backward each", "sum-first": "sum first"}
MODEL_TEXT = {"mlp": "MLP", "rnn": "RNN (carried state)"}
TRUNCATE_TEXT = {"every-step": "detach every step", "never": "never detach"}
SCALE_BY_TEXT = {"mean": "1/N (mean)", "size": "n_i/B (size)"}
SCALE_BY_TIPS = {"mean": "each micro-batch loss × 1/N: the full batch's gradient only when "
                         "the micro-batches are equal",
                 "size": "each micro-batch loss × its share of the batch, n_i/B: the full "
                         "batch's mean exactly, however unequal the micro-batches"}
CLIP_AT_TEXT = {"step": "once per step", "micro-batch": "each micro-batch"}
CLIP_AT_TIPS = {"step": "clip_grad_norm_ once, on the step's whole gradient",
                "micro-batch": "clip_grad_norm_ after each micro-batch's backward: it clips "
                               "the running sum, not the step's gradient"}
OPTIMIZER_TEXT = {o: o.upper() if o == "sgd" else "Adam" for o in OPTIMIZERS}
# the CPU is always there; the engine's first message names the others (set_devices)
DEVICE_TEXT = {"auto": "auto (best here)", "cpu": "cpu — CPU"}

# widget kinds
COMBO = "combo"               # a QComboBox of choices (value -> text)
HEAD_COMBO = "head combo"     # a QComboBox of "none" and one item per head
SPIN = "spin"                 # a QSpinBox over range
FLOAT = "float"               # a QDoubleSpinBox over range
CHECK = "check"               # a QCheckBox whose text is the label
HEAD_CHECKS = "head checks"   # a row of check boxes, one per head: name + k
HEAD_SLIDERS = "head sliders"  # a slider and its value per head: name + k, weightLabel + k
SIZES = "sizes"               # a QLineEdit of whole numbers separated by commas
OFF_OR_FLOAT = "off or float"  # a QDoubleSpinBox whose 0 reads "off" (the value None)

# the panel's boxes, top to bottom
BACKWARD, WEIGHTS, TRAINING, MODEL = ("Backward", "Loss weights", "Training",
                                      "Model (changing it resets)")
GROUPS = (BACKWARD, WEIGHTS, TRAINING, MODEL)


@dataclass(frozen=True)
class Control:
    key: str                    # the Config field it shows
    kind: str
    name: str                   # objectName (tests and settings find it by that)
    label: str
    group: str
    tip: str = ""
    choices: dict = field(default_factory=dict)      # COMBO: value -> text
    item_tips: dict = field(default_factory=dict)    # COMBO: value -> tooltip
    range: tuple = ()                                # SPIN, FLOAT: (low, high)


CONTROLS: tuple[Control, ...] = (
    Control("strategy", COMBO, "strategyCombo", "strategy", BACKWARD,
            choices={s: STRATEGY_TEXT[s] for s in STRATEGIES}, item_tips=STRATEGY_TIPS),
    Control("retain_graph", COMBO, "retainCombo", "retain graph", BACKWARD,
            choices={r: r for r in RETAIN_MODES}),
    Control("detach", HEAD_CHECKS, "detachHead", "detach head", BACKWARD),
    Control("detach_mode", COMBO, "detachModeCombo", "detach with", BACKWARD,
            choices={m: DETACH_TEXT[m] for m in DETACH_MODES}, item_tips=DETACH_TIPS),
    Control("accumulate", SPIN, "accumulateSpin", "accumulate N", BACKWARD,
            range=(1, MAX_ACCUMULATE)),
    Control("accumulate_mode", COMBO, "accumulateModeCombo", "accumulate by", BACKWARD,
            choices=ACCUMULATE_TEXT),
    Control("edit_detached", HEAD_COMBO, "editDetachedCombo", "edit zk in place", BACKWARD,
            tip="zk = z.detach(); zk.mul_(1.0): an in-place edit of a detached head's "
                "input (shares z's storage)"),
    Control("edit_data", HEAD_COMBO, "editDataCombo", "edit z.data", BACKWARD,
            tip="after this head's forward, z.data.mul_(0.5): no version bump, so no "
                "error, and a silently wrong gradient"),
    Control("retain_grad", CHECK, "retainGradCheck", "z.retain_grad()", BACKWARD,
            tip="keep the junction's .grad (a non-leaf keeps none otherwise): the push "
                "chart then draws ‖z.grad‖, the heads' pushes added up"),
    Control("scale", CHECK, "scaleCheck", "scale micro-batch losses", BACKWARD,
            tip="each micro-batch loss times 1/N or n_i/B (scale each loss by, below); "
                "off: their gradients add up unscaled, N times the full batch's with "
                "equal parts"),
    # ---- when accumulation is not the full batch
    Control("micro_batch_sizes", SIZES, "microBatchSizesEdit", "micro-batch sizes", BACKWARD,
            tip="examples in each micro-batch, e.g. 40,8,8,8, adding up to the batch size "
                "(sets accumulate N); empty: N equal parts"),
    Control("scale_by", COMBO, "scaleByCombo", "scale each loss by", BACKWARD,
            choices={v: SCALE_BY_TEXT[v] for v in SCALE_BY}, item_tips=SCALE_BY_TIPS),
    Control("clip", OFF_OR_FLOAT, "clipSpin", "clip grad norm", BACKWARD, range=(0.0, MAX_CLIP),
            tip="torch.nn.utils.clip_grad_norm_(model.parameters(), max): off at 0"),
    Control("clip_at", COMBO, "clipAtCombo", "clip at", BACKWARD,
            choices={v: CLIP_AT_TEXT[v] for v in CLIP_AT}, item_tips=CLIP_AT_TIPS),
    Control("zero_grad", CHECK, "zeroGradCheck", "zero_grad each step", BACKWARD),
    Control("keep_graphs", CHECK, "keepGraphsCheck", "keep graphs (no .item())", BACKWARD,
            tip="running_loss += total without .item(): every step's graph stays alive "
                "(the classic leak)"),
    Control("loss_weights", HEAD_SLIDERS, "weightSlider", "w{k} (head{k})", WEIGHTS),
    Control("optimizer", COMBO, "optimizerCombo", "optimizer", TRAINING,
            choices=OPTIMIZER_TEXT),
    Control("lr", FLOAT, "lrSpin", "learning rate", TRAINING, range=(MIN_LR, MAX_LR)),
    Control("batch_size", SPIN, "batchSizeSpin", "batch size", TRAINING,
            range=(1, MAX_BATCH_SIZE)),
    Control("device", COMBO, "deviceCombo", "device", MODEL, choices=DEVICE_TEXT),
    Control("heads", SPIN, "headsSpin", "heads", MODEL, range=(1, MAX_HEADS)),
    Control("model", COMBO, "modelCombo", "trunk", MODEL, choices=MODEL_TEXT),
    Control("truncate", COMBO, "truncateCombo", "carried state", MODEL, choices=TRUNCATE_TEXT,
            tip="rnn: detach the carried hidden state at each step (truncated backprop "
                "through time), or never"),
    Control("trunk_width", SPIN, "trunkWidthSpin", "trunk width", MODEL,
            range=(1, MAX_TRUNK_WIDTH)),
    Control("trunk_depth", SPIN, "trunkDepthSpin", "trunk depth", MODEL,
            range=(1, MAX_TRUNK_DEPTH)),
    Control("batch_norm", CHECK, "batchNormCheck", "BatchNorm1d in the trunk", MODEL,
            tip="after the trunk's first Linear: each micro-batch is normalized by its own "
                "mean and variance, so accumulating is no longer the full batch"),
    Control("misplace_head", HEAD_COMBO, "misplaceCombo", "misplace head", MODEL,
            tip="put this head's parameters on another device than the trunk (meta where "
                "there is no GPU)"),
    Control("seed", SPIN, "seedSpin", "seed", MODEL, range=(0, MAX_SEED)),
)

# Config fields the panel has no control for, and why (each is a flag and a TOML key).
NO_CONTROL = {
    # the window trains until paused: Play and the step keys say how far
    "steps": "a run's length, for gradviz run, compare and --screenshot",
    # the engine samples its probes by the pace the run bar sets (engine.loop)
    "probes": "how much gradviz run measures; the window needs the default probes",
    "sample_every": "the engine's sampling follows the run bar's pace in the window",
    # N processes start with it (seconds each): a lesson or the command line asks for them
    "ddp_ranks": "starts N rank processes: set by a lesson or gradviz run --ddp-ranks",
    "ddp_no_sync": "goes with ddp_ranks: set by a lesson or gradviz run --ddp-no-sync",
}


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
                self.widgets[c.key].setToolTip(
                    f"{name} builds its own model (its build() decides the heads and "
                    f"the trunk): {c.label} is for the built-in model" if name else c.tip)
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
