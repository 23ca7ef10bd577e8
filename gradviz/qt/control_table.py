"""What the settings panel shows, as data: CONTROLS is the one list of its rows, each
Config field's widget kind, its objectName, label, tooltip and range or choices, in the
order of the rows. A field with no control is in NO_CONTROL, with the reason (tests check
that every field is in one). No widgets here: the panel (controls) builds them from this."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..plain.config.config import (
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
)

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
    # the engine samples its probes by the pace the run bar sets (engine.player)
    "probes": "how much gradviz run measures; the window needs the default probes",
    "sample_every": "the engine's sampling follows the run bar's pace in the window",
    # N processes start with it (seconds each): a lesson or the command line asks for them
    "ddp_ranks": "starts N rank processes: set by a lesson or gradviz run --ddp-ranks",
    "ddp_no_sync": "goes with ddp_ranks: set by a lesson or gradviz run --ddp-no-sync",
}
