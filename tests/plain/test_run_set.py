"""The ticked runs followed: each read as its script writes it, the shown run taken as
it is (not read twice), a run unticked forgotten, each run's turn within a poll's time,
and a run that cannot be read said and tried again."""
from __future__ import annotations

from gradviz.plain.records.records import StepRecord
from gradviz.plain.run_files.watch_stream import StreamWriter
from gradviz.plain.runs.recorded_run import RecordedRun
from gradviz.plain.runs.run_set import RunSet


def _write(folder, steps: int) -> StreamWriter:
    writer = StreamWriter(folder, {"param_names": ["w"], "started": 5.0}).open()
    for s in range(steps):
        writer.add_step(StepRecord(step=s, losses={"a": 1.0}, total=1.0), 1)
    return writer


def test_the_ticked_runs_are_followed_and_the_shown_one_not_read_twice(tmp_path):
    a = _write(tmp_path / "a", 2)
    _write(tmp_path / "b", 3)
    shown = RecordedRun(tmp_path / "a")
    runs = RunSet(tmp_path)
    runs.follow(["a", "b"], shown)
    assert runs.runs["a"] is shown
    assert runs.poll() == 3                         # b's; a is its source's to read
    assert runs.histories()["a"] is None and len(runs.histories()["b"]) == 3
    shown.poll()
    a.add_step(StepRecord(step=2, losses={"a": 1.0}, total=1.0), 1)
    shown.poll()
    assert len(runs.histories()["a"]) == 3 and runs.started("b") == 5.0
    b = runs.runs["b"]
    runs.follow(["b"])
    assert list(runs.runs) == ["b"] and runs.runs["b"] is b   # kept, not read again


def test_each_run_gets_its_turn_within_a_poll_s_time(tmp_path):
    for name in "abc":
        _write(tmp_path / name, 1)
    runs = RunSet(tmp_path)
    runs.follow(["a", "b", "c"])
    # no time at all: one run a poll, each in turn
    assert [runs.poll(budget_s=-1.0) for _ in range(4)] == [1, 1, 1, 0]
    assert all(len(h) == 1 for h in runs.histories().values())


def test_a_run_that_cannot_be_read_is_said_and_tried_again(tmp_path, monkeypatch):
    _write(tmp_path / "a", 1)
    runs = RunSet(tmp_path)
    runs.follow(["a"])
    run = runs.runs["a"]
    real = run.poll

    def broken():
        raise UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")
    monkeypatch.setattr(run, "poll", broken)
    runs.poll()
    assert runs.faults["a"].startswith("Could not read a: UnicodeDecodeError")
    monkeypatch.setattr(run, "poll", real)
    assert runs.poll() == 1 and runs.faults == {}   # read at the next look: said no more


def test_a_run_unticked_lately_is_kept_as_read(tmp_path):
    for name in "abcdefg":
        _write(tmp_path / name, 2)
    runs = RunSet(tmp_path)
    runs.follow(list("abcdefg"))
    while runs.poll():
        pass
    a, g = runs.runs["a"], runs.runs["g"]
    runs.follow(list("bcdefg"))
    runs.follow(list("abcdefg"))
    assert runs.runs["a"] is a and runs.poll() == 0   # ticked again: not read again
    runs.follow([])   # more unticked than are kept: the first ones forgotten
    runs.follow(["a", "g"])
    assert runs.runs["a"] is not a and runs.runs["g"] is g   # the newest kept
