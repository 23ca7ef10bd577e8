"""The watch inside a real training process: whatever goes wrong with its own work (a
full disk, its folder removed or unwritable, an unwritable out, a second writer, a
re-run), the user's script goes on to its end with its exit status, its parameters
bit-equal to an unwatched run's, one `gradviz:` line on stderr, and the folder says
how the stream ended."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from gradviz.plain.run_files.watch_read import StreamReader
from gradviz.plain.runs.watch_summary import summary_lines

SCRIPT = Path(__file__).with_name("watch_fault_script.py")
STEPS = 12


def _run(out: Path, fault: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-I", str(SCRIPT), str(out), fault],
                          capture_output=True, text=True, timeout=120, **kwargs)


@pytest.fixture(scope="module")
def bare_hash(tmp_path_factory) -> str:
    done = _run(tmp_path_factory.mktemp("bare") / "run", "bare")
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()[-1]


def _gradviz_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("gradviz:")]


def _header(folder: Path) -> dict:
    return json.loads((folder / "watch.json").read_text())


def _steps(folder: Path) -> list[int]:
    return [r.step for r in StreamReader(folder).read()]


@pytest.mark.parametrize("fault, errno_words", [("full", "is full"),
                                                ("unwritable", "failed (Permission denied)")])
def test_a_write_that_fails_stops_recording_and_the_training_goes_on(
        tmp_path, bare_hash, fault, errno_words):
    out = tmp_path / "run"
    done = _run(out, fault)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == bare_hash
    (line,) = _gradviz_lines(done.stderr)
    assert errno_words in line and "recording stopped after step 4 (the training goes on)" \
        in line
    assert "Traceback" not in done.stderr
    assert _steps(out) == [0, 1, 2, 3, 4]   # the last whole line kept
    header = _header(out)
    assert header["recording_stopped"]["steps"] == 5
    assert header["ended"] == {"how": "finished"} and header["steps"] == STEPS
    assert not (out / "watch.lock").exists()
    assert summary_lines(out)[0].startswith(
        "run: 5 steps (0 to 4); finished; recording stopped after 5 steps (")


def _can_mount_tmpfs(folder: Path) -> bool:
    if os.geteuid() != 0 or not sys.platform.startswith("linux"):
        return False
    folder.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)],
                          capture_output=True)
    return done.returncode == 0


def test_a_real_full_disk_keeps_whole_lines_and_the_training_goes_on(tmp_path, bare_hash):
    disk = tmp_path / "disk"
    if not _can_mount_tmpfs(disk):
        pytest.skip("a 64 KB tmpfs needs root on Linux (the injected ENOSPC test runs)")
    try:
        out = disk / "run"
        done = subprocess.run([sys.executable, "-I", str(SCRIPT), str(out), "ok", "300"],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        (line,) = _gradviz_lines(done.stderr)
        assert f"the disk holding {out} is full: recording stopped after step" in line
        text = (out / "steps.jsonl").read_bytes()
        assert text.endswith(b"\n")   # cut back to its last whole line
        steps = _steps(out)
        assert steps == list(range(len(steps))) and 0 < len(steps) < 300
    finally:
        subprocess.run(["umount", str(disk)], capture_output=True)


def test_the_folder_removed_mid_run_is_said_and_the_training_goes_on(tmp_path, bare_hash):
    out = tmp_path / "run"
    done = _run(out, "removed")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == bare_hash
    assert _gradviz_lines(done.stderr) == [
        f"gradviz: the run folder {out} was removed: recording stopped when step 8 was "
        "written (the training goes on); the steps written before are gone with it"]
    assert not out.exists()   # nothing made again behind the user's back


def test_an_unwritable_out_is_one_line_and_the_training_runs(tmp_path, bare_hash):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    done = _run(blocker / "run", "ok")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == bare_hash
    (line,) = _gradviz_lines(done.stderr)
    assert line.startswith(f"gradviz: cannot write the run folder {blocker / 'run'} (")
    assert line.endswith("this run is not recorded (the training goes on); give watch an "
                         "out folder it can write")
    assert blocker.read_text() == "not a folder"


def test_a_re_run_never_replaces_a_finished_run(tmp_path, bare_hash):
    out = tmp_path / "exp1"
    first = _run(out, "ok")
    assert first.returncode == 0 and _gradviz_lines(first.stderr) == []
    before = (out / "steps.jsonl").read_bytes()
    second = _run(out, "ok")
    assert second.returncode == 0 and second.stdout.splitlines()[-1] == bare_hash
    assert _gradviz_lines(second.stderr) == [
        f"gradviz: {out} holds a run already: this run is written to {out}-1 instead "
        "(overwrite=True replaces a run that is not being written)"]
    assert (out / "steps.jsonl").read_bytes() == before
    assert _steps(Path(f"{out}-1")) == list(range(STEPS))


def test_two_writers_never_share_a_folder(tmp_path, bare_hash):
    out = tmp_path / "exp1"
    first = subprocess.Popen([sys.executable, "-I", str(SCRIPT), str(out), "wait"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        assert first.stdout is not None and first.stdout.readline() == "waiting\n"
        lock = json.loads((out / "watch.lock").read_text())
        assert lock["pid"] == first.pid
        second = _run(out, "ok")
        assert second.returncode == 0 and second.stdout.splitlines()[-1] == bare_hash
        (line,) = _gradviz_lines(second.stderr)
        assert line == (f"gradviz: another process is writing {out} (pid {first.pid} on "
                        f"{lock['host']}): this run is written to {out}-1 instead "
                        "(overwrite=True replaces a run that is not being written)")
        stdout, stderr = first.communicate("\n", timeout=120)
    finally:
        first.kill()
    assert first.returncode == 0 and stdout.splitlines()[-1] == bare_hash, stderr
    assert _steps(out) == list(range(STEPS)) == _steps(Path(f"{out}-1"))
    assert not (out / "watch.lock").exists()


@pytest.mark.parametrize("fault, status, ended", [
    ("raise", 1, {"how": "exception", "what": "RuntimeError: the user's own error at step 5"}),
    ("unclosed-raise", 1,
     {"how": "exception", "what": "RuntimeError: the user's own error at step 5"}),
    ("sigterm", -signal.SIGTERM, {"how": "signal", "what": "SIGTERM"}),
])
def test_how_the_stream_ended_is_recorded(tmp_path, fault, status, ended):
    out = tmp_path / "run"
    done = _run(out, fault)
    assert done.returncode == status, done.stderr
    assert _gradviz_lines(done.stderr) == []
    header = _header(out)
    assert header["ended"] == ended
    words = "an exception" if ended["how"] == "exception" else "a signal"
    assert f"; ended by {words} ({ended['what']})" in summary_lines(out)[0]
    assert not (out / "watch.lock").exists()


def test_amp_records_the_unscaled_norms_and_the_scale(tmp_path):
    out = tmp_path / "run"
    bare = _run(tmp_path / "bare", "amp-bare")
    done = _run(out, "amp")
    assert done.returncode == 0 and bare.returncode == 0, done.stderr + bare.stderr
    assert done.stdout.splitlines()[-1] == bare.stdout.splitlines()[-1]
    assert _gradviz_lines(done.stderr) == []
    # the norms the test's loop computed itself after scaler.unscale_
    unscaled = {int(w[1]): [float.fromhex(v) for v in w[2:]]
                for w in map(str.split, done.stdout.splitlines()) if w[0] == "unscaled"}
    records = StreamReader(out).read()
    assert [r.step for r in records] == list(range(STEPS))
    for r in records:
        assert list((r.grad_norms or {}).values()) == unscaled[r.step]
        assert r.amp_scale is not None and r.amp_scale >= 1.0 and r.amp_skipped is False
    assert records[0].amp_scale == 2.0 ** 16


def test_scaled_gradients_without_scaler_get_one_line(tmp_path):
    done = _run(tmp_path / "run", "amp-unnamed")
    assert done.returncode == 0, done.stderr
    (line,) = _gradviz_lines(done.stderr)
    assert line == ("gradviz: the gradients look scaled by a GradScaler (scale 65536): the "
                    "norms recorded are the scaled ones; pass gradviz.watch(..., "
                    "scaler=scaler) to record them unscaled")


@pytest.mark.parametrize("fault, words, steps", [
    ("after-backward", "gradviz: watch.losses() came after backward (the step's graph was "
     "already freed): call watch.losses before backward;", list(range(STEPS))),
    ("step-twice", "gradviz: watch.step() was called again after step 0 without "
     "watch.losses() since the last one:", list(range(STEPS))),
    ("no-step", f"gradviz: watch.losses() was called {STEPS} time(s) after the last "
     "watch.step():", []),
])
def test_each_misuse_is_one_line_and_the_script_ends_as_it_would(
        tmp_path, bare_hash, fault, words, steps):
    out = tmp_path / "run"
    done = _run(out, fault)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == bare_hash
    (line,) = _gradviz_lines(done.stderr)
    assert line.startswith(words)
    assert "Traceback" not in done.stderr
    assert _steps(out) == steps
    assert _header(out)["ended"] == {"how": "finished"}
