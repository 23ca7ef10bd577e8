"""The report's fast formatting writes exactly what json.dumps and csv.writer write."""
from __future__ import annotations

import csv
import io
import json
import math

import pytest

from gradviz.core.session import Session
from gradviz.plain.config import Config
from gradviz.plain.events import Event
from gradviz.plain.records import BackwardRecord, StepRecord
from gradviz.plain.report import ReportWriter, _FastRows, _row

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
                     saved_bytes_peak=12, graph_nodes=7, z_grad_norm=inf,
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
    from gradviz.plain.report import FORMAT_BATCH
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
