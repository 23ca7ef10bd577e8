"""`gradviz run --out`: a run's files replace the last run's together or not at all, the
folder never mixes two runs, nothing gradviz did not write is removed, modes follow the
umask, and a failure (a kill, a full disk, out of memory, a closed stdout) says exactly
what happened in one line."""
import errno
import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from gradviz.app import main
from gradviz.commands.run import OUT_FILES
from gradviz.core.session import Session
from gradviz.plain.run_files import run_folder
from gradviz.plain.run_files.run_folder import MANIFEST, recover

ALL = sorted(OUT_FILES)


def run(*argv: str) -> int:
    try:
        return main(["run", "--quiet", "--steps", "2", *argv])
    except SystemExit as exc:
        return exc.code


def one_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def seed_of(folder: Path) -> int:
    return json.loads((folder / "report.json").read_text())["config"]["seed"]


def visible(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if not p.name.startswith("."))


def hidden(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


@pytest.fixture
def first_run(tmp_path) -> Path:
    """An --out folder holding a whole run (seed 0) and a file of the user's (so a run
    into it needs --force)."""
    out = tmp_path / "out"
    assert run("--out", str(out)) == 0
    (out / "notes.txt").write_text("mine")
    return out


def _fail_at(monkeypatch, name: str, exc: BaseException) -> None:
    """Writing the graph file `name` raises exc (as a full disk or a kill would)."""
    from gradviz.render import export
    real = export.write_bytes

    def write_bytes(path, data):
        if Path(path).name == name:
            raise exc
        return real(path, data)
    monkeypatch.setattr(export, "write_bytes", write_bytes)


def test_a_kill_during_the_graph_export_leaves_the_last_run_whole(first_run, monkeypatch,
                                                                  capsys):
    before = snapshot(first_run)
    _fail_at(monkeypatch, "graph.svg", KeyboardInterrupt())   # Ctrl+C mid-export
    assert run("--out", str(first_run), "--force", "--seed", "1") == 130
    assert snapshot(first_run) == before                  # not one byte of the new run
    assert hidden(first_run) == [MANIFEST]                # no staging folder, no .part


def test_a_full_disk_during_the_export_says_what_was_written(first_run, monkeypatch, capsys):
    _fail_at(monkeypatch, "graph.svg", OSError(errno.ENOSPC, "No space left on device"))
    assert run("--out", str(first_run), "--force", "--seed", "1") == 2
    err = one_line(capsys)
    assert ("wrote report.json, metrics.csv, graph.json, graph.dot and graph_torchviz.dot to "
            in err), err
    assert err.endswith("could not write graph.svg and graph.png: No space left on device")
    # only the new run's files: the old graph.svg and graph.png are gone with it
    assert visible(first_run) == ["graph.dot", "graph.json", "graph_torchviz.dot",
                                  "metrics.csv", "notes.txt", "report.json"]
    assert seed_of(first_run) == 1
    assert (first_run / "notes.txt").read_text() == "mine"
    assert hidden(first_run) == [MANIFEST]


def test_files_gradviz_did_not_write_are_never_removed(tmp_path, monkeypatch, capsys):
    """A graph.png already in a folder no run has written to is the user's."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "graph.png").write_bytes(b"my picture")
    _fail_at(monkeypatch, "graph.svg", OSError(errno.ENOSPC, "No space left on device"))
    assert run("--out", str(out)) == 2
    assert (out / "graph.png").read_bytes() == b"my picture"


def test_a_second_whole_run_replaces_every_file_of_the_first(first_run):
    assert run("--out", str(first_run), "--force", "--seed", "1") == 0
    assert visible(first_run) == sorted(ALL + ["notes.txt"])
    assert seed_of(first_run) == 1
    rows = (first_run / "metrics.csv").read_text().splitlines()
    assert len(rows) == 3   # a header and the new run's 2 steps, not the old run's


def test_a_commit_killed_half_way_is_finished_by_the_next_run(first_run, monkeypatch):
    moved = []
    real_keep_mode = run_folder.keep_mode

    def killed_on_the_third_file(new, old):
        if len(moved) == 2:
            raise KeyboardInterrupt   # kill -9 between two renames of the commit
        moved.append(Path(old).name)
        real_keep_mode(new, old)
    monkeypatch.setattr(run_folder, "keep_mode", killed_on_the_third_file)
    assert run("--out", str(first_run), "--force", "--seed", "1") == 130
    assert any(n.startswith(run_folder.COMMITTING) for n in hidden(first_run))
    monkeypatch.setattr(run_folder, "keep_mode", real_keep_mode)
    recover(first_run, frozenset(OUT_FILES))              # what the next run does first
    assert hidden(first_run) == [MANIFEST]
    assert visible(first_run) == sorted(ALL + ["notes.txt"])
    assert seed_of(first_run) == 1
    steps = json.loads((first_run / "report.json").read_text())["steps"]
    assert json.loads((first_run / MANIFEST).read_text())["files"] == ALL
    assert len(steps) == 2


def test_a_move_that_fails_half_way_says_so_and_the_next_run_finishes_it(first_run,
                                                                        monkeypatch, capsys):
    real_keep_mode, calls = run_folder.keep_mode, []

    def refused_on_the_third_file(new, old):
        calls.append(old)
        if len(calls) == 3:
            raise PermissionError(errno.EACCES, "Permission denied")
        real_keep_mode(new, old)
    monkeypatch.setattr(run_folder, "keep_mode", refused_on_the_third_file)
    assert run("--out", str(first_run), "--force", "--seed", "1") == 2
    err = one_line(capsys)
    assert "could not move every file" in err and "the next run into it finishes" in err
    monkeypatch.setattr(run_folder, "keep_mode", real_keep_mode)
    assert run("--out", str(first_run), "--force", "--seed", "2") == 0
    assert seed_of(first_run) == 2 and hidden(first_run) == [MANIFEST]


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_what_killed_runs_left_is_cleaned_by_the_next(first_run):
    def staging(name: str) -> Path:
        folder = first_run / name
        folder.mkdir()
        (folder / "report.json").write_text("half a report")
        return folder
    killed = staging(run_folder.staging_prefix(_dead_pid()) + "abcd1234")
    old_part = first_run / ".metrics.csv.1234abcd.part"   # an older version's temp file
    old_part.write_text("half a csv")
    live = staging(run_folder.staging_prefix(os.getpid()) + "live0000")   # a run going on
    elsewhere = staging(f"{run_folder.STAGING}123-0another-zz")   # another machine's run
    abandoned = staging(f"{run_folder.STAGING}456-0another-yy")   # ...two days old
    two_days_ago = time.time() - 2 * 24 * 3600
    os.utime(abandoned, (two_days_ago, two_days_ago))
    assert run("--out", str(first_run), "--force") == 0
    assert not killed.exists() and not old_part.exists() and not abandoned.exists()
    assert live.is_dir() and elsewhere.is_dir()


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permission bits")
@pytest.mark.parametrize("umask, expected", [(0o022, 0o644), (0o077, 0o600)])
def test_new_files_get_the_mode_the_umask_gives(tmp_path, umask, expected):
    out = tmp_path / "out"
    previous = os.umask(umask)
    try:
        assert run("--out", str(out), "--script", str(tmp_path / "loop.py")) == 0
    finally:
        os.umask(previous)
    for path in [*(out / name for name in ALL), out / MANIFEST, tmp_path / "loop.py"]:
        assert stat.S_IMODE(path.stat().st_mode) == expected, path.name


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permission bits")
@pytest.mark.parametrize("inside_out", [False, True])
def test_a_replaced_file_keeps_its_mode(first_run, inside_out):
    script = (first_run if inside_out else first_run.parent) / "loop.py"
    script.write_text("# an older script\n")
    script.chmod(0o755)
    (first_run / "report.json").chmod(0o644)
    previous = os.umask(0o077)
    try:
        assert run("--out", str(first_run), "--force", "--script", str(script)) == 0
    finally:
        os.umask(previous)
    assert stat.S_IMODE(script.stat().st_mode) == 0o755          # still executable
    assert "torch" in script.read_text()
    assert stat.S_IMODE((first_run / "report.json").stat().st_mode) == 0o644


def test_a_script_write_cleans_what_a_killed_one_left(tmp_path):
    script = tmp_path / "loop.py"
    stale = tmp_path / ".loop.py.0badf00d.part"
    stale.write_text("half a script")
    assert run("--script", str(script)) == 0
    assert not stale.exists() and "torch" in script.read_text()


def test_a_script_inside_out_is_written_with_the_run_and_kept_by_the_next(tmp_path, capsys):
    out = tmp_path / "out"
    assert run("--out", str(out), "--script", str(out / "loop.py")) == 0
    assert "loop.py" not in json.loads((out / MANIFEST).read_text())["files"]
    assert run("--out", str(out)) == 0     # a run without --script leaves it be
    compile((out / "loop.py").read_text(), "loop.py", "exec")
    assert run("--out", str(out), "--script", str(out / "report.json")) == 2
    assert "--script cannot be report.json" in one_line(capsys)


@pytest.mark.parametrize("error", [torch.OutOfMemoryError("CUDA out of memory. Tried to "
                                                          "allocate 2.00 GiB\nmore lines"),
                                   MemoryError()])
def test_out_of_memory_mid_run_is_one_line_and_exit_2(first_run, monkeypatch, capsys, error):
    before = snapshot(first_run)
    real_step = Session.step

    def step(self):
        if self.step_index == 3:
            raise error
        return real_step(self)
    monkeypatch.setattr(Session, "step", step)
    assert run("--out", str(first_run), "--force", "--steps", "10") == 2
    err = one_line(capsys)
    assert err.startswith("gradviz: out of memory at step 3") and "--batch-size" in err
    assert snapshot(first_run) == before and hidden(first_run) == [MANIFEST]


class ClosedPipe:
    """A stdout whose reader has gone, as `| head` leaves it after its lines."""

    def write(self, text):
        raise BrokenPipeError(errno.EPIPE, "Broken pipe")

    def flush(self):
        raise BrokenPipeError(errno.EPIPE, "Broken pipe")

    def fileno(self):
        raise ValueError("not a real file")


def test_a_closed_stdout_still_writes_every_file_and_exits_0(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    out = tmp_path / "out"
    assert main(["run", "--steps", "30", "--out", str(out)]) == 0
    assert capsys.readouterr().err == ""
    assert visible(out) == ALL
    assert len(json.loads((out / "report.json").read_text())["steps"]) == 30


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX pipe")
def test_gradviz_run_piped_into_head_finishes_quietly(tmp_path):
    out = tmp_path / "out"
    code = "import sys; from gradviz.app import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.Popen([sys.executable, "-c", code, "run", "--steps", "300",
                             "--out", str(out)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().startswith("step")   # what `head -1` reads...
    proc.stdout.close()                                # ...before it exits
    with proc.stderr:
        err = proc.stderr.read()
    assert proc.wait(timeout=600) == 0, err
    assert err == ""
    assert visible(out) == ALL
    assert len(json.loads((out / "report.json").read_text())["steps"]) == 300


# ---- a folder holding files gradviz did not write ------------------------------------
def test_another_tools_files_are_refused_in_one_line_and_left_alone(tmp_path, capsys):
    out = tmp_path / "theirs"
    out.mkdir()
    (out / "report.json").write_text('{"their": "report"}')
    (out / "metrics.csv").write_text("their,columns\n")
    before = snapshot(out)
    assert run("--out", str(out)) == 2
    line = one_line(capsys)
    assert "holds files gradviz did not write ('metrics.csv', 'report.json')" in line
    assert "--force" in line
    assert snapshot(out) == before and hidden(out) == []


def test_force_writes_into_it_and_keeps_what_gradviz_does_not_write(tmp_path):
    out = tmp_path / "theirs"
    out.mkdir()
    (out / "report.json").write_text('{"their": "report"}')
    (out / "notes.txt").write_text("mine")
    assert run("--out", str(out), "--force", "--seed", "3") == 0
    assert seed_of(out) == 3 and (out / "notes.txt").read_text() == "mine"


def test_a_folder_gradviz_wrote_is_reused_without_force(tmp_path):
    """Recognised by the run's manifest, or (written before there was one) by
    report.json's own header; a --script written into it is gradviz's too."""
    out = tmp_path / "out"
    assert run("--out", str(out), "--script", str(out / "loop.py")) == 0
    assert run("--out", str(out), "--seed", "1") == 0
    (out / MANIFEST).unlink()
    (out / "loop.py").unlink()
    assert run("--out", str(out), "--seed", "2") == 0 and seed_of(out) == 2


def test_compare_refuses_another_tools_folder_too(tmp_path, capsys):
    out = tmp_path / "theirs"
    out.mkdir()
    (out / "compare.json").write_text("{}")
    a, b = tmp_path / "a.toml", tmp_path / "b.toml"
    a.write_text('strategy = "sum"\n')
    b.write_text('strategy = "separate"\n')
    try:
        code = main(["compare", str(a), str(b), "--steps", "2", "--out", str(out)])
    except SystemExit as exc:
        code = exc.code
    assert code == 2 and "did not write ('compare.json')" in capsys.readouterr().err
    assert (out / "compare.json").read_text() == "{}"


def test_a_default_run_samples_every_20th_step_and_opens_with_every_view(tmp_path):
    """gradviz run's default sampling: every step's losses and gradient norms are those
    of the same run sampled every step (whose numbers tests/core checks against plain
    PyTorch), the sampled fields are those numbers on steps 0, 20, 40 and null between,
    as the header says; and the folder opens with every view's data."""
    from gradviz.plain.runs.recorded_run import RecordedRun
    steps = "41"
    assert main(["run", "-q", "--steps", steps, "--out", str(tmp_path / "a")]) == 0
    assert main(["run", "-q", "--steps", steps, "--sample-every", "1",
                 "--out", str(tmp_path / "b")]) == 0
    a, b = (json.loads((tmp_path / n / "report.json").read_text()) for n in "ab")
    sampled = [f for group in a["sampled"] for f in group["fields"]]
    assert [g["every"] for g in a["sampled"]] == [20] and "cosine" in sampled
    for got, every_step in zip(a["steps"], b["steps"], strict=True):
        for key in ("losses", "total", "grad_norms", "global_grad_norm"):
            assert got[key] == every_step[key]
        for key in sampled:
            assert got[key] == (every_step[key] if got["step"] % 20 == 0 else None), key
    shown = RecordedRun(tmp_path / "a")
    poll = shown.poll()
    history = shown.history
    assert poll.new_steps == 41 and poll.graph is not None and history is not None
    assert history.last_cosine is not None and \
        history.last_cosine.tolist() == a["steps"][40]["cosine"]
    assert history.last_update_cosine is not None
    peaks = history.column("saved_bytes_peak")
    assert [i for i in range(41) if peaks[i] == peaks[i]] == [0, 20, 40]   # not NaN
