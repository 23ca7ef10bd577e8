"""Writing a run to disk: report.json and metrics.csv (the graph is render's job).

Both are streamed a few hundred steps at a time, so memory stays flat however long the
run, and both appear (whole) only when the run is finished: until then they are
temporary files.
"""
from __future__ import annotations

import contextlib
import csv
import io
import json
from pathlib import Path

from ..config.config import Config
from ..files.atomic_write import atomic_open
from ..records.events import Event
from ..records.records import StepRecord, _call_json


def metric_columns(config: Config, param_names: list[str]) -> list[str]:
    head_names = config.head_names()
    return (["step", "total"] + [f"loss.{h}" for h in head_names] + ["global_grad_norm"]
            + [f"grad_norm.{p}" for p in param_names]
            + [f"junction_grad_norm.{h}" for h in head_names]
            + list(MEMORY_FIELDS)
            + ["trunk_walks", "backward_seconds"]
            + [f"update_cosine.{h}" for h in head_names]
            + list(STEP_COLUMNS)
            + [f"{family}.{h}" for family in CHANGE_FAMILIES for h in head_names]
            + list(_ddp_columns(config)))


def _ddp_columns(config: Config) -> tuple[str, ...]:
    """all_reduces: what the ranks' communication hook counted, where the run has ranks."""
    return ("all_reduces",) if config.ddp_ranks > 1 else ()


# sampled with the update cosine: what optimizer.step() did (core.step_effect)
STEP_COLUMNS = ("trunk_grad_norm", "trunk_step", "trunk_step_vs_sum")
CHANGE_FAMILIES = ("loss_change", "loss_change_trunk", "loss_change_head")


# the fields a step carries only where it is sampled (null on the other steps)
JUNCTION_FIELDS = ("junction_grad_norms", "cosine")
# saved_bytes: the storages the graph keeps alive (a saved slice counts the whole tensor
# it was cut from); saved_tensor_bytes: the saved tensors' own bytes, what backward needs
MEMORY_FIELDS = ("saved_bytes", "saved_bytes_peak", "saved_tensor_bytes",
                 "saved_tensor_bytes_peak", "graph_nodes")
# StepRecord.sampled_json's text of a step that sampled none of them
SAMPLED_NULLS = ", ".join(f'"{k}": null' for k in ("junction_grad_norms", "cosine",
                                                   *MEMORY_FIELDS))
UPDATE_FIELDS = ("update_cosine", *STEP_COLUMNS, *CHANGE_FAMILIES)


def sampling(config: Config, update_every: int = 1) -> list[dict]:
    """report.json's "sampled": which steps carry which measured fields. A step whose
    index is a multiple of a group's "every" carries its fields (where the run measures
    them at all); the other steps hold null there. The fields not named (the losses,
    gradient norms, backward calls) are in every step. --probes none measures none of
    them, nor the gradient norms: one group with every null."""
    if config.probes == "none":
        return [{"every": None, "fields": ["grad_norms", "global_grad_norm",
                                           *JUNCTION_FIELDS, *MEMORY_FIELDS, *UPDATE_FIELDS]}]
    every = 1 if config.probes == "all" else config.sample_every
    update = 1 if config.probes == "all" else max(every, update_every)
    # keep graphs counts every step's graph as it is banked
    memory = 1 if config.keep_graphs else every
    groups: dict[int, list[str]] = {}
    for n, fields in ((every, JUNCTION_FIELDS), (memory, MEMORY_FIELDS),
                      (update, UPDATE_FIELDS)):
        groups.setdefault(n, []).extend(fields)
    return [{"every": n, "fields": fields} for n, fields in groups.items()]


def _changes(r: StepRecord) -> list[dict | None]:
    return [r.loss_change, r.loss_change_trunk, r.loss_change_head]


