"""A recorded run as its window reads it: the stream shown, live as lines are appended
(a half-written last line waits), a folder that is no run in one line, a folder of
runs, ranks side by side and whether they agree, the recorded graph."""
from __future__ import annotations

import json

import msgspec
import numpy as np

from gradviz.plain.graph.graph_data import LOSS, PARAM, GraphData, GraphEdge, GraphNode, ModuleCall
from gradviz.plain.records.records import StepRecord
from gradviz.plain.run_files.folder_records import GraphLine
from gradviz.plain.run_files.watch_stream import STEPS, StreamWriter
from gradviz.plain.runs.recorded_run import RecordedRun, runs_below


def graph_from_dict(data) -> GraphData:
    """The GraphData whose to_dict() gave data, decoded as a graph's line is."""
    return msgspec.convert(data, type=GraphLine).graph()


def _record(step: int, w: float = 0.5, a: float = 1.0) -> StepRecord:
    return StepRecord(step=step, losses={"a": a + step, "b": 2.0}, total=a + step + 2.0,
                      grad_norms={"w": w, "v": None}, global_grad_norm=w)


def _writer(folder, **header) -> StreamWriter:
    return StreamWriter(folder, {"param_names": ["w", "v"], "model": "Net",
                                 **header}).open()


def test_steps_appear_as_they_are_written_and_a_cut_line_waits(tmp_path):
    writer = _writer(tmp_path)
    run = RecordedRun(tmp_path)
    first = run.poll()
    assert first.problem is None and first.new_steps == 0 and run.history is None
    assert run.status() == f"{tmp_path}: Net, no finished step yet; following the folder"
    writer.add_step(_record(0), 1)
    polled = run.poll()
    assert polled.new_steps == 1 and polled.fresh
    assert run.history is not None and list(run.history.column("step")) == [0]
    line = (tmp_path / STEPS).read_bytes().replace(b'"step": 0', b'"step": 1')
    with open(tmp_path / STEPS, "ab") as f:
        f.write(line[:25])
    assert run.poll().new_steps == 0 and len(run.history) == 1
    with open(tmp_path / STEPS, "ab") as f:
        f.write(line[25:])
    polled = run.poll()
    assert polled.new_steps == 1 and not polled.fresh
    assert list(run.history.column("losses")[:, 0]) == [1.0, 1.0]   # the bytes as written
    assert run.status().endswith("2 steps (0 to 1); following the folder as the "
                                 "script writes it")
    writer.close(2)
    run.poll()
    assert run.status() == f"{tmp_path}: Net, 2 steps (0 to 1); finished"


def test_a_folder_that_is_no_run_is_one_line_until_a_run_appears(tmp_path):
    (tmp_path / "notes.txt").write_text("hello")
    run = RecordedRun(tmp_path)
    polled = run.poll()
    assert polled.problem is not None and "\n" not in polled.problem
    assert "no gradviz run in it" in polled.problem and run.status() == polled.problem
    writer = _writer(tmp_path)
    writer.add_step(_record(0), 1)
    polled = run.poll()
    assert polled.problem is None and polled.new_steps == 1


def test_a_broken_line_is_one_note_and_the_rest_is_read(tmp_path):
    writer = _writer(tmp_path)
    with open(tmp_path / STEPS, "a") as f:
        f.write("{not json\n")
    writer.add_step(_record(0), 1)
    run = RecordedRun(tmp_path)
    polled = run.poll()
    assert polled.problem is None and polled.new_steps == 1 and polled.notes == 1
    (note,) = run.notes()
    assert note.startswith(f"{tmp_path / STEPS}:1: not JSON") and "\n" not in note
    assert run.status() == (f"{tmp_path}: Net, 1 step (0 to 0); following the folder as "
                            "the script writes it; 1 line about what was skipped")


def test_a_folder_of_runs_lists_them(tmp_path):
    for name in ("b-run", "a-run"):
        _writer(tmp_path / name).add_step(_record(0), 1)
    (tmp_path / "empty").mkdir()
    assert [p.name for p in runs_below(tmp_path)] == ["a-run", "b-run"]
    assert runs_below(tmp_path / "a-run") == []   # a run itself lists nothing


