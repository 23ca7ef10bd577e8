"""The report's fast formatting writes exactly what json.dumps and csv.writer write."""
from __future__ import annotations

import csv
import dataclasses
import io
import json
import math

import pytest

from gradviz.core.session import Session
from gradviz.plain.config.config import Config
from gradviz.plain.records.events import Event
from gradviz.plain.records.records import BackwardRecord, StepRecord
from gradviz.plain.run_files.report import ReportWriter, _FastRows, _row

BASE = Config(device="cpu", heads=3, trunk_width=16, trunk_depth=2, batch_size=32)


def _reference(record: StepRecord, config: Config, params: list[str]) -> tuple[str, str]:
    out = io.StringIO(newline="")
    csv.writer(out).writerow(["" if v is None else v for v in _row(record, config, params)])
    return json.dumps(record.to_dict(), allow_nan=False), out.getvalue()


def _session_records(changes: dict, steps: int = 3):
    s = Session(BASE.replace(**changes))
    records = []
    for _ in range(steps):
        record = s.step()
        if record is None:
            break
        records.append(record)
    return s, records


@pytest.mark.parametrize("changes", [
    {}, {"probes": "none"}, {"probes": "all"}, {"sample_every": 2},
    {"detach": (0, 1, 2)},                 # junction norms 0, cosines NaN
    {"retain_grad": True, "strategy": "separate"}, {"accumulate": 2},
    {"keep_graphs": True, "strategy": "in-loop", "retain_graph": "always"},
])
def test_session_records_format_as_json_and_csv_do(changes):
    s, records = _session_records(changes)
    fast = _FastRows(s.config.head_names(), s.param_names)
    assert records
    for record in records:
        expected = _reference(record, s.config, s.param_names)
        assert record.to_json() == expected[0]
        assert fast.rows(record) == expected


def _odd_records():
    nan, inf = float("nan"), float("inf")
    losses = {"head0": 1.5, "head1": nan, "head2": -inf}
    event = Event(step=3, phase="backward", call="x", type="RuntimeError", title="t \"q\" é",
                  message="m\nn", explanation="e", hint="h")
    yield StepRecord(3, losses, inf, {"a.weight": 0.0, "a.bias": 1e-300},
                     global_grad_norm=nan, junction_grad_norms={"head0": 1.0, "head1": 2.0,
                                                                "head2": inf},
                     cosine=[[1.0, nan], [-0.0, 5e-324]], saved_bytes=0,
                     saved_bytes_peak=12, saved_tensor_bytes=0, saved_tensor_bytes_peak=8,
                     graph_nodes=7, z_grad_norm=inf,
                     backward_calls=[BackwardRecord(0, "total", True),
                                     BackwardRecord(1, "héad \"1\"", False)],
                     events=[event])
    yield StepRecord(0, {"head2": 1.0, "head0": 2.0, "head1": 3.0}, 1.0)    # other order
    yield StepRecord(0, {"head0": 1, "head1": True, "head2": 2.0}, 1)       # int, bool
    yield StepRecord(1, dict(losses), 2.0, {"a.bias": 1.0, "a.weight": 2.0})  # param order
    yield StepRecord(1, dict(losses), 2.0, {"a.weight": 1.0}, 1.0)            # one missing
    yield StepRecord(1, dict(losses), 2.0, junction_grad_norms={"head0": 1.0},
                     cosine=[[1.0]], backward_calls=[BackwardRecord(True, "x", 1)])
    yield StepRecord(2, dict(losses), 2.0, {"a.weight": None, "a.bias": 1.0}, None)
    yield StepRecord(2, dict(losses), 0.0, {}, junction_grad_norms={}, cosine=[])


