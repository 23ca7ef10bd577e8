"""Hostile and unlucky input to `gradviz run`: every case is exit 2 with one short line
(or it works), nothing hangs, and nothing the user gets looks complete while broken."""
import errno
import gc
import json
import os
import signal
import subprocess
import sys
import weakref
from pathlib import Path

import pytest

from gradviz.app import main
from gradviz.commands import run as run_command
from gradviz.core.session import Session
from gradviz.plain.config.config import Config
from gradviz.plain.run_files.report import ReportWriter

MAX_LINE = 500   # characters of a one-line error, whatever the input (paths included)


def run(*argv: str) -> int:
    try:
        return main(["run", "--quiet", *argv])
    except SystemExit as exc:
        return exc.code


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err[:2000]
    assert "Traceback" not in err and len(err) <= MAX_LINE, err[:2000]
    return err


def toml_file(tmp_path: Path, text: str, name: str = "c.toml") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("text, words", [
    ("x = " + "[" * 500 + "]" * 500 + "\n", "nests values too deeply"),
    ("x = " + "{a = " * 500 + "1" + "}" * 500 + "\n", "nests values too deeply"),
    ("lr = 1e308\n", "lr must be between 0 and 1000"),
    ("trunk-depth = 100000\n", "trunk-depth must be between 1 and 256"),
    ("loss-weights = [" + ",".join(["1"] * 3_000) + "]\n", "loss-weights has 3000 values"),
    ("loss-weights = [1" + "0" * 400 + ", 1, 1]\n", "loss-weights is too large"),
    ("lr = 1" + "0" * 400 + "\n", "lr is too large"),
])
def test_bad_toml_values_exit_2_with_one_line(tmp_path, capsys, text, words):
    assert run("--config", toml_file(tmp_path, text)) == 2
    assert words in one_line_error(capsys)


@pytest.mark.parametrize("argv, words", [
    (["--lr", "1e308"], "lr must be between 0 and 1000"),
    (["--trunk-width", "99999999999999999999999"], "trunk-width must be between 1 and 4096"),
    (["--trunk-depth", "100000"], "trunk-depth must be between 1 and 256"),
    (["--trunk-depth", str(2**31)], "trunk-depth must be between 1 and 256"),
    (["--trunk-width", "4096", "--trunk-depth", "8"], "gradviz builds at most 50,000,000"),
    (["--batch-size", "100000"], "batch-size must be between 1 and 4096"),
    (["--device", "cpu\n"], "device must be auto, cpu"),
    (["--device", "x" * 10_000_000], "device must be auto, cpu"),
    (["--heads", "9" * 100_000], "invalid int value"),
    (["--loss-weights", ",".join(["1"] * 3_000_000)], "loss-weights has 3000000 values"),
    (["--out", ""], "--out needs a folder name"),
    (["--out", "   "], "--out needs a folder name"),
])
def test_bad_flags_exit_2_with_one_short_line(capsys, argv, words):
    assert run(*argv) == 2
    assert words in one_line_error(capsys)


def test_a_huge_lr_cannot_reach_the_optimizer():
    """1e308 once passed validation and overflowed float32 inside optimizer.step()."""
    with pytest.raises(ValueError):
        Config(lr=1e308).replace()
    assert Config(lr=1000.0).replace().lr == 1000.0


def test_a_fifo_config_is_refused_without_blocking(tmp_path, capsys):
    fifo = tmp_path / "config.toml"
    os.mkfifo(fifo)
    # nothing writes to the FIFO: opening it would block this test for ever
    assert run("--config", str(fifo)) == 2
    assert "is not a regular file" in one_line_error(capsys)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero here")
def test_dev_zero_is_refused_without_reading_it(capsys):
    assert run("--config", "/dev/zero") == 2
    assert "is not a regular file" in one_line_error(capsys)


def test_an_oversized_config_file_is_refused(tmp_path, capsys):
    big = toml_file(tmp_path, "# " + "x" * 200_000 + "\nsteps = 1\n")
    assert run("--config", big) == 2
    assert "a gradviz config is a few lines" in one_line_error(capsys)


def test_a_byte_order_mark_is_accepted(tmp_path, capsys):
    path = tmp_path / "notepad.toml"
    path.write_bytes(b"\xef\xbb\xbfsteps = 2\nstrategy = \"separate\"\n")
    out = tmp_path / "out"
    assert run("--config", str(path), "--out", str(out)) == 0
    config = json.loads((out / "report.json").read_text())["config"]
    assert config["steps"] == 2 and config["strategy"] == "separate"


# ---- output integrity -------------------------------------------------------------------

def test_out_naming_a_file_is_refused_before_training(tmp_path, capsys):
    target = tmp_path / "a-file"
    target.write_text("mine")
    assert run("--out", str(target), "--steps", "50") == 2
    captured = capsys.readouterr()
    assert "is not a folder" in captured.err and "step" not in captured.out
    assert target.read_text() == "mine"


def test_a_folder_named_report_json_is_refused_before_training(tmp_path, capsys):
    (tmp_path / "report.json").mkdir()
    assert run("--out", str(tmp_path), "--steps", "50") == 2
    assert "report.json" in one_line_error(capsys)