def _row(r: StepRecord, config: Config, param_names: list[str]) -> list:
    head_names = config.head_names()
    norms = r.grad_norms or {}
    junction = r.junction_grad_norms or {}
    update = r.update_cosine or {}
    return ([r.step, r.total] + [r.losses[h] for h in head_names] + [r.global_grad_norm]
            + [norms.get(p) for p in param_names] + [junction.get(h) for h in head_names]
            + [r.saved_bytes, r.saved_bytes_peak, r.saved_tensor_bytes,
               r.saved_tensor_bytes_peak, r.graph_nodes]
            + [r.trunk_walks, r.backward_seconds]
            + [update.get(h) for h in head_names]
            + [r.trunk_step_fields()[name] for name in STEP_COLUMNS]
            + [(change or {}).get(h) for change in _changes(r) for h in head_names]
            + [r.all_reduces for _ in _ddp_columns(config)])


def _text(value) -> str:
    """A number as both csv and json write it (repr; json writes NaN and inf as null)."""
    kind = type(value)
    if kind is float:
        return float.__repr__(value)
    if kind is int:
        return int.__repr__(value)
    raise TypeError   # anything else: the general path


_NOT_FINITE = frozenset({"nan", "inf", "-inf"})


def _json_of(text: str) -> str:
    """csv's text of a number as json writes it: null for NaN, infinities and None ("")."""
    return "null" if text in _NOT_FINITE or not text else text


def _texts(values) -> list[str]:
    """Each float's repr, "" for None (TypeError for anything else: the general path)."""
    return ["" if v is None else float.__repr__(v) for v in values]


