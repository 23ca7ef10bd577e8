"""plain.watch.watch_claim, in this process: which folder a new watch takes (out, or the next
free sibling, and the first reason why), its lock (this process's; one a dead writer
left is taken over, a live one's never), overwrite only for out itself, a rank's own
folder, and a lock released only by its own writer."""
import json
import os
import socket
import subprocess
import sys

import pytest

from gradviz.plain.watch import watch_claim
from gradviz.plain.watch.watch_claim import LOCK, RUN_FILES, claim, holds_run, release


def _lock(folder, pid: int, host: str | None = None) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / LOCK).write_text(json.dumps({"host": host or socket.gethostname(),
                                           "pid": pid}) + "\n")


def _live_pid() -> int:
    """A process that lives as long as the tests: this one's parent (pytest's runner
    or a shell), never this process (whose own lock is its own)."""
    return os.getppid()


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _writer(lock) -> dict:
    return json.loads(lock.read_text())


def test_a_free_out_is_taken_as_it_is_with_this_processs_lock(tmp_path):
    out = tmp_path / "exp1"
    taken = claim(out, None)
    assert (taken.out, taken.folder, taken.lock) == (out, out, out / LOCK)
    assert taken.why_moved is None
    assert _writer(taken.lock) == {"host": socket.gethostname(), "pid": os.getpid()}


def test_a_run_there_sends_the_watch_to_the_next_sibling_and_says_why(tmp_path):
    out = tmp_path / "exp1"
    out.mkdir()
    (out / "report.json").write_text("{}")
    taken = claim(out, None)
    assert taken.out == tmp_path / "exp1-1" and taken.folder == taken.out
    assert taken.why_moved == f"{out} holds a run already"
    again = claim(out, None)   # exp1-1 is this process's now: live, never shared
    assert again.out == tmp_path / "exp1-2"
    assert again.why_moved == f"{out} holds a run already"   # the first reason


def test_a_live_writers_folder_is_never_taken_even_to_overwrite(tmp_path):
    out = tmp_path / "exp1"
    _lock(out, _live_pid())
    taken = claim(out, None, overwrite=True)
    assert taken.out == tmp_path / "exp1-1"
    assert taken.why_moved.startswith(f"another process is writing {out} (pid ")
    assert _writer(out / LOCK)["pid"] == _live_pid()     # its lock untouched


def test_overwrite_replaces_out_itself_never_a_sibling(tmp_path):
    out = tmp_path / "exp1"
    for folder in (out, tmp_path / "exp1-1"):
        folder.mkdir()
        (folder / "watch.json").write_text("{}")
    assert claim(out, None, overwrite=True).out == out
    release(out / LOCK)
    _lock(out, _live_pid())
    taken = claim(out, None, overwrite=True)
    assert taken.out == tmp_path / "exp1-2"   # exp1-1 holds a run: not overwritten
    assert taken.why_moved.startswith(f"another process is writing {out}")   # the first


def test_a_dead_writers_lock_is_taken_over(tmp_path):
    out = tmp_path / "exp1"
    _lock(out, _dead_pid())
    taken = claim(out, None)
    assert taken.out == out and taken.why_moved is None
    assert _writer(taken.lock)["pid"] == os.getpid()


def test_a_lock_that_cannot_be_read_counts_as_a_live_writers(tmp_path):
    out = tmp_path / "exp1"
    out.mkdir()
    (out / LOCK).write_text("[1, 2]\n")     # json, but no writer in it
    taken = claim(out, None)
    assert taken.out == tmp_path / "exp1-1"
    assert taken.why_moved == f"another process is writing {out} (pid None on None)"


def test_each_rank_writes_its_own_folder_under_out(tmp_path):
    out = tmp_path / "exp1"
    taken = claim(out, 3)
    assert taken.out == out and taken.folder == out / "rank-3"
    assert taken.lock == out / "rank-3" / LOCK and taken.lock.exists()
    assert claim(out, 4).out == out   # another rank, the same run


@pytest.mark.parametrize("name", RUN_FILES)
def test_any_of_a_runs_files_makes_a_folder_hold_a_run(tmp_path, name):
    assert not holds_run(tmp_path)
    (tmp_path / name).write_text("")
    assert holds_run(tmp_path)


def test_every_sibling_taken_is_refused_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setattr(watch_claim, "SIBLINGS", 3)
    out = tmp_path / "exp1"
    for name in ("exp1", "exp1-1", "exp1-2"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "steps.jsonl").write_text("")
    with pytest.raises(FileExistsError, match="its next 2 siblings are all taken"):
        claim(out, None)


def test_only_its_own_writer_releases_a_lock(tmp_path):
    ours = claim(tmp_path / "a", None).lock
    release(ours)
    assert not ours.exists()
    _lock(tmp_path / "b", _live_pid())
    release(tmp_path / "b" / LOCK)
    assert (tmp_path / "b" / LOCK).exists()
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / LOCK).write_text("not json")
    release(tmp_path / "c" / LOCK)            # unreadable: not ours to remove
    assert (tmp_path / "c" / LOCK).exists()


def test_a_run_made_in_a_folder_while_it_was_claimed_is_left_with_no_lock_of_ours(
        tmp_path, monkeypatch):
    out = tmp_path / "exp1"
    looks: list = []
    real = watch_claim.holds_run

    def made_meanwhile(folder):
        looks.append(folder)
        return folder == out and looks.count(out) > 1 or real(folder)
    monkeypatch.setattr(watch_claim, "holds_run", made_meanwhile)
    taken = claim(out, None)
    assert taken.out == tmp_path / "exp1-1"
    assert taken.why_moved == f"{out} holds a run already"
    assert not (out / LOCK).exists()
