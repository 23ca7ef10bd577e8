"""The settings panel: a widget for every config key. Each change builds a new Config,
validates it, and emits it; an unusable combination is named in one line, not applied."""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDoubleSpinBox, QFormLayout, QGroupBox,
                               QHBoxLayout, QLabel, QSlider, QSpinBox, QVBoxLayout, QWidget)

from ..core.config import (DETACH_MODES, MAX_ACCUMULATE, MAX_BATCH_SIZE,
                           MAX_HEADS, MAX_LR, MAX_SEED, MAX_TRUNK_DEPTH, MAX_TRUNK_WIDTH,
                           OPTIMIZERS, RETAIN_MODES, STRATEGIES, Config,
                           ConfigError)

WEIGHT_STEPS = 100  # slider units per 1.0 of loss weight
STRATEGY_TEXT = {"sum": "sum", "separate": "separate", "in-loop": "in-loop"}
STRATEGY_TIPS = {"sum": "total = Σ w_k·L_k; total.backward() once",
                 "separate": "L_k.backward() for each head k",
                 "in-loop": "total += L_k; total.backward() inside the loop (the classic mistake)"}
DETACH_TEXT = {"detach": "z.detach()", "detach_": "z.detach_()"}
ACCUMULATE_TEXT = {"backward-each": "backward each", "sum-first": "sum first"}
MODEL_TEXT = {"mlp": "MLP", "rnn": "RNN (carried state)"}
TRUNCATE_TEXT = {"every-step": "detach every step", "never": "never detach"}


def _combo(name: str, items: dict[str, str]) -> QComboBox:
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


def _check(name: str, text: str) -> QCheckBox:
    box = QCheckBox(text)
    box.setObjectName(name)
    return box


