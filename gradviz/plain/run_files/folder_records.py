"""Every record a run folder holds, decoded and checked field by field: a step line
(steps.jsonl, report.json's steps), a graph (graphs.jsonl, graph.json), a stream's header
(watch.json) and report.json's head.

A run folder may come from anyone (a colleague's rsync, a downloaded archive), so each
field is checked for its type and range as it is decoded: a wrong one is a RecordError
naming the field ("losses: expected object, got array"), which the reader turns into
one line naming the file and line, and skips. Fields a record does not know are
ignored, so that a folder written by a newer gradviz still reads; a known field of the
wrong type is never taken.

The records are decoded by msgspec Structs, each field's type and range declared once
below, chosen by measurement: on 100,000 realistic step lines msgspec decoded and
checked a line in 1.6 us where json.loads followed by the same checks written by hand
took 10.8 us (json.loads alone 6.9 us; tests/plain/reader_bench.py, docs/benchmarks.md
"Reading a run folder"), and it refuses what json.loads lets through (1e999 as
infinity, NaN) without a line of ours.
"""
from __future__ import annotations

import re
from typing import Annotated, Any

import msgspec
from msgspec import Meta, Struct

from ..graph.graph_data import GraphData, GraphEdge, GraphNode, ModuleCall
from ..records.events import PYTORCH, Event
from ..records.records import BackwardRecord, StepRecord

MAX_NAME_CHARS = 1024      # a loss's, a parameter's, a node's name
MAX_NAMES = 16384          # losses or parameters in one record: a line of 16 Ki names is
#                            about 650 KB, within the line cap (bounded_file)
MAX_STEP = 2 ** 53         # steps are kept as float64: exact up to here
MAX_COUNT = 2 ** 62        # bytes, nodes, walks, all-reduces
MAX_FINGERPRINT = 64       # a fingerprint's numbers per parameter (a watch writes 2)
MAX_GRAPH_NODES = 50000    # a graph to lay out: a ResNet-50's autograd graph is ~1,500
MAX_MICRO_BATCHES = 2 ** 31

Name = Annotated[str, Meta(max_length=MAX_NAME_CHARS)]
# JSON has no NaN nor infinity: the writer writes null for them (and msgspec refuses a
# number too large for a float), so every measured number may be null
Number = float | None
Length = Annotated[float, Meta(ge=0.0)] | None       # a norm, a time: never negative
Count = Annotated[int, Meta(ge=0, le=MAX_COUNT)] | None
Named = Annotated[dict[Name, Number], Meta(max_length=MAX_NAMES)]
NamedLengths = Annotated[dict[Name, Length], Meta(max_length=MAX_NAMES)]
Step = Annotated[int, Meta(ge=0, le=MAX_STEP)]


class RecordError(ValueError):
    """A record that is not what gradviz writes; str(): "FIELD: what is wrong" (or only
    what is wrong, where it is the record as a whole)."""


class BackwardLine(Struct, gc=False):
    micro_batch: Annotated[int, Meta(ge=0, le=MAX_MICRO_BATCHES)]
    loss: Name
    retain_graph: bool


class EventLine(Struct, gc=False):
    step: Step
    phase: str
    call: str
    type: str
    message: str
    title: str
    explanation: str
    hint: str
    source: str = PYTORCH


