"""The one decoder of a run folder's records: a step line comes back as the StepRecord
that was written, field for field; a field a record does not know is ignored, a known
one of the wrong type or range is refused naming the field; and nothing at all (random
JSON, random bytes) makes it raise anything but that one-line RecordError."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradviz.plain.records.events import Event
from gradviz.plain.records.records import BackwardRecord, StepRecord
from gradviz.plain.run_files.folder_records import (
    HEADER_FIELDS,
    MAX_NAME_CHARS,
    RecordError,
    StepLine,
    decode_graph,
    decode_json,
    decode_step,
    header_fields,
)
from gradviz.plain.run_files.watch_stream import StepLines

RECORDS = [
    StepRecord(0, {"a": 0.25, "b": 1e-300}, 1.25, {"w": 0.5, "v": None}, 0.5),
    StepRecord(3, {"a": 1.0}, 1.0, None, None, junction_grad_norms={"a": 0.5},
               cosine=[[1.0]], saved_bytes=10, saved_bytes_peak=20, graph_nodes=7,
               z_grad_norm=0.1, update_cosine={"a": -0.5},
               backward_calls=[BackwardRecord(0, "a", True)],
               events=[Event(3, "backward", "backward 1 of 1", "RuntimeError", "m", "t",
                             "e", "h")],
               trunk_walks=2, backward_seconds=0.01, trunk_grad_norm=1.0, trunk_step=0.1,
               trunk_step_vs_sum=0.9, loss_change={"a": -0.1}, loss_change_trunk={"a": 0.0},
               loss_change_head={"a": -0.1}, all_reduces=4),
    StepRecord(9, {"a": 2.0}, 2.0, {"w": 1.0}, 1.0, amp_scale=65536.0, amp_skipped=True,
               grad_fingerprint={"w": [0.25, -0.5], "v": None}),
]


@pytest.mark.parametrize("record", RECORDS)
def test_a_written_step_comes_back_as_its_record(record):
    line = StepLines()(record, 3).encode()
    decoded = decode_step(line)
    assert decoded.micro_batches == 3 and decoded.record() == record


def test_fields_it_does_not_know_are_ignored_known_ones_checked():
    data = json.loads(RECORDS[0].to_json())
    data["from_a_newer_gradviz"] = {"any": ["thing", None]}
    assert decode_step(json.dumps(data).encode()).record() == RECORDS[0]
    for field, value, words in [
            ("losses", [1.0], "losses: expected object, got array"),
            ("grad_norms", {"w": -1.0}, "grad_norms[...]: expected float >= 0.0"),
            ("total", "1", "total: expected float | null, got str"),
            ("step", -1, "step: expected int >= 0"),
            ("step", 1.0, "step: expected int, got float"),
            ("amp_skipped", 1, "amp_skipped: expected bool | null, got int"),
            ("micro_batches", 0, "micro_batches: expected int >= 1"),
            ("losses", {"x" * (MAX_NAME_CHARS + 1): 1.0}, "losses (a name): expected str "
             f"of length <= {MAX_NAME_CHARS}"),
            ("cosine", [[1.0, 0.0]], "cosine: not a matrix of one row and column per loss")]:
        bad = {**data, field: value}
        with pytest.raises(RecordError) as refused:
            decode_step(json.dumps(bad).encode())
        assert str(refused.value) == words


def test_numbers_json_does_not_have_are_refused():
    line = RECORDS[0].to_json()
    for number in ("1e999", "-1e999", "NaN", "Infinity"):
        with pytest.raises(RecordError):
            decode_step(line.replace('"total": 1.25', f'"total": {number}').encode())


def test_a_header_keeps_its_good_fields_and_names_its_wrong_ones():
    header, wrong = header_fields({"gradviz_report": 1, "param_names": 7, "model": "Net",
                                   "writer": {"host": "h", "pid": "9"}, "rank": 0,
                                   "ended": {"how": "exception", "what": "boom"}})
    assert header == {"gradviz_report": 1, "model": "Net", "rank": 0,
                      "ended": {"how": "exception", "what": "boom"}}
    assert wrong == ["param_names: expected array, got int",
                     "writer.pid: expected int, got str"]
    with pytest.raises(RecordError, match="no 'gradviz_report' key"):
        header_fields({"model": "Net"})
    with pytest.raises(RecordError, match="not a JSON object but an array"):
        header_fields([1])


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2 ** 70, 2 ** 70)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20)
# objects with the fields of a step (and a header, a graph), each of any JSON value: the
# checks of each field are reached, not only "expected object"
_FIELDS = sorted({*StepLine.__struct_fields__, *HEADER_FIELDS, "nodes", "edges", "graph",
                  "id", "src", "dst"})
_RECORDISH = st.dictionaries(st.sampled_from(_FIELDS), _JSON, max_size=10)


def _one_line(exc: RecordError) -> None:
    words = str(exc)
    assert words and "\n" not in words and len(words) < 400


def _all_decoders(data: bytes) -> None:
    for decode in (decode_step, decode_graph, lambda d: header_fields(decode_json(d))):
        try:
            decode(data)
        except RecordError as exc:
            _one_line(exc)


@settings(max_examples=300)
@given(_RECORDISH | _JSON)
def test_any_json_is_a_record_or_one_line(value):
    _all_decoders(json.dumps(value).encode())


@settings(max_examples=300)
@given(st.binary(max_size=64) | _RECORDISH.map(lambda v: json.dumps(v).encode()).flatmap(
    lambda text: st.tuples(st.just(text), st.integers(0, len(text)), st.binary(max_size=4))
).map(lambda t: t[0][:t[1]] + t[2] + t[0][t[1] + len(t[2]):]))
def test_any_bytes_are_a_record_or_one_line(data):
    _all_decoders(data)


def test_a_deep_nest_is_one_line():
    for data in (b"[" * 200_000, b'{"step": 0, "x": ' + b"[" * 200_000 + b"}",
                 b'{"gradviz_report": 1, "config": ' + b"[" * 200_000 + b"]" * 200_000 + b"}"):
        _all_decoders(data)
