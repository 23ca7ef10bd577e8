"""Plain records of what a session did: per phase and per optimizer step (no tensors)."""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from .events import Event


def _finite_or_none(value: Any) -> Any:
    """JSON has no NaN or infinity: write them as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite_or_none(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite_or_none(v) for v in value]
    return value


@dataclass(frozen=True)
class BackwardRecord:
    micro_batch: int
    loss: str
    retain_graph: bool


@dataclass(frozen=True)
class PhaseRecord:
    """One unit of single-stepping: what was just done."""
    step: int
    name: str                  # "zero_grad", "forward", "backward", "optimizer step"
    detail: str                # e.g. "backward 2 of 3: head1 (retain_graph=True)"
    micro_batch: int = 0
    step_done: bool = False    # this phase completed the optimizer step
    event: Event | None = None  # set when this phase raised or diverged


@dataclass
class GroupDiff:
    """A parameter group's largest |A - B| gradient element, and that over the largest
    |A| in the group."""
    max_abs: float
    max_rel: float


@dataclass
class StepDiff:
    """A's and B's gradients of one step, compared per parameter group."""
    step: int
    groups: dict[str, GroupDiff]
    total_a: float = math.nan          # each loop's total loss at this step (ghost lines)
    total_b: float = math.nan
    peak_a: int | None = None          # saved_bytes_peak at this step
    peak_b: int | None = None
    # head k's gradient at the junction z in B over A's (None where A's is zero)
    junction_ratio: list[float | None] | None = None
    diverged: str | None = None        # whose gradients are not finite: "A", "B", "A and B"


@dataclass
class StepRecord:
    step: int
    losses: dict[str, float]
    total: float
    # per parameter; None for a parameter whose .grad is None (no gradient reached it,
    # or zero_grad(set_to_none=True) left it so): not 0.0, which is a gradient of zeros
    grad_norms: dict[str, float | None] | None = None
    global_grad_norm: float | None = None
    junction_grad_norms: dict[str, float] | None = None
    cosine: list[list[float]] | None = None
    # bytes of the distinct storages the autograd graphs alive keep alive through the
    # tensors they saved for backward (parameters' not counted), at the step's end, and
    # the most measured in the step: a saved view counts its whole base storage (a batch
    # sliced from a dataset counts the dataset), since that stays allocated
    saved_bytes: int | None = None
    saved_bytes_peak: int | None = None
    # the same points, counting what backward needs: the saved tensors' own elements
    # (numel x element size, each distinct view once; core.autograd_walk)
    saved_tensor_bytes: int | None = None
    saved_tensor_bytes_peak: int | None = None
    graph_nodes: int | None = None
    z_grad_norm: float | None = None   # retain_grad: the norm of z.grad after the backward
    # per head: the cosine of its trunk gradient with the trunk update (core.update_probe)
    update_cosine: dict[str, float] | None = None
    backward_calls: list[BackwardRecord] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    # one pass or K: how many times the backward calls walked this step's trunk (a
    # hook on its first node counts), and their time in seconds
    trunk_walks: int | None = None
    backward_seconds: float | None = None
    # sampled with update_cosine: the length of the trunk gradient optimizer.step() is
    # handed; (core.step_effect) the length of the change it made to the trunk's
    # parameters, and that over the length of the update plain SGD would make from the
    # sum's trunk gradient (None under adam)
    trunk_grad_norm: float | None = None
    trunk_step: float | None = None
    trunk_step_vs_sum: float | None = None
    # per head: L_k after the step minus before, on the same batch (re-evaluated), and
    # its first-order parts: grad_trunk L_k . d(trunk) and grad_head_k L_k . d(head_k)
    loss_change: dict[str, float] | None = None
    loss_change_trunk: dict[str, float] | None = None
    loss_change_head: dict[str, float] | None = None
    # ddp-ranks N: the all-reduces the ranks' DDP ran this step, as a communication hook
    # counted them (one per gradient bucket per synchronised backward); None: one process
    all_reduces: int | None = None
    # a watch told of a torch.amp.GradScaler: the scale the step's gradients were scaled
    # by (its norms are recorded unscaled), and whether scaler.step skips it (an inf or
    # a NaN among them). Written only where set.
    amp_scale: float | None = None
    amp_skipped: bool | None = None
    # sampled steps of a watch: per parameter, a few fixed random projections of its
    # .grad (core.grad_fingerprint), None where the .grad was None: ranks holding the
    # same gradient hold the same numbers, so their gradients (not only their norms)
    # can be compared. Left out of the step's JSON where not measured, so that every
    # other step's line is the one it always was
    grad_fingerprint: dict[str, list[float] | None] | None = None
    # a watch told each loss's weight (watch.losses(weights=...)): the total and the
    # push are of the weighted terms, the losses as named; written only where set
    loss_weights: dict[str, float] | None = None
    # a watched step's wall-clock time at its end (seconds since the epoch), read back
    # from its line (the watch writes it beside micro_batches): a viewer's time axis
    wall_time: float | None = None

    @classmethod
    def numbers_only(cls, step: int, losses: dict[str, float], total: float,
                     grad_norms: dict[str, float | None],
                     global_grad_norm: float | None) -> StepRecord:
        """The record of a step that measured its losses and gradient norms only (a
        watch's usual step: one every step of the user's loop), equal to the
        constructor's and a few microseconds cheaper there. The constructor sets all
        thirty fields one by one; here every other field reads its default from the
        class, where a dataclass keeps each plain default (None), and the two lists,
        whose defaults are made per record, are made here."""
        record = object.__new__(cls)
        record.step, record.losses, record.total = step, losses, total
        record.grad_norms, record.global_grad_norm = grad_norms, global_grad_norm
        record.backward_calls, record.events = [], []
        return record

    def trunk_step_fields(self) -> dict[str, float | None]:
        """The step's length numbers, in the report's order."""
        return {"trunk_grad_norm": self.trunk_grad_norm, "trunk_step": self.trunk_step,
                "trunk_step_vs_sum": self.trunk_step_vs_sum}

    def to_dict(self) -> dict[str, Any]:
        data = {
            "step": self.step, "losses": self.losses, "total": self.total,
            "grad_norms": self.grad_norms, "global_grad_norm": self.global_grad_norm,
            "junction_grad_norms": self.junction_grad_norms, "cosine": self.cosine,
            "saved_bytes": self.saved_bytes, "saved_bytes_peak": self.saved_bytes_peak,
            "saved_tensor_bytes": self.saved_tensor_bytes,
            "saved_tensor_bytes_peak": self.saved_tensor_bytes_peak,
            "graph_nodes": self.graph_nodes, "z_grad_norm": self.z_grad_norm,
            "update_cosine": self.update_cosine,
            "backward_calls": [vars(c) for c in self.backward_calls],
            "events": [e.to_dict() for e in self.events],
            "trunk_walks": self.trunk_walks, "backward_seconds": self.backward_seconds,
            "trunk_grad_norm": self.trunk_grad_norm,
            "trunk_step": self.trunk_step, "trunk_step_vs_sum": self.trunk_step_vs_sum,
            "loss_change": self.loss_change, "loss_change_trunk": self.loss_change_trunk,
            "loss_change_head": self.loss_change_head, "all_reduces": self.all_reduces,
        }
        if self.amp_scale is not None or self.amp_skipped is not None:
            data.update(amp_scale=self.amp_scale, amp_skipped=self.amp_skipped)
        if self.grad_fingerprint is not None:
            data["grad_fingerprint"] = self.grad_fingerprint
        if self.loss_weights is not None:
            data["loss_weights"] = self.loss_weights
        return _finite_or_none(data)

    def to_json(self, losses: str | None = None, total: str | None = None,
                grad_norms: str | None = None, junction: str | None = None,
                global_grad_norm: str | None = None) -> str:
        """json.dumps(self.to_dict()), character for character, several times faster: the
        report writes one per step (numbers formatted as json does, keys encoded once).
        A caller that has already formatted a part passes its json text."""
        losses = _object(self.losses) if losses is None else losses
        total = _number(self.total) if total is None else total
        grad_norms = _object(self.grad_norms) if grad_norms is None else grad_norms
        junction = _object(self.junction_grad_norms) if junction is None else junction
        if global_grad_norm is None:
            global_grad_norm = _number(self.global_grad_norm)
        return (f'{{"step": {_number(self.step)}, "losses": {losses}, "total": {total}, '
                f'"grad_norms": {grad_norms}, "global_grad_norm": {global_grad_norm}, '
                f'{self.sampled_json(junction)}, "z_grad_norm": {_number(self.z_grad_norm)}, '
                f'"update_cosine": {_object(self.update_cosine)}, '
                f'"backward_calls": [{", ".join(map(_call_json, self.backward_calls))}], '
                f'"events": {_events_json(self.events)}, '
                f'"trunk_walks": {_number(self.trunk_walks)}, '
                f'"backward_seconds": {_number(self.backward_seconds)}, '
                f'"trunk_grad_norm": {_number(self.trunk_grad_norm)}, '
                f'"trunk_step": {_number(self.trunk_step)}, '
                f'"trunk_step_vs_sum": {_number(self.trunk_step_vs_sum)}, '
                f'"loss_change": {_object(self.loss_change)}, '
                f'"loss_change_trunk": {_object(self.loss_change_trunk)}, '
                f'"loss_change_head": {_object(self.loss_change_head)}, '
                f'"all_reduces": {_number(self.all_reduces)}{self._amp_json()}'
                + ("" if self.grad_fingerprint is None else
                   f', "grad_fingerprint": {_object(self.grad_fingerprint)}')
                + ("" if self.loss_weights is None else
                   f', "loss_weights": {_object(self.loss_weights)}') + "}")

    def sampled_json(self, junction: str | None = None) -> str:
        """The text of the fields a watch measures on its sampled steps (each loss's
        push, the cosines, the memory the graph holds), as to_json writes them, without
        braces: a watched step's line puts it into its template."""
        junction = _object(self.junction_grad_norms) if junction is None else junction
        return (f'"junction_grad_norms": {junction}, "cosine": {_matrix(self.cosine)}, '
                f'"saved_bytes": {_number(self.saved_bytes)}, '
                f'"saved_bytes_peak": {_number(self.saved_bytes_peak)}, '
                f'"saved_tensor_bytes": {_number(self.saved_tensor_bytes)}, '
                f'"saved_tensor_bytes_peak": {_number(self.saved_tensor_bytes_peak)}, '
                f'"graph_nodes": {_number(self.graph_nodes)}')

    def _amp_json(self) -> str:
        if self.amp_scale is None and self.amp_skipped is None:
            return ""
        return (f', "amp_scale": {_number(self.amp_scale)}, '
                f'"amp_skipped": {_number(self.amp_skipped)}')


