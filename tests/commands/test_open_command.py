"""`gradviz open DIR` and `gradviz DIR` on the command line, and gradviz.open_run from
Python (a notebook): a file is one line and exit 2 (a folder not there yet opens and
waits for the script); open_run starts the window as a process of its own, and the
caller imports no Qt."""
from __future__ import annotations

import subprocess
import sys

import pytest

from gradviz.app import build_parser, main
from gradviz.commands.bare_file import bare_file_argv


def test_a_bare_folder_opens_as_a_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "runs").mkdir()
    parser = build_parser()
    assert bare_file_argv(parser, ["runs"]) == ["open", "runs"]
    assert bare_file_argv(parser, ["--steps", "5", "runs"]) == ["--steps", "5", "open",
                                                                "runs"]
    assert bare_file_argv(parser, ["open", "runs"]) == ["open", "runs"]


def test_a_file_is_no_run_in_one_line(tmp_path, capsys):
    path = tmp_path / "exp1"
    path.write_text("hello\n")
    with pytest.raises(SystemExit) as exit_:
        main(["open", str(path)])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"gradviz open: {path}: not a folder")


def test_a_file_to_compare_with_is_no_run_in_one_line(tmp_path, capsys):
    (tmp_path / "exp2").write_text("hello\n")
    with pytest.raises(SystemExit) as exit_:
        main(["open", str(tmp_path), "--compare", str(tmp_path / "exp2")])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"gradviz open: {tmp_path / 'exp2'}: not a folder")


def test_open_run_is_a_process_of_its_own_and_the_caller_imports_no_qt(tmp_path):
    (tmp_path / "notes.txt").write_text("not a run\n")   # refused: no window opens
    code = ("import sys, gradviz\n"
            f"p = gradviz.open_run({str(tmp_path)!r}, compare={str(tmp_path / 'notes.txt')!r})\n"
            "print(p.wait(), p.args[1:4], p.args[-2], 'PySide6' in sys.modules, "
            "'torch' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.stdout.split("\n")[0] == "2 ['-I', '-m', 'gradviz'] --compare False False", done
    assert "gradviz open:" in done.stderr and done.stderr.count("\n") == 1