class StepLine(Struct, gc=False):
    """One step as a report step or a stream's line holds it (StepRecord's fields, each
    number nullable as written, plus a stream's micro_batches)."""
    step: Step
    losses: Named
    total: Number
    grad_norms: NamedLengths | None = None
    global_grad_norm: Length = None
    junction_grad_norms: NamedLengths | None = None
    cosine: Annotated[list[Annotated[list[Number], Meta(max_length=MAX_NAMES)]],
                      Meta(max_length=MAX_NAMES)] | None = None
    saved_bytes: Count = None
    saved_bytes_peak: Count = None
    graph_nodes: Count = None
    z_grad_norm: Length = None
    update_cosine: Named | None = None
    backward_calls: list[BackwardLine] = []
    events: list[EventLine] = []
    trunk_walks: Count = None
    backward_seconds: Length = None
    trunk_grad_norm: Length = None
    trunk_step: Length = None
    trunk_step_vs_sum: Length = None
    loss_change: Named | None = None
    loss_change_trunk: Named | None = None
    loss_change_head: Named | None = None
    all_reduces: Count = None
    amp_scale: Annotated[float, Meta(gt=0.0)] | None = None
    amp_skipped: bool | None = None
    grad_fingerprint: Annotated[dict[Name, Annotated[list[Number], Meta(
        max_length=MAX_FINGERPRINT)] | None], Meta(max_length=MAX_NAMES)] | None = None
    saved_tensor_bytes: Count = None
    saved_tensor_bytes_peak: Count = None
    loss_weights: Named | None = None
    micro_batches: Annotated[int, Meta(ge=1, le=MAX_MICRO_BATCHES)] = 1
    wall_time: Annotated[float, Meta(ge=0.0, le=1e11)] | None = None   # seconds, epoch

    @property
    def sampled(self) -> bool:
        """Whether the step holds what History keeps of the newest sampled step."""
        return not (self.cosine is None and self.update_cosine is None
                    and self.trunk_step is None and self.trunk_grad_norm is None
                    and self.loss_change is None and self.loss_change_trunk is None
                    and self.loss_change_head is None)

    def record(self) -> StepRecord:
        return StepRecord(
            step=self.step, losses=self.losses, total=self.total,  # type: ignore[arg-type]
            grad_norms=self.grad_norms, global_grad_norm=self.global_grad_norm,
            junction_grad_norms=self.junction_grad_norms,  # type: ignore[arg-type]
            cosine=self.cosine,  # type: ignore[arg-type]
            saved_bytes=self.saved_bytes, saved_bytes_peak=self.saved_bytes_peak,
            graph_nodes=self.graph_nodes, z_grad_norm=self.z_grad_norm,
            update_cosine=self.update_cosine,  # type: ignore[arg-type]
            backward_calls=[BackwardRecord(c.micro_batch, c.loss, c.retain_graph)
                            for c in self.backward_calls],
            events=[Event(e.step, e.phase, e.call, e.type, e.message, e.title,
                          e.explanation, e.hint, e.source) for e in self.events],
            trunk_walks=self.trunk_walks, backward_seconds=self.backward_seconds,
            trunk_grad_norm=self.trunk_grad_norm, trunk_step=self.trunk_step,
            trunk_step_vs_sum=self.trunk_step_vs_sum,
            loss_change=self.loss_change,  # type: ignore[arg-type]
            loss_change_trunk=self.loss_change_trunk,  # type: ignore[arg-type]
            loss_change_head=self.loss_change_head,  # type: ignore[arg-type]
            all_reduces=self.all_reduces, amp_scale=self.amp_scale,
            amp_skipped=self.amp_skipped,
            grad_fingerprint=self.grad_fingerprint,  # type: ignore[arg-type]
            saved_tensor_bytes=self.saved_tensor_bytes,
            saved_tensor_bytes_peak=self.saved_tensor_bytes_peak,
            loss_weights=self.loss_weights,  # type: ignore[arg-type]
            wall_time=self.wall_time)


Shape = Annotated[list[Annotated[int, Meta(ge=0, le=MAX_COUNT)]], Meta(max_length=64)]


class NodeLine(Struct, gc=False):
    id: Name
    kind: Name
    label: str
    shape: Shape | None = None
    dtype: Name = ""
    device: Name = ""
    heads_reaching: Annotated[list[Annotated[int, Meta(ge=0)]],
                              Meta(max_length=MAX_NAMES)] = []
    state: Name = "alive"
    saved_bytes: Annotated[int, Meta(ge=0, le=MAX_COUNT)] = 0
    grad_norm: Length = None
    tensor: Name = ""
    requires_grad: bool | None = None
    is_leaf: bool | None = None
    has_grad: bool | None = None
    grad_note: str = ""
    module: Name = ""
    detail: str = ""
    members: Annotated[list[Name], Meta(max_length=MAX_GRAPH_NODES)] = []


class EdgeLine(Struct, gc=False):
    src: Name
    dst: Name
    kind: Name = "grad"
    label: str = ""
    grad_norm: Length = None


class ModuleLine(Struct, gc=False):
    id: Name
    path: Name
    kind: Name
    detail: str = ""
    out_shape: Shape | None = None
    step: Annotated[int, Meta(ge=0, le=MAX_STEP)] | None = None
    parent: Name = ""