def _events_json(events: list) -> str:
    return "[]" if not events else _dumps([e.to_dict() for e in events])


def _dumps(value: Any) -> str:
    return json.dumps(_finite_or_none(value), allow_nan=False)


def _number(value: Any) -> str:
    """A value as json.dumps writes it after _finite_or_none (NaN and infinities: null)."""
    kind = type(value)
    if kind is float:
        # json writes float.__repr__; v - v is NaN for NaN and both infinities
        return float.__repr__(value) if value - value == 0.0 else "null"
    if kind is int:
        return int.__repr__(value)
    if value is None:
        return "null"
    return _dumps(value)


_KEYS: dict[str, str] = {}   # a dict key as json writes it, with its ": "


def _object(data: dict | None) -> str:
    if data is None:
        return "null"
    parts = []
    for key, value in data.items():
        encoded = _KEYS.get(key) if type(key) is str else None
        if encoded is None:
            if type(key) is not str:
                return _dumps(data)
            if len(_KEYS) > 4096:
                _KEYS.clear()
            encoded = _KEYS[key] = json.dumps(key) + ": "
        parts.append(encoded + _number(value))
    return "{" + ", ".join(parts) + "}"


def _matrix(rows: list | None) -> str:
    if rows is None:
        return "null"
    if type(rows) is not list or not all(type(row) is list for row in rows):
        return _dumps(rows)
    try:   # all floats, all finite (the usual cosines): each formatted by one call
        text = "[" + ", ".join(["[" + ", ".join(map(float.__repr__, row)) + "]"
                                for row in rows]) + "]"
        if "n" not in text:   # a float's repr has an n only as nan or inf: json's null
            return text
    except TypeError:
        pass
    return "[" + ", ".join("[" + ", ".join(map(_number, row)) + "]" for row in rows) + "]"


