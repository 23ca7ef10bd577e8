"""plain.watch.watch_recording, in this process: a recording claims its folder and opens its
stream, says where it moved and why, says (never raises) what it cannot write, stops
recording on a failed write with the header saying after which step, and at its end
writes the table and gives its lock back, whatever happened."""
import errno
import json
import shutil

from gradviz.plain.records.records import StepRecord
from gradviz.plain.run_files.watch_stream import HEADER, STEPS
from gradviz.plain.watch.watch_claim import LOCK
from gradviz.plain.watch.watch_recording import Recording

HEADER_FIELDS = {"model": "Net", "param_names": ["w"], "every": 20, "rank": None}


def _recording(out, overwrite=False):
    said: list[tuple[str, str]] = []
    rec = Recording(out, None, HEADER_FIELDS, 0.0, overwrite,
                    lambda kind, line: said.append((kind, line)))
    return rec, said


def _header(folder) -> dict:
    return json.loads((folder / HEADER).read_text())


def _step(rec, n: int) -> None:
    rec.writer.add_step(StepRecord(step=n, losses={"a": 1.0}, total=1.0,
                                   grad_norms={"w": 2.0}, global_grad_norm=2.0), 1)


def test_a_free_folder_is_recorded_and_its_end_writes_the_table_and_frees_the_lock(tmp_path):
    out = tmp_path / "exp1"
    rec, said = _recording(out)
    assert said == [] and rec.writer is not None
    assert (rec.out, rec.folder) == (out, out) and (out / LOCK).exists()
    _step(rec, 0)
    rec.end(1, {"how": "finished"})
    assert rec.writer is None and not (out / LOCK).exists()
    assert _header(out)["steps"] == 1 and _header(out)["ended"] == {"how": "finished"}
    assert (out / "metrics.csv").read_text().count("\n") == 2   # its row and the names


def test_a_run_already_there_moves_the_recording_and_says_where(tmp_path):
    out = tmp_path / "exp1"
    out.mkdir()
    (out / "report.json").write_text("{}")
    rec, said = _recording(out)
    assert (rec.out, rec.folder) == (tmp_path / "exp1-1",) * 2
    assert [kind for kind, _ in said] == ["moved"]
    assert f"this run is written to {tmp_path / 'exp1-1'} instead" in said[0][1]
    rec.end(0, {"how": "finished"})


def test_a_folder_it_cannot_write_is_said_and_nothing_is_left_locked(tmp_path):
    out = tmp_path / "exp1"
    out.mkdir()
    (out / STEPS).mkdir()   # the stream's file cannot be opened (a folder in its place)
    rec, said = _recording(out, overwrite=True)
    assert rec.writer is None and [kind for kind, _ in said] == ["open"]
    assert said[0][1].startswith(f"cannot write the run folder {out} (")
    assert not (out / LOCK).exists()
    rec.end(0, {"how": "finished"})   # nothing to end: nothing said, nothing raised
    assert len(said) == 1


def test_a_failed_write_stops_recording_and_the_header_says_after_which_step(tmp_path):
    out = tmp_path / "exp1"
    rec, said = _recording(out)
    _step(rec, 0)
    rec.failed(OSError(errno.ENOSPC, "No space left on device"), 1)
    assert rec.writer is None and [kind for kind, _ in said] == ["disk"]
    assert "recording stopped after step 0" in said[0][1]
    assert _header(out)["recording_stopped"]["steps"] == 1
    rec.flush(1)      # nothing is written any more: nothing said, nothing raised
    rec.end(1, {"how": "exception", "what": "ValueError"})
    header = _header(out)   # the stopped stream's header still says how the run ended
    assert header["ended"] == {"how": "exception", "what": "ValueError"}
    assert not (out / LOCK).exists() and len(said) == 1


def test_a_folder_removed_before_the_end_is_said_and_nothing_raises(tmp_path):
    out = tmp_path / "exp1"
    rec, said = _recording(out)
    _step(rec, 0)
    shutil.rmtree(out)
    rec.end(1, {"how": "finished"})
    assert [kind for kind, _ in said] == ["removed"] and "at the end" in said[0][1]
    assert rec.writer is None


def test_a_stream_that_fails_at_its_end_says_so_in_its_header(tmp_path):
    out = tmp_path / "exp1"
    rec, said = _recording(out)
    _step(rec, 0)
    (out / STEPS).unlink()    # the table cannot be made from it
    rec.end(1, {"how": "finished"})
    assert [kind for kind, _ in said] == ["removed"] and "at the end" in said[0][1]
    assert _header(out)["recording_stopped"]["steps"] == 1
    assert not (out / LOCK).exists()


class _FullDisk:
    def flush(self):
        raise OSError(errno.ENOSPC, "No space left on device")

    def abandon(self, steps, why):
        self.abandoned = (steps, why)

    def close(self, steps, ended):
        self.closed = (steps, ended)


def test_a_flush_that_fails_stops_recording_in_one_line(tmp_path):
    rec, said = _recording(tmp_path / "exp1")
    real, full = rec.writer, _FullDisk()
    rec.writer = full
    rec.flush(7)
    assert rec.writer is None and [kind for kind, _ in said] == ["disk"]
    assert "after step 6" in said[0][1] and full.abandoned[0] == 7
    real.close(7)
    rec.end(7, {"how": "finished"})   # the stopped stream's header says how it ended
    assert full.closed == (7, {"how": "finished"})