class GraphLine(Struct, gc=False):
    nodes: Annotated[list[NodeLine], Meta(max_length=MAX_GRAPH_NODES)] = []
    edges: Annotated[list[EdgeLine], Meta(max_length=4 * MAX_GRAPH_NODES)] = []
    modules: Annotated[list[ModuleLine], Meta(max_length=MAX_GRAPH_NODES)] = []
    sweeps: Annotated[list[Annotated[list[Name], Meta(max_length=MAX_GRAPH_NODES)]],
                      Meta(max_length=MAX_GRAPH_NODES)] = []

    def __post_init__(self) -> None:
        ids = {n.id for n in self.nodes}
        for e in self.edges:
            if e.src not in ids or e.dst not in ids:
                raise ValueError("edges: an edge to a node the graph does not have")

    def graph(self) -> GraphData:
        return GraphData(
            nodes=[GraphNode(n.id, n.kind, n.label, _tuple(n.shape), n.dtype, n.device,
                             tuple(n.heads_reaching), n.state, n.saved_bytes, n.grad_norm,
                             n.tensor, n.requires_grad, n.is_leaf, n.has_grad, n.grad_note,
                             n.module, n.detail, tuple(n.members)) for n in self.nodes],
            edges=[GraphEdge(e.src, e.dst, e.kind, e.label, e.grad_norm) for e in self.edges],
            modules=[ModuleCall(m.id, m.path, m.kind, m.detail, _tuple(m.out_shape), m.step,
                                m.parent) for m in self.modules],
            sweeps=[list(s) for s in self.sweeps])


def _tuple(shape: list[int] | None) -> tuple[int, ...] | None:
    return None if shape is None else tuple(shape)


class GraphEntry(Struct, gc=False):
    """A graphs.jsonl line, or graph.json beside a report (which says whose it is)."""
    step: Step
    graph: GraphLine
    gradviz_graph: int | None = None


class Writer(Struct):
    host: Annotated[str, Meta(max_length=256)]
    pid: Annotated[int, Meta(ge=0, le=2 ** 62)]


class Ended(Struct):
    how: Annotated[str, Meta(max_length=64)]   # finished, exception, signal (watch_end)
    what: Annotated[str, Meta(max_length=4096)] | None = None


class Stopped(Struct):
    steps: Annotated[int, Meta(ge=0, le=MAX_STEP)] | None = None
    why: Annotated[str, Meta(max_length=4096)] | None = None


# A header's fields, each checked alone: a header with one wrong field (a param_names
# that is a number) is still the stream's header, the field left out and said. The
# values are as a reader uses them: dicts for the nested records.
HEADER_FIELDS: dict[str, Any] = {
    "gradviz_report": Annotated[int, Meta(ge=0)],
    "gradviz_watch": Annotated[int, Meta(ge=0)],
    "run_id": Annotated[str, Meta(max_length=256)],
    "model": Annotated[str, Meta(max_length=MAX_NAME_CHARS)],
    "device": Annotated[str, Meta(max_length=MAX_NAME_CHARS)],
    "param_names": Annotated[list[Name], Meta(max_length=MAX_NAMES)],
    "every": Annotated[int, Meta(ge=1, le=MAX_STEP)],
    "rank": Annotated[int, Meta(ge=0, le=2 ** 31)] | None,   # None: not under ranks
    "world_size": Annotated[int, Meta(ge=1, le=2 ** 31)],
    "amp": bool,
    "started": float,
    "finished": float,
    "steps": Annotated[int, Meta(ge=0, le=MAX_STEP)],
    "writer": Writer,
    "ended": Ended,
    "recording_stopped": Stopped,
    # report.json's head
    "config": dict[str, Any],
    "sampled": list[dict[str, Any]],
    "model_file": dict[str, Any],
    "events": list[EventLine],
}

_NESTED = (Writer, Ended, Stopped)


