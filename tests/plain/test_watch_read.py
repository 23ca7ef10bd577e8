"""Following a watched stream: only complete lines, only what is new, a replaced run
starts over; run folders of ranks and `gradviz run --out` reports read alike."""
from __future__ import annotations

import json
import os

import pytest

from gradviz.plain.records.records import StepRecord
from gradviz.plain.run_files.watch_read import (
    FolderFollower,
    RunFolderError,
    StreamReader,
    stream_folders,
)
from gradviz.plain.run_files.watch_stream import STEPS, StepLines, StreamWriter


def _record(step: int) -> StepRecord:
    return StepRecord(step=step, losses={"a": 1.0 + step, "b": 2.0}, total=3.0 + step,
                      grad_norms={"w": 0.5, "v": None}, global_grad_norm=0.5)


def _writer(folder, **header) -> StreamWriter:
    return StreamWriter(folder, {"param_names": ["w", "v"], **header}).open()


def test_only_complete_new_lines_are_read(tmp_path):
    writer = _writer(tmp_path)
    reader = StreamReader(tmp_path)
    writer.add_step(_record(0), 1)
    assert [r.step for r in reader.read()] == [0]
    assert reader.read() == []
    line = (tmp_path / STEPS).read_bytes()
    with open(tmp_path / STEPS, "ab") as f:   # a line cut by a kill, mid-write
        f.write(line.replace(b'"step": 0', b'"step": 1')[:20])
    assert reader.read() == []
    with open(tmp_path / STEPS, "ab") as f:
        f.write(line.replace(b'"step": 0', b'"step": 1')[20:])
    (got,) = reader.read()
    assert got.step == 1 and got.grad_norms == {"w": 0.5, "v": None}
    assert reader.micro_batches == {1: 2} and not reader.finished   # calls: steps
    writer.close(2)
    reader.read()
    assert reader.finished


def test_a_new_run_in_the_folder_starts_over(tmp_path):
    first = _writer(tmp_path)
    for step in range(3):
        first.add_step(_record(step), 2)
    first.close(3)
    follower = FolderFollower(tmp_path)
    assert follower.read() == 3 and len(follower.histories[""]) == 3
    second = _writer(tmp_path)
    second.add_step(_record(0), 1)
    assert follower.read() == 1
    assert follower.readers[""].restarted and len(follower.histories[""]) == 1


def test_ranks_and_reports_are_found(tmp_path):
    for rank in (1, 0):
        _writer(tmp_path / f"rank-{rank}", rank=rank, world_size=2).add_step(_record(0), 1)
    assert list(stream_folders(tmp_path)) == ["rank-0", "rank-1"]
    report = tmp_path / "run"
    report.mkdir()
    with pytest.raises(RunFolderError, match="no gradviz run"):
        stream_folders(report)
    (report / "report.json").write_text(json.dumps(
        {"gradviz_report": 1, "config": {}, "steps": [_record(0).to_dict()], "events": []}))
    follower = FolderFollower(report)
    assert follower.read() == 1 and follower.read() == 0
    assert follower.readers[""].finished


def test_a_step_line_is_the_report_step_plus_micro_batches():
    lines = StepLines()
    for record in (_record(3), StepRecord(step=1, losses={"a": float("nan"), "b": 1},
                                          total=float("inf"), grad_norms=None)):
        for _ in range(2):   # the keys' cache used the second time
            data = json.loads(lines(record, 4))
            assert data.pop("micro_batches") == 4
            assert data == json.loads(json.dumps(record.to_dict(), allow_nan=False))


@pytest.mark.parametrize("record", [
    StepRecord(5, {"a": 0.25, "b%s \"q\"": 1e-300}, 1.25, {"w": 0.5, "%d": 2.0}, 2.0615528),
    StepRecord(6, {"a": 0.25}, 0.25, {"w": None, "v": 1.0}, 1.0),         # no .grad
    StepRecord(7, {"a": float("nan")}, float("nan"), {"w": 1.0}, 1.0),  # NaN: null
    StepRecord(8, {"a": 1}, 1, {"w": 1.0}, 1.0),                          # an int loss
    StepRecord(9, {"a": 0.5}, 0.5, {"w": 1.0}, 1.0, saved_bytes=10),     # a sampled field
])
def test_an_unsampled_step_line_is_the_report_step_text_exactly(record):
    """The template for the usual (unsampled) step writes the same characters as the
    general path: StepRecord.to_json plus micro_batches."""
    lines = StepLines()
    for calls in (1, 3):
        assert lines(record, calls) == record.to_json()[:-1] + f', "micro_batches": {calls}}}\n'


class _Shown(float):
    """A float subclass whose str is not its value's: never put into a line by str."""

    def __str__(self) -> str:
        return "shown"

    __repr__ = __str__