@pytest.mark.parametrize("record", list(_odd_records()))
def test_odd_records_format_as_json_and_csv_do(record, tmp_path):
    config, params = BASE, ["a.weight", "a.bias"]
    expected = _reference(record, config, params)
    assert record.to_json() == expected[0]
    fast = _FastRows(config.head_names(), params).rows(record)
    assert fast is None or fast == expected
    with ReportWriter(tmp_path, config, "cpu", params) as report:
        report.add(record)
        report.add(record)
        report.finish([])
    written = json.loads((tmp_path / "report.json").read_text())["steps"]
    assert written == [json.loads(expected[0])] * 2
    lines = (tmp_path / "metrics.csv").read_text().splitlines(keepends=True)
    assert lines[1:] == [expected[1].replace("\r\n", "\n")] * 2 or \
        (tmp_path / "metrics.csv").read_bytes().endswith(expected[1].encode() * 2)


def test_the_usual_record_takes_the_fast_path():
    s, records = _session_records({})
    assert _FastRows(s.config.head_names(), s.param_names).rows(records[-1]) is not None
    assert all(math.isfinite(v) for v in records[-1].losses.values())


def test_a_long_run_is_written_whole_in_order_across_the_formatting_batches(tmp_path):
    """Steps are formatted a batch at a time: a run longer than two batches, odd
    records on the batches' edges, reads back as every step, in order, as json.dumps and
    csv.writer would have written each."""
    from gradviz.plain.run_files.report import FORMAT_BATCH
    config, params = BASE, ["a.weight", "a.bias"]
    odd = list(_odd_records())
    records = []
    for step in range(2 * FORMAT_BATCH + 3):
        usual = StepRecord(step, {"head0": step / 7, "head1": 0.5, "head2": 1e-9 * step},
                           step * 0.25, {"a.weight": 1.0 / (step + 1), "a.bias": 2.0})
        records.append(odd[step % len(odd)] if step in
                       (0, FORMAT_BATCH - 1, FORMAT_BATCH, 2 * FORMAT_BATCH + 2) else usual)
    with ReportWriter(tmp_path, config, "cpu", params) as report:
        for record in records:
            report.add(record)
        report.finish([])
    expected = [_reference(r, config, params) for r in records]
    written = json.loads((tmp_path / "report.json").read_text())["steps"]
    assert json.dumps(written) == json.dumps([json.loads(e[0]) for e in expected])
    csv_text = (tmp_path / "metrics.csv").read_bytes().decode()
    assert csv_text.split("\r\n", 1)[1] == "".join(e[1] for e in expected)


def test_a_ddp_run_has_an_all_reduces_column_and_others_have_none(tmp_path):
    """metrics.csv ends with all_reduces where the run has DDP ranks (the count each
    record carries, empty where none was counted), and has no such column otherwise."""
    params = ["a.weight", "a.bias"]
    records = [StepRecord(0, {"head0": 1.0, "head1": 2.0, "head2": 3.0}, 6.0,
                          {"a.weight": 1.0, "a.bias": 2.0}, 2.5, all_reduces=4),
               StepRecord(1, {"head0": 1.0, "head1": 2.0, "head2": 3.0}, 6.0,
                          {"a.weight": 1.0, "a.bias": 2.0}, 2.5, all_reduces=None)]
    for ranks, expected in ((2, ["4", ""]), (1, None)):
        config = BASE.replace(ddp_ranks=ranks)
        fast = _FastRows(config.head_names(), params, ranks > 1)
        for record in records:
            assert fast.rows(record) == _reference(record, config, params)
        folder = tmp_path / str(ranks)
        folder.mkdir()
        with ReportWriter(folder, config, "cpu", params) as report:
            for record in records:
                report.add(record)
            report.finish([])
        with open(folder / "metrics.csv", newline="") as f:
            rows = list(csv.DictReader(f))
        assert [r.get("all_reduces") for r in rows] == (expected or [None, None])