def header_fields(data: Any, marker: str = "gradviz_report") -> tuple[dict, list[str]]:
    """(the header's known fields, each as checked; one "FIELD: what is wrong" per field
    left out). RecordError where it is not a gradviz header at all: not an object, or
    without its marker."""
    if not isinstance(data, dict):
        raise RecordError(f"not a JSON object but {_json_kind(data)}")
    if marker not in data:
        raise RecordError(f"not a gradviz file (no {marker!r} key)")
    header, wrong = {}, []
    for key, kind in HEADER_FIELDS.items():
        if key not in data:
            continue
        try:
            value = msgspec.convert(data[key], type=kind)
        except msgspec.ValidationError as exc:
            wrong.append(_field_words(exc, key))
            continue
        if isinstance(value, _NESTED):   # as written: a field not given stays absent
            value = {k: v for k, v in msgspec.structs.asdict(value).items()
                     if v is not None}
        elif key == "events":
            value = [msgspec.structs.asdict(e) for e in value]
        header[key] = value
    return header, wrong


def _json_kind(data: Any) -> str:
    return {list: "an array", str: "a string", bool: "true or false", type(None): "null",
            int: "a number", float: "a number"}.get(type(data), "something else")


_AT = re.compile(r"^(.*?)(?: - at (`key` in )?`\$(.*)`)?$", re.S)
_MISSING = re.compile(r"Object missing required field (\w+)$")
_OURS = re.compile(r"([a-z_]+): (.+)$", re.S)


def _field_words(exc: Exception, prefix: str = "") -> str:
    """msgspec's "Expected `int`, got `str` - at `$.losses[...]`" as "losses[...]:
    expected int, got str" (its words hold no text of the file's: a stranger's bytes
    never reach the line)."""
    match = _AT.match(str(exc))
    words, where = (match.group(1), match.group(3) or "") if match else (str(exc), "")
    if match and match.group(2):   # a dict's key, not its value
        where += " (a name)"
    words = words.replace("`", "")
    missing = _MISSING.match(words)
    if missing:
        words, where = "missing", f"{where}.{missing.group(1)}"
    words = words[:1].lower() + words[1:]
    field = (prefix + where).lstrip(".")
    ours = _OURS.match(words)   # a check of ours, in a record inside: "edges: an edge..."
    if ours and field:
        return f"{field}.{ours.group(1)}: {ours.group(2)}"
    return f"{field}: {words}" if field else words


def decode_error(exc: Exception) -> RecordError:
    """Any failure to decode a record, as one RecordError."""
    if isinstance(exc, RecursionError):
        return RecordError("nested too deeply")
    if isinstance(exc, msgspec.ValidationError):
        return RecordError(_field_words(exc))
    words = str(exc).replace("`", "")
    return RecordError("not JSON" + (f" ({words[:120]})" if words else ""))


_STEP = msgspec.json.Decoder(StepLine)
_GRAPH = msgspec.json.Decoder(GraphEntry)
_ANY = msgspec.json.Decoder()


def decode_step(line: bytes) -> StepLine:
    """A step line, checked; RecordError naming the first wrong field."""
    try:
        step = _STEP.decode(line)
    except (msgspec.DecodeError, RecursionError) as exc:
        raise decode_error(exc) from None
    if step.cosine is not None:
        _check_cosine(step)
    return step


def _check_cosine(step: StepLine) -> None:
    # what a field's type cannot say, checked once decoded (on the sampled steps only:
    # a __post_init__ would cost every line a call)
    cosine = step.cosine
    if cosine is not None and (len(cosine) != len(step.losses) or any(
            len(row) != len(cosine) for row in cosine)):
        raise RecordError("cosine: not a matrix of one row and column per loss")


def convert_step(data: Any) -> StepLine:
    """A step already parsed (a report.json read whole), checked as decode_step does."""
    try:
        step = msgspec.convert(data, type=StepLine)
    except (msgspec.ValidationError, RecursionError) as exc:
        raise decode_error(exc) from None
    _check_cosine(step)
    return step


def decode_graph(line: bytes) -> GraphEntry:
    try:
        return _GRAPH.decode(line)
    except (msgspec.DecodeError, RecursionError) as exc:
        raise decode_error(exc) from None


def decode_json(text: bytes) -> Any:
    """A JSON document of any shape (a header, a report's head), for header_fields."""
    try:
        return _ANY.decode(text)
    except (msgspec.DecodeError, RecursionError) as exc:
        raise decode_error(exc) from None