_CALLS: dict[tuple, str] = {}


def _call_json(call: BackwardRecord) -> str:
    # keyed with the field types too: 1 == True, but json writes them apart
    key = (call, type(call.micro_batch), type(call.retain_graph))
    encoded = _CALLS.get(key)
    if encoded is None:
        if len(_CALLS) > 4096:
            _CALLS.clear()
        encoded = _CALLS[key] = _dumps(vars(call))
    return encoded


@dataclass
class CompareRecord:
    """One step of a configuration B trained in lockstep beside the app's A (plain data
    for the window): B's own record, the gradients compared, the verdict in words (since
    B was pinned, as `gradviz compare` would give it for these steps, and for this step
    alone), the peaks of saved memory so far, or what stopped B."""
    step: int
    verdict: str                       # since pinned (or the last reset)
    same: bool
    step_verdict: str = ""             # this step alone (in the newest record of a batch)
    step_same: bool = False
    diff: StepDiff | None = None       # None where B stopped
    b: StepRecord | None = None        # B's losses, total, gradient norms, memory
    worst: dict[str, GroupDiff] = field(default_factory=dict)   # per group, since pinned
    peak_a: int | None = None          # the most saved_bytes_peak since pinned (or reset)
    peak_b: int | None = None
    error: Event | None = None         # what stopped B (A goes on)