def test_an_unwritable_folder_is_refused_before_training(tmp_path, capsys, monkeypatch):
    # root ignores permission bits, so a read-only folder is simulated at the OS call
    def refuse(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied")
    monkeypatch.setattr("gradviz.plain.files.atomic_write.tempfile.mkstemp", refuse)
    trained = []
    monkeypatch.setattr(Session, "step", lambda self: trained.append(1))
    assert run("--out", str(tmp_path / "out"), "--steps", "5") == 2
    assert "Permission denied" in one_line_error(capsys)
    assert trained == []


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_a_full_disk_mid_run_is_exit_2_and_keeps_the_old_report(tmp_path, capsys, monkeypatch):
    out = tmp_path / "out"
    assert run("--out", str(out), "--steps", "3") == 0
    old = (out / "report.json").read_text()
    before = _leftovers(out)
    real_add = ReportWriter.add

    def add_until_full(self, record):
        if record.step == 4:
            raise OSError(errno.ENOSPC, "No space left on device")
        real_add(self, record)
    monkeypatch.setattr(ReportWriter, "add", add_until_full)
    assert run("--out", str(out), "--steps", "10", "--seed", "1") == 2
    assert "No space left on device" in one_line_error(capsys)
    assert (out / "report.json").read_text() == old       # untouched, still whole
    assert _leftovers(out) == before                       # no temporary file left behind


def test_a_failed_graph_write_leaves_no_partial_file(tmp_path, capsys, monkeypatch):
    def full(path, data):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))
    monkeypatch.setattr("gradviz.render.export.write_bytes", full)
    out = tmp_path / "out"
    assert run("--out", str(out), "--steps", "2") == 2
    assert "No space left on device" in one_line_error(capsys)
    assert not (out / "graph.svg").exists()
    assert not [n for n in _leftovers(out) if n.endswith(".part")]


def test_records_are_not_kept_once_written(tmp_path):
    """Long runs stay flat: the report is streamed, and only the first and the last
    record (for the summary line) outlive their step."""
    session = Session(Config(probes="all", steps=30))
    refs = []
    real_step = session.step

    def step():
        record = real_step()
        refs.append(weakref.ref(record))
        return record
    session.step = step
    with ReportWriter(tmp_path, session.config, "cpu", session.param_names) as report:
        trained = run_command.train(session, 30, True, report)
        report.finish([])
    gc.collect()
    alive = [r() for r in refs if r() is not None]
    assert trained.count == 30
    assert all(r is trained.first or r is trained.last for r in alive)
    assert len(json.loads((tmp_path / "report.json").read_text())["steps"]) == 30


# ---- signals ----------------------------------------------------------------------------

TORCH_IMPORT_STARTS = "importing torch"

# an audit hook in the child says on stdout when `import torch` begins: the test waits
# on that line (a pipe), not on time
_ANNOUNCE_TORCH = ("sys.addaudithook(lambda event, args: event == 'import' and "
                   f"args[0] == 'torch' and print({TORCH_IMPORT_STARTS!r}, flush=True))")


# Ctrl+C as a terminal delivers it: a test run started in the background by a script
# (no job control) hands its children SIGINT ignored, which Python then keeps ignoring
_INTERRUPTIBLE = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler)"


def _gradviz(*argv: str, announce_torch: bool = False, **kwargs) -> subprocess.Popen:
    code = "import sys; from gradviz.app import main; sys.exit(main(sys.argv[1:]))"
    if announce_torch:
        code = "import sys; " + _ANNOUNCE_TORCH + "; " + code.split("; ", 1)[1]
    code = _INTERRUPTIBLE + "; " + code
    return subprocess.Popen([sys.executable, "-c", code, *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kwargs)


def test_ctrl_c_while_torch_is_loading_is_one_line(tmp_path):
    proc = _gradviz("run", "--steps", "1000000", "--out", str(tmp_path / "out"),
                    announce_torch=True)
    assert proc.stdout.readline().strip() == TORCH_IMPORT_STARTS   # mid `import torch`
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 130, err
    assert err.strip() == "gradviz: interrupted"
    assert not (tmp_path / "out" / "report.json").exists()


def test_ctrl_c_while_training_is_one_line_and_writes_no_report(tmp_path):
    out_dir = tmp_path / "out"
    proc = _gradviz("run", "--steps", "1000000", "--out", str(out_dir))
    first = proc.stdout.readline()                          # training has begun
    assert first.startswith("step"), first
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 130
    assert err.strip() == "gradviz: interrupted"
    assert _leftovers(out_dir) == []


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs kill -9")
def test_kill_9_mid_run_never_leaves_a_broken_report(tmp_path):
    out_dir = tmp_path / "out"
    assert run("--out", str(out_dir), "--steps", "2") == 0
    old = (out_dir / "report.json").read_text()
    proc = _gradviz("run", "--steps", "1000000", "--out", str(out_dir))
    assert proc.stdout.readline().startswith("step")        # it is writing steps now
    staging = [n for n in _leftovers(out_dir) if n.startswith(".gradviz-run-")]
    assert staging                                          # the new run's files, hidden
    proc.kill()
    proc.communicate(timeout=300)
    assert (out_dir / "report.json").read_text() == old
    json.loads(old)
    assert run("--out", str(out_dir), "--steps", "2") == 0   # the next run cleans up
    assert not set(staging) & set(_leftovers(out_dir))