@pytest.mark.parametrize(("losses", "norms"), [
    ({"a": 0.10000000149011612, "b%s \"q\"": 1e-300}, {"w": 0.5, "%d": 2.0}),
    ({"a": float("nan")}, {"w": 1.0}),        # NaN: null, by the record's own path
    ({"a": 1.5}, {"w": float("inf")}),        # an infinite norm: null
    ({"a": 1}, {"w": 1.0}),                    # an int loss: written as json writes one
    ({"a": -0.0}, {"w": 3.4028234663852886e38, "v": 1.401298464324817e-45}),
    ({"a": _Shown(0.5)}, {"w": 1.0}),         # a float of its own str: json's text
    ({"a": 1.0}, {"w": 1e200, "v": 2.0}),     # its square overflows: the global norm inf
])
def test_a_step_given_as_numbers_is_its_record_s_line_exactly(losses, norms):
    """StreamWriter.add_numbers's line (a block of them, formatted at once) is the line of
    the record those numbers make: StepRecord.to_json plus micro_batches."""
    lines = StepLines()
    key = lines.numbers_key(list(losses), list(norms))
    assert key is not None
    total = sum(losses.values())
    glob = sum(n * n for n in norms.values()) ** 0.5
    record = StepRecord(4, losses, total, norms, glob)
    want = record.to_json()[:-1] + ', "micro_batches": 1}\n'
    numbers = [*losses.values(), *norms.values()]
    assert lines.numbers_line(key, 4, numbers, total, glob, 1) == want
    assert lines.block([want, (key, 4, numbers, total, glob, 1)] * 2) == want * 4
    assert json.loads(want)["losses"] == json.loads(json.dumps(
        {k: None if v != v else v for k, v in losses.items()}))


@pytest.mark.parametrize(("losses", "cosine"), [
    ({"a": 0.5, "b%s": 0.25}, [[1.0, -0.125], [-0.125, 0.9999999999999999]]),
    ({"a": 0.5, "b%s": 0.25}, [[1.0, float("nan")], [float("nan"), float("nan")]]),  # a zero push
    ({"a": float("nan"), "b%s": 0.25}, [[1.0, 0.5], [0.5, 1.0]]),   # NaN: the record's path
])
def test_a_sampled_step_given_as_numbers_is_its_record_s_line_exactly(losses, cosine):
    """A sampled step's line by the template, its sampled fields' text put in, is the
    line of the record with those fields, character for character, in both ways of
    writing."""
    lines = StepLines()
    norms = {"w": 0.5, "v": 2.0}
    key = lines.numbers_key(list(losses), list(norms))
    assert key is not None
    total, glob = sum(losses.values()), (0.5 ** 2 + 2.0 ** 2) ** 0.5
    record = StepRecord(20, losses, total, norms, glob, junction_grad_norms=dict(
        zip(losses, [0.75, 0.0])), cosine=cosine, saved_bytes=4096, saved_bytes_peak=8192,
        saved_tensor_bytes=1024, saved_tensor_bytes_peak=2048, graph_nodes=40)
    want = record.to_json()[:-1] + ', "micro_batches": 1, "wall_time": 1.5}\n'
    numbers = [*losses.values(), *norms.values()]
    args = (key, 20, numbers, total, glob, 1, 1.5, record.sampled_json())
    assert lines.numbers_line(*args) == want
    assert lines.block([args, want]) == want * 2
    assert json.loads(want)["saved_bytes_peak"] == 8192


def test_numbers_need_string_names():
    assert StepLines().numbers_key(["a", 3], ["w"]) is None   # type: ignore[list-item]


def test_writer_in_blocks_writes_each_step_once_in_order(tmp_path):
    """Steps added as records and as numbers, written a block at a time by the writer's
    thread and at close: each line once, in the order added, read back as the records."""
    writer = StreamWriter(tmp_path, {"param_names": ["w", "v"]}, every_s=0.001).open()
    key = writer.numbers_key(["a", "b"], ["w", "v"])
    assert key is not None
    expected = []
    for step in range(300):
        losses, norms = {"a": 1.0 + step, "b": 0.5}, {"w": 0.25 * step, "v": 2.0}
        record = StepRecord(step, losses, sum(losses.values()), norms,
                            sum(n * n for n in norms.values()) ** 0.5)
        if step % 7:
            writer.add_numbers(key, step, [*losses.values(), *norms.values()],
                               record.total, record.global_grad_norm, 1)
        else:
            writer.add_step(record, 1)
        expected.append(record)
    writer.close(300)
    reader = StreamReader(tmp_path)
    assert reader.read() == expected and reader.finished


def test_a_steps_file_replaced_by_a_rename_is_read_again_from_its_start(tmp_path):
    """rsync puts a new copy in place by a rename: a new inode, read from its start."""
    writer = _writer(tmp_path)
    for step in range(3):
        writer.add_step(_record(step), 1)
    follower = FolderFollower(tmp_path)
    assert follower.read() == 3
    first = follower.histories[""]
    copy = tmp_path / "copy"
    copy.write_bytes((tmp_path / STEPS).read_bytes().split(b"\n", 1)[1])   # steps 1, 2
    os.replace(copy, tmp_path / STEPS)
    assert follower.read() == 2 and follower.readers[""].restarted
    history = follower.histories[""]
    assert history is not first and list(history.column("step")) == [1, 2]
    assert follower.notes() == []