class ControlsPanel(QWidget):
    configChanged = Signal(object)   # a validated Config

    def __init__(self, config: Config, parent=None):
        super().__init__(parent)
        self.setObjectName("controlsPanel")
        self._config = config
        self._updating = False
        self._build()
        self.set_config(config)

    # ---- building ----------------------------------------------------------------
    def _build(self) -> None:
        # the CPU is always there; the engine's first message names the others
        self.device = _combo("deviceCombo", {"auto": "auto (best here)", "cpu": "cpu — CPU"})
        self.heads = _spin("headsSpin", 1, MAX_HEADS)
        self.width_spin = _spin("trunkWidthSpin", 1, MAX_TRUNK_WIDTH)
        self.depth = _spin("trunkDepthSpin", 1, MAX_TRUNK_DEPTH)
        self.seed = _spin("seedSpin", 0, MAX_SEED)
        self.batch = _spin("batchSizeSpin", 1, MAX_BATCH_SIZE)
        self.strategy = _combo("strategyCombo", {s: STRATEGY_TEXT[s] for s in STRATEGIES})
        self.retain = _combo("retainCombo", {r: r for r in RETAIN_MODES})
        self.detach_mode = _combo("detachModeCombo", {m: DETACH_TEXT[m] for m in DETACH_MODES})
        self.accumulate = _spin("accumulateSpin", 1, MAX_ACCUMULATE)
        self.accumulate_mode = _combo("accumulateModeCombo", ACCUMULATE_TEXT)
        self.model_kind = _combo("modelCombo", MODEL_TEXT)
        self.truncate = _combo("truncateCombo", TRUNCATE_TEXT)
        self.truncate.setToolTip("rnn: detach the carried hidden state at each step "
                                 "(truncated backprop through time), or never")
        self.retain_grad = _check("retainGradCheck", "z.retain_grad()")
        self.retain_grad.setToolTip("keep the junction's .grad (a non-leaf keeps none "
                                    "otherwise) and plot nothing new: see the graph's z")
        self.misplace = _combo("misplaceCombo", {None: "none"})
        self.misplace.setToolTip("put this head's parameters on another device than the "
                                 "trunk (meta where there is no GPU)")
        self.edit_detached = _combo("editDetachedCombo", {None: "none"})
        self.edit_detached.setToolTip("zk = z.detach(); zk.mul_(1.0): an in-place edit of "
                                      "a detached head's input (shares z's storage)")
        self.scale = _check("scaleCheck", "scale losses by 1/N")
        self.zero_grad = _check("zeroGradCheck", "zero_grad each step")
        self.keep_graphs = _check("keepGraphsCheck", "keep graphs (no .item())")
        self.keep_graphs.setToolTip("running_loss += total without .item(): every step's "
                                    "graph stays alive (the classic leak)")
        for i, s in enumerate(STRATEGIES):
            self.strategy.setItemData(i, STRATEGY_TIPS[s], Qt.ToolTipRole)
        self.detach_mode.setItemData(0, "head k reads z.detach(): z's storage, cut from the graph",
                                     Qt.ToolTipRole)
        self.detach_mode.setItemData(1, "z itself is cut out of the graph, for every head "
                                        "after this one too", Qt.ToolTipRole)
        self.optimizer = _combo("optimizerCombo", {o: o.upper() if o == "sgd" else "Adam"
                                                   for o in OPTIMIZERS})
        self.lr = QDoubleSpinBox()
        self.lr.setObjectName("lrSpin")
        self.lr.setDecimals(5)
        self.lr.setRange(0.00001, MAX_LR)
        self.lr.setSingleStep(0.01)
        self.lr.setKeyboardTracking(False)
        self.detach_row = QHBoxLayout()
        self.weights_form = QFormLayout()
        self.detach_boxes: list[QCheckBox] = []
        self.weight_sliders: list[QSlider] = []
        self.weight_labels: list[QLabel] = []
        self.problem = QLabel("")
        self.problem.setObjectName("controlsProblem")
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("color: #C00000; font-weight: bold")

        model = QFormLayout()
        for label, w in (("device", self.device), ("heads", self.heads),
                         ("trunk", self.model_kind), ("carried state", self.truncate),
                         ("trunk width", self.width_spin), ("trunk depth", self.depth),
                         ("misplace head", self.misplace), ("seed", self.seed)):
            model.addRow(label, w)
        backward = QFormLayout()
        backward.addRow("strategy", self.strategy)
        backward.addRow("retain graph", self.retain)
        backward.addRow("detach head", self.detach_row)
        backward.addRow("detach with", self.detach_mode)
        backward.addRow("accumulate N", self.accumulate)
        backward.addRow("accumulate by", self.accumulate_mode)
        backward.addRow("edit zk in place", self.edit_detached)
        backward.addRow(self.retain_grad)
        backward.addRow(self.scale)
        backward.addRow(self.zero_grad)
        backward.addRow(self.keep_graphs)
        training = QFormLayout()
        training.addRow("optimizer", self.optimizer)
        training.addRow("learning rate", self.lr)
        training.addRow("batch size", self.batch)

        layout = QVBoxLayout(self)
        for title, form in (("Backward", backward), ("Loss weights", self.weights_form),
                            ("Training", training), ("Model (changing it resets)", model)):
            box = QGroupBox(title)
            box.setLayout(form)
            layout.addWidget(box)
        layout.addWidget(self.problem)
        layout.addStretch(1)

        for combo in (self.device, self.strategy, self.retain, self.detach_mode, self.optimizer,
                      self.accumulate_mode, self.model_kind, self.truncate, self.misplace,
                      self.edit_detached):
            combo.currentIndexChanged.connect(self._changed)
        for spin in (self.heads, self.width_spin, self.depth, self.seed, self.batch,
                     self.accumulate, self.lr):
            spin.valueChanged.connect(self._changed)
        for box in (self.scale, self.zero_grad, self.keep_graphs, self.retain_grad):
            box.toggled.connect(self._changed)

    def _rebuild_heads(self, heads: int) -> None:
        """One detach box and one weight slider per head."""
        for box in self.detach_boxes:
            box.deleteLater()
        while self.weights_form.rowCount():
            self.weights_form.removeRow(0)
        self.detach_boxes, self.weight_sliders, self.weight_labels = [], [], []
        for combo in (self.misplace, self.edit_detached):   # "none", then one per head
            while combo.count() > 1:
                combo.removeItem(combo.count() - 1)
            for k in range(heads):
                combo.addItem(f"head {k}", k)
        for k in range(heads):
            box = _check(f"detachHead{k}", str(k))
            box.toggled.connect(self._changed)
            self.detach_row.addWidget(box)
            self.detach_boxes.append(box)
            slider = QSlider(Qt.Horizontal)
            slider.setObjectName(f"weightSlider{k}")
            slider.setRange(0, 3 * WEIGHT_STEPS)
            slider.valueChanged.connect(self._changed)
            value = QLabel()
            value.setObjectName(f"weightLabel{k}")
            value.setMinimumWidth(48)
            row = QHBoxLayout()
            row.addWidget(slider, 1)
            row.addWidget(value)
            self.weights_form.addRow(f"w{k} (head{k})", row)
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
            self._select(self.device, cfg.device)
            self.heads.setValue(cfg.heads)
            self.width_spin.setValue(cfg.trunk_width)
            self.depth.setValue(cfg.trunk_depth)
            self.seed.setValue(cfg.seed)
            self.batch.setValue(cfg.batch_size)
            self._select(self.strategy, cfg.strategy)
            self._select(self.retain, cfg.retain_graph)
            self._select(self.detach_mode, cfg.detach_mode)
            self.accumulate.setValue(cfg.accumulate)
            self._select(self.accumulate_mode, cfg.accumulate_mode)
            self._select(self.model_kind, cfg.model)
            self._select(self.truncate, cfg.truncation())
            self._sync_enabled()
            self._select(self.misplace, cfg.misplace_head)
            self._select(self.edit_detached, cfg.edit_detached)
            self.retain_grad.setChecked(cfg.retain_grad)
            self.scale.setChecked(cfg.scale)
            self.zero_grad.setChecked(cfg.zero_grad)
            self.keep_graphs.setChecked(cfg.keep_graphs)
            self._select(self.optimizer, cfg.optimizer)
            self.lr.setValue(cfg.lr)
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

    def set_devices(self, devices: list) -> None:
        """The engine's (name, description) list: list them, keeping the selection and
        emitting nothing."""
        self._updating = True
        try:
            chosen = self.device.currentData()
            self.device.clear()
            self.device.addItem("auto (best here)", "auto")
            for name, desc in devices:
                self.device.addItem(f"{name} — {desc}", name)
            self._select(self.device, chosen)
        finally:
            self._updating = False

    def _sync_enabled(self) -> None:
        rnn = self.model_kind.currentData() == "rnn"
        self.truncate.setEnabled(rnn)
        self.depth.setEnabled(not rnn)   # the rnn's depth is its 4 time steps

    @staticmethod
    def _select(combo: QComboBox, value: str) -> None:
        index = combo.findData(value)
        if index < 0:  # e.g. a device named in a config that is not listed
            combo.addItem(str(value), value)
            index = combo.count() - 1
        combo.setCurrentIndex(index)

    def _widget_values(self) -> dict:
        """What the widgets show, as config fields."""
        heads = self.heads.value()
        weights = tuple(s.value() / WEIGHT_STEPS for s in self.weight_sliders)
        if len(weights) != heads or all(w == 1.0 for w in weights):
            weights = ()
        return dict(
            device=self.device.currentData(), heads=heads,
            trunk_width=self.width_spin.value(), trunk_depth=self.depth.value(),
            seed=self.seed.value(), batch_size=self.batch.value(),
            strategy=self.strategy.currentData(), retain_graph=self.retain.currentData(),
            detach=tuple(k for k, b in enumerate(self.detach_boxes) if b.isChecked() and k < heads),
            detach_mode=self.detach_mode.currentData(), accumulate=self.accumulate.value(),
            scale=self.scale.isChecked(), zero_grad=self.zero_grad.isChecked(),
            keep_graphs=self.keep_graphs.isChecked(), optimizer=self.optimizer.currentData(),
            lr=self.lr.value(), loss_weights=weights,
            accumulate_mode=self.accumulate_mode.currentData(),
            model=self.model_kind.currentData(),
            truncate=self.truncate.currentData() if self.model_kind.currentData() == "rnn"
            else None,
            misplace_head=self.misplace.currentData(),
            edit_detached=self.edit_detached.currentData(),
            retain_grad=self.retain_grad.isChecked())

    def _read(self) -> Config:
        """The config with what the user changed since it was shown. Only changed widgets
        count: a value from a file beyond a widget's range (trunk depth 150, lr 50)
        stays as it was instead of being clipped when another toggle is touched."""
        now = self._widget_values()
        changes = {k: v for k, v in now.items() if v != self._shown.get(k)}
        if "heads" in changes:   # the per-head rows were for the old count
            for key in ("detach", "loss_weights", "misplace_head", "edit_detached"):
                changes.setdefault(key, now[key])
        if "model" in changes:   # truncation means something for the rnn alone
            changes["truncate"] = now["truncate"]
        return self._config.replace(**changes)

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
        if self.heads.value() != len(self.detach_boxes):
            self.set_config(cfg)   # a new head count: new rows for detach and weights
        self._config = cfg
        self._shown = self._widget_values()
        self.configChanged.emit(cfg)