@pytest.mark.parametrize("changes, groups", [
    ({"sample_every": 20}, [{"every": 20, "fields": [
        "junction_grad_norms", "cosine", "saved_bytes", "saved_bytes_peak",
        "saved_tensor_bytes", "saved_tensor_bytes_peak", "graph_nodes",
        "update_cosine", "trunk_grad_norm", "trunk_step", "trunk_step_vs_sum",
        "loss_change", "loss_change_trunk", "loss_change_head"]}]),
    ({"sample_every": 2, "keep_graphs": True}, [
        {"every": 2, "fields": ["junction_grad_norms", "cosine"]},
        {"every": 1, "fields": ["saved_bytes", "saved_bytes_peak", "saved_tensor_bytes",
                                "saved_tensor_bytes_peak", "graph_nodes"]},
        {"every": 4, "fields": ["update_cosine", "trunk_grad_norm", "trunk_step",
                                "trunk_step_vs_sum", "loss_change", "loss_change_trunk",
                                "loss_change_head"]}]),
    ({"probes": "none"}, [{"every": None, "fields": [
        "grad_norms", "global_grad_norm", "junction_grad_norms", "cosine", "saved_bytes",
        "saved_bytes_peak", "saved_tensor_bytes", "saved_tensor_bytes_peak", "graph_nodes",
        "update_cosine", "trunk_grad_norm", "trunk_step",
        "trunk_step_vs_sum", "loss_change", "loss_change_trunk", "loss_change_head"]}]),
])
def test_the_header_says_which_steps_carry_the_sampled_fields(changes, groups, tmp_path):
    """The header's "sampled" groups name the steps that hold each sampled field: in a
    session's run, a step carries a group's fields exactly where its index is a multiple
    of the group's every (none where every is null), and holds null there on every
    other step."""
    s = Session(BASE.replace(**changes))
    s.update_cosine_every = 4
    with ReportWriter(tmp_path, s.config, "cpu", s.param_names,
                      update_every=s.update_cosine_every) as report:
        for _ in range(9):
            record = s.step()
            assert record is not None
            report.add(record)
        report.finish([])
    written = json.loads((tmp_path / "report.json").read_text())
    assert written["sampled"] == groups
    for group in groups:
        for step in written["steps"]:
            carried = [step[f] is not None for f in group["fields"]
                       if f not in ("trunk_step_vs_sum",)]
            every = group["every"]
            assert all(carried) if every and step["step"] % every == 0 else not any(carried)


def test_the_unsampled_step_template_writes_what_json_and_csv_write():
    """An unsampled step (the usual one of a sampled run) by its templates, with keys
    that need escaping: the same text as json.dumps and csv.writer; any other record
    is left to the general path."""
    config, params = BASE, ["a.%s", 'b."q"']
    fast = _FastRows(config.head_names(), params)
    losses = {"head0": 0.1, "head1": 2.5e-7, "head2": 3.0}
    calls = [BackwardRecord(0, "total", False)]
    usual = StepRecord(4, dict(losses), 3.1000002, {"a.%s": 0.5, 'b."q"': 1e-12}, 0.5,
                       backward_calls=calls, trunk_walks=1, backward_seconds=0.00025)
    assert fast.unsampled_rows(usual) == _reference(usual, config, params)
    for other in (StepRecord(4, dict(losses), 3.1, {"a.%s": None, 'b."q"': 1.0}, 1.0,
                             trunk_walks=1, backward_seconds=0.1),
                  StepRecord(4, dict(losses), 3.1, {"a.%s": 0.5, 'b."q"': 1.0}, 1.0,
                             trunk_walks=1, backward_seconds=0.1, graph_nodes=3)):
        assert fast.unsampled_rows(other) is None


def test_a_numbers_only_record_is_the_constructors_record():
    losses, norms = {"a": 0.5, "b": 1.25}, {"w": 0.75, "bias": None}
    made = StepRecord(step=7, losses=losses, total=1.75, grad_norms=norms,
                      global_grad_norm=0.75)
    cheap = StepRecord.numbers_only(7, losses, 1.75, norms, 0.75)
    assert cheap == made and cheap.to_json() == made.to_json()
    assert cheap.to_dict() == made.to_dict()
    # every field reads as the constructor leaves it (a field whose default is made
    # per record, as the two lists', has no class-level default to fall back on)
    assert all(getattr(cheap, f.name) == getattr(made, f.name)
               for f in dataclasses.fields(StepRecord))
    cheap.events.append("own")   # the lists are the record's own
    assert StepRecord.numbers_only(8, {}, 0.0, {}, None).events == []