class _FastRows:
    """One step's report.json entry and metrics.csv row, each number formatted once for
    both (formatting floats is most of the cost), for records of the usual shape: losses
    and junction norms keyed by the heads, grad norms by the parameters, in order. The
    text is exactly what json.dumps(record.to_dict()) and csv.writer write."""

    def __init__(self, head_names: list[str], param_names: list[str], ddp: bool = False):
        """ddp: the rows end with the all_reduces column (a run with DDP ranks)."""
        self.head_names, self.params, self.ddp = head_names, param_names, ddp
        self.head_keys = [json.dumps(h) + ": " for h in head_names]
        self.param_keys = [json.dumps(p) + ": " for p in param_names]
        self._json_template, self._csv_template = self._unsampled_templates()

    def _unsampled_templates(self) -> tuple[str, str]:
        """The json text and csv line of an unsampled step with %s for its numbers (the
        step, losses, total, gradient norms, global norm, backward calls, trunk walks,
        backward seconds; everything else null or empty), keys encoded once."""
        json_text = unsampled_template(self.head_keys, self.param_keys, "[%s]", "%s", "%s")
        K, P = len(self.head_names), len(self.params)
        empty = len(STEP_COLUMNS) + (1 + len(CHANGE_FAMILIES)) * K + self.ddp
        line = ",".join(["%s"] * (3 + K + P) + [""] * (K + len(MEMORY_FIELDS)) + ["%s", "%s"]
                        + [""] * empty)
        return json_text, line + "\r\n"

    def unsampled_rows(self, r: StepRecord) -> tuple[str, str] | None:
        """rows() of a step that measured no sampled field (most steps of a sampled run),
        by two templates; None where the record is not such a step or not of the usual
        shape (a number not a float, NaN or infinite, a missing gradient)."""
        norms = r.grad_norms
        if norms is None or r.events or (
                r.junction_grad_norms, r.cosine, r.saved_bytes, r.saved_bytes_peak,
                r.saved_tensor_bytes, r.saved_tensor_bytes_peak,
                r.graph_nodes, r.z_grad_norm, r.update_cosine, r.trunk_grad_norm,
                r.trunk_step, r.trunk_step_vs_sum, r.loss_change, r.loss_change_trunk,
                r.loss_change_head, r.all_reduces).count(None) != 16 or \
                type(r.step) is not int or type(r.trunk_walks) is not int or \
                list(r.losses) != self.head_names or list(norms) != self.params:
            return None
        try:
            floats = list(map(float.__repr__, [*r.losses.values(), r.total, r.global_grad_norm,
                                               r.backward_seconds, *norms.values()]))
        except TypeError:
            return None
        K = len(self.head_names)
        losses, (total, glob, seconds), norm_texts = floats[:K], floats[K:K + 3], floats[K + 3:]
        step, walks = int.__repr__(r.step), int.__repr__(r.trunk_walks)
        line = self._csv_template % (step, total, *losses, glob, *norm_texts, walks, seconds)
        if "n" in line:   # nan or inf: json writes null, the general path says so
            return None
        calls = ", ".join(map(_call_json, r.backward_calls))
        json_text = self._json_template % (step, *losses, total, *norm_texts, glob, calls,
                                           walks, seconds)
        return json_text, line

    @staticmethod
    def _keyed(keys: list[str], texts: list[str], finite: bool) -> str:
        if not finite:
            texts = [_json_of(t) for t in texts]
        return "{" + ", ".join(map(str.__add__, keys, texts)) + "}"

    def rows(self, r: StepRecord) -> tuple[str, str] | None:
        """(json text, csv line), or None where the record is not of the usual shape."""
        losses, norms, junction = r.losses, r.grad_norms, r.junction_grad_norms
        keyed = [r.update_cosine, *_changes(r)]
        if list(losses) != self.head_names or (
                norms is not None and list(norms) != self.params) or (
                junction is not None and list(junction) != self.head_names) or any(
                d is not None and list(d) != self.head_names for d in keyed):
            return None
        K, P = len(self.head_names), len(self.params)
        try:
            # every float of the row formatted by one call (TypeError: not all floats,
            # the general path); repr is what both json and csv write for a float
            texts = list(map(float.__repr__, [*losses.values(), *(junction or {}).values()]))
            # a parameter without a gradient: None, "" in the csv, null in json
            norm_texts = _texts(norms.values()) if norms is not None else [""] * P
            total, step = _text(r.total), _text(r.step)
            optional = [None if v is None else _text(v) for v in
                        (r.global_grad_norm, r.saved_bytes, r.saved_bytes_peak,
                         r.saved_tensor_bytes, r.saved_tensor_bytes_peak,
                         r.graph_nodes, r.trunk_walks, r.backward_seconds,
                         *r.trunk_step_fields().values(), r.all_reduces)]
            per_head = [[""] * K if d is None else _texts(d.values()) for d in keyed]
        except TypeError:
            return None
        glob, saved, peak, tensors, tensors_peak, nodes, walks, seconds, *steps, reduces = \
            optional
        loss_texts = texts[:K]
        junction_texts = texts[K:] if junction is not None else [""] * K
        line = ",".join([step, total, *loss_texts, glob or "", *norm_texts, *junction_texts,
                         saved or "", peak or "", tensors or "", tensors_peak or "",
                         nodes or "", walks or "", seconds or "",
                         *per_head[0], *(t or "" for t in steps),
                         *(t for texts in per_head[1:] for t in texts),
                         *([reduces or ""] if self.ddp else [])]) + "\r\n"
        # "n" appears in a float's repr only as nan, inf or -inf, which json writes null
        finite = "n" not in line
        norms_json = "null" if norms is None else self._keyed(
            self.param_keys, norm_texts, finite and None not in norms.values())
        junction_json = "null" if junction is None else self._keyed(
            self.head_keys, junction_texts, finite)
        json_text = r.to_json(  # the formatted pieces, so each number is formatted once
            losses=self._keyed(self.head_keys, loss_texts, finite), total=_json_of(total),
            grad_norms=norms_json, junction=junction_json,
            global_grad_norm="null" if glob is None else _json_of(glob))
        return json_text, line