def _ranks(tmp_path, w_other: list[float], a_other: float = 1.0) -> RecordedRun:
    zero, one = _writer(tmp_path / "rank-0"), _writer(tmp_path / "rank-1")
    for step, w in enumerate(w_other):
        zero.add_step(_record(step), 1)
        one.add_step(_record(step, w=w, a=a_other), 1)
    run = RecordedRun(tmp_path)
    run.poll()
    return run


def test_ranks_side_by_side_agree_with_different_losses(tmp_path):
    run = _ranks(tmp_path, [0.5, 0.5], a_other=3.0)
    assert run.streams == ["rank-0", "rank-1"] and run.shown == "rank-0"
    assert run.rank_lines() == [
        "rank-0: step 1: a 2, b 2 (total 4); global grad norm 0.5; still being written",
        "rank-1: step 1: a 4, b 2 (total 6); global grad norm 0.5; still being written",
        "ranks agree: equal gradient norms at all 2 steps they share (norms only: no "
        "gradient fingerprints recorded)",
        "losses: different per rank at 2 of 2 steps (as they are when each rank reads "
        "its own batch)"]
    run.show("rank-1")
    polled = run.poll()
    assert polled.fresh and run.history is not None
    assert list(run.history.column("losses")[:, 0]) == [3.0, 4.0]


def test_ranks_whose_gradient_norms_differ_are_named(tmp_path):
    run = _ranks(tmp_path, [0.5, 0.75])
    lines = run.rank_lines()
    assert lines[2] == ("ranks disagree: step 1, w: gradient norm rank-0 0.5, rank-1 0.75 "
                        "(after DDP's all-reduce every rank's gradient would be the same)")
    assert lines[3] == "losses: equal on every rank at all 2 steps they share"


def test_the_recorded_graph_comes_back_as_drawn(tmp_path):
    graph = GraphData(nodes=[GraphNode("p", PARAM, "w", shape=(3, 2), heads_reaching=(0,)),
                             GraphNode("l", LOSS, "a loss")],
                      edges=[GraphEdge("l", "p")],
                      modules=[ModuleCall("trunk.0", "trunk.0", "Linear", out_shape=(8, 3))])
    back = graph_from_dict(json.loads(json.dumps(graph.to_dict())))
    assert back == graph and back.structure_key() == graph.structure_key()
    writer = _writer(tmp_path)
    writer.add_graph(0, graph.to_dict())
    writer.add_step(_record(0), 1)
    run = RecordedRun(tmp_path)
    polled = run.poll()
    assert polled.graph == graph and run.graph_step == 0
    assert run.poll().graph is None   # handed out once


def test_a_run_out_report_opens_the_same_way(tmp_path):
    steps = [_record(s).to_dict() for s in range(3)]
    (tmp_path / "report.json").write_text(json.dumps(
        {"gradviz_report": 1, "config": {}, "steps": steps}))
    run = RecordedRun(tmp_path)
    polled = run.poll()
    assert polled.new_steps == 3 and run.history is not None
    assert np.array_equal(run.history.column("total"), [3.0, 4.0, 5.0])
    assert run.status() == f"{tmp_path}: 3 steps (0 to 2); finished"


def test_a_stream_whose_script_is_gone_says_it_stopped(tmp_path):
    import socket
    import subprocess
    import sys
    child = subprocess.Popen([sys.executable, "-c", "pass"])   # a process that ended
    child.wait(timeout=60)
    writer = _writer(tmp_path, writer={"host": socket.gethostname(), "pid": child.pid})
    run = RecordedRun(tmp_path)
    run.poll()
    assert run.status() == (f"{tmp_path}: Net, no finished step yet; its script stopped "
                            "without finishing (its process is gone)")
    writer.add_step(_record(0), 1)
    run.poll()
    assert run.status() == (f"{tmp_path}: Net, 1 step (0 to 0); its script stopped "
                            "without finishing (its process is gone)")
    writer.close(1)   # (a header that says finished is finished, whoever wrote it)
    run.poll()
    assert run.status() == f"{tmp_path}: Net, 1 step (0 to 0); finished"