def unsampled_template(loss_keys: list[str], param_keys: list[str], calls: str,
                       walks: str, seconds: str, sampled: str = SAMPLED_NULLS) -> str:
    """StepRecord.to_json's text of a step that measured none of the fields of the
    update, the trunk's change or z's gradient, with %s for the step, each loss, the
    total, each gradient norm and the global norm (keys given encoded, with their ": "),
    and calls, walks, seconds and the push's and memory's text (StepRecord.sampled_json's;
    nulls by default) put in as given."""
    def keyed(keys: list[str]) -> str:
        return "{" + ", ".join(k.replace("%", "%%") + "%s" for k in keys) + "}"
    later = ", ".join(f'"{k}": null' for k in (*STEP_COLUMNS, *CHANGE_FAMILIES,
                                                "all_reduces"))
    return (f'{{"step": %s, "losses": {keyed(loss_keys)}, "total": %s, '
            f'"grad_norms": {keyed(param_keys)}, "global_grad_norm": %s, '
            f'{sampled}, "z_grad_norm": null, "update_cosine": null, '
            f'"backward_calls": {calls}, "events": [], '
            f'"trunk_walks": {walks}, "backward_seconds": {seconds}, {later}}}')


FORMAT_BATCH = 256   # steps held (plain numbers, a few KB) before they are formatted


class ReportWriter:
    """report.json and metrics.csv, written as the steps come.

    Use as a context manager: leaving it normally puts both files in place; leaving it
    by an exception (a full disk, Ctrl+C) removes the temporary files and keeps any
    older report untouched. OSError from writing propagates to the caller.
    """

    def __init__(self, out: Path, config: Config, device: str, param_names: list[str],
                 model_file: dict | None = None, update_every: int = 1):
        """model_file: which model file was trained (path, sha256, head names), if any;
        update_every: the session's update_cosine_every (see sampling())."""
        self.out, self.config, self.device = out, config, device
        self.update_every = update_every
        self.model_file = model_file
        self.param_names = param_names
        self._files = contextlib.ExitStack()
        self._steps = 0
        self._pending: list[StepRecord] = []   # added, not yet formatted
        self._fast = _FastRows(config.head_names(), param_names, config.ddp_ranks > 1)

    def __enter__(self) -> ReportWriter:
        with contextlib.ExitStack() as opening:   # a failed open closes what was opened
            self._json = opening.enter_context(atomic_open(self.out / "report.json"))
            self._csv_file = opening.enter_context(
                atomic_open(self.out / "metrics.csv", newline=""))
            self._files = opening.pop_all()
        head = json.dumps({"gradviz_report": 1, "config": self.config.to_dict(),
                           "device": self.device,
                           "sampled": sampling(self.config, self.update_every),
                           **({"model_file": self.model_file} if self.model_file else {})})
        self._json.write(head[:-1] + ', "steps": [\n')
        self._csv = csv.writer(self._csv_file)
        self._csv.writerow(metric_columns(self.config, self.param_names))
        return self

    def add(self, record: StepRecord) -> None:
        # formatted a batch at a time: between two training steps, whose torch calls
        # have evicted it, the formatting code ran at half the speed it runs in a batch
        self._pending.append(record)
        if len(self._pending) >= FORMAT_BATCH:
            self._write_pending()

    def _write_pending(self) -> None:
        json_parts, csv_parts = [], []
        for record in self._pending:
            fast = self._fast.unsampled_rows(record) or self._fast.rows(record)
            if fast is None:   # not of the usual shape: the general, slower path
                row = ["" if v is None else v
                       for v in _row(record, self.config, self.param_names)]
                out = io.StringIO(newline="")
                csv.writer(out).writerow(row)
                fast = (json.dumps(record.to_dict(), allow_nan=False), out.getvalue())
            json_parts.append(fast[0])
            csv_parts.append(fast[1])
        if json_parts:
            self._json.write((",\n" if self._steps else "") + ",\n".join(json_parts))
            self._csv_file.write("".join(csv_parts))
        self._steps += len(json_parts)
        self._pending = []

    def finish(self, events: list[Event]) -> None:
        """Close the steps list with the run's events (called before leaving normally)."""
        self._write_pending()
        self._json.write('\n], "events": '
                         + json.dumps([e.to_dict() for e in events], allow_nan=False) + "}\n")

    def __exit__(self, *exc_info) -> bool | None:
        return self._files.__exit__(*exc_info)
