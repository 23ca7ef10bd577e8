"""`gradviz run` as a user calls it: files written, exit statuses, one-line errors."""
import csv
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gradviz.app import main

ROOT = Path(__file__).resolve().parents[2]


def run(*argv: str) -> int:
    try:
        return main(["run", "--quiet", *argv])
    except SystemExit as exc:  # argparse and config errors exit through SystemExit
        return exc.code


def test_out_writes_report_metrics_and_graph(tmp_path):
    assert run("--steps", "5", "--out", str(tmp_path)) == 0
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["config"]["strategy"] == "sum" and report["config"]["heads"] == 3
    steps = report["steps"]
    assert [s["step"] for s in steps] == [0, 1, 2, 3, 4]
    for key in ("losses", "total", "grad_norms", "junction_grad_norms", "cosine",
                "saved_bytes", "saved_bytes_peak", "saved_tensor_bytes",
                "saved_tensor_bytes_peak", "graph_nodes", "events"):
        assert key in steps[0], key
    assert set(steps[0]["losses"]) == {"head0", "head1", "head2"}
    assert "trunk.0.weight" in steps[0]["grad_norms"]
    assert len(steps[0]["cosine"]) == 3 and len(steps[0]["cosine"][0]) == 3
    assert report["events"] == []
    rows = list(csv.DictReader((tmp_path / "metrics.csv").open()))
    assert len(rows) == 5
    assert float(rows[4]["total"]) == pytest.approx(steps[4]["total"])
    # both memory counts, as report.json has them (the batch is gathered: no saved view
    # of a bigger tensor, so the storages kept are the saved tensors' own bytes)
    assert int(rows[0]["saved_tensor_bytes_peak"]) == steps[0]["saved_tensor_bytes_peak"] \
        == steps[0]["saved_bytes_peak"] > 0
    assert (tmp_path / "graph.dot").read_text().lstrip().startswith("digraph")
    assert "<svg" in (tmp_path / "graph.svg").read_text()
    assert (tmp_path / "graph.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert (tmp_path / "graph_torchviz.dot").exists()


def test_flags_win_over_the_config_file(tmp_path):
    cfg = tmp_path / "lesson.toml"
    cfg.write_text('strategy = "separate"\nheads = 2\nloss-weights = [1.0, 0.5]\n'
                   'detach = [1]\n')
    out = tmp_path / "out"
    assert run("--config", str(cfg), "--heads", "2", "--steps", "2",
               "--loss-weights", "2,3", "--out", str(out)) == 0
    config = json.loads((out / "report.json").read_text())["config"]
    assert config["strategy"] == "separate"          # from the file
    assert config["loss_weights"] == [2.0, 3.0]      # the flag won
    assert config["detach"] == [1]


def test_the_demonstrated_error_exits_3_and_still_writes_the_report(tmp_path, capsys):
    code = run("--strategy", "separate", "--retain-graph", "never", "--out", str(tmp_path))
    assert code == 3
    err = capsys.readouterr().err
    assert "backward through the graph a second time" in err
    assert "why:" in err and "what to do:" in err
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["steps"] == []
    event = report["events"][0]
    assert event["type"] == "RuntimeError" and event["phase"] == "backward"
    assert (tmp_path / "graph.dot").exists()  # the graph at the moment it failed


def test_detach_in_place_after_use_exits_3(tmp_path, capsys):
    assert run("--detach", "1", "--detach-mode", "detach_", "--out", str(tmp_path)) == 3
    assert "detached in-place" in capsys.readouterr().err


@pytest.mark.parametrize("argv, words", [
    (["--strategy", "bogus"], "invalid choice"),
    (["--heads", "0"], "heads must be between 1 and 8"),
    (["--heads", "9"], "heads must be between 1 and 8"),
    (["--accumulate", "5"], "must divide batch-size"),
    (["--config", "/no/such/file.toml"], "config file not found"),
    (["--device", "cuda:7"], "not available here"),
    (["--device", "gpu"], "device must be"),
    (["--loss-weights", "1,2"], "loss-weights has 2 values"),
    (["--detach", "3"], "detach names head 3"),
    (["--lr", "-1"], "lr must be"),
    (["--lr", "nan"], "lr must be a finite number"),
    (["--loss-weights", "inf,1,1"], "must be a finite number"),
    (["--loss-weights", ""], "loss-weights is empty"),
    (["--detach", "1", "--detach", "1"], "detach names a head twice"),
    (["--seed", "99999999999999999999"], "seed must be between 0 and 2147483647"),
    (["--trunk-width", "4000", "--trunk-depth", "40", "--steps", "1"],
     "gradviz builds at most 50,000,000"),
    (["--truncate", "never"], "truncate applies to a recurrent trunk: add --model rnn"),
    (["--model", "transformer"], "model file not found: 'transformer', nor an example"),
    (["--misplace-head", "3"], "misplace-head names head 3, but heads are 0..2"),
    (["--edit-detached", "1"], "edit-detached names head 1, which is not detached"),
    (["--edit-detached", "1", "--detach", "1", "--detach-mode", "detach_"],
     "use --detach-mode detach"),
    (["--accumulate-mode", "sum-last"], "invalid choice"),
])
def test_bad_input_exits_2_with_one_line(argv, words, capsys):
    assert run(*argv) == 2
    err = capsys.readouterr().err.strip()
    assert words in err
    assert len(err.splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize("argv, words", [
    (["--misplace-head", "1"], "Tensor on device meta is not on the expected device cpu"),
    (["--detach", "1", "--edit-detached", "1"], "modified by an inplace operation"),
    (["--model", "rnn", "--truncate", "never"], "backward through the graph a second time"),
    (["--model", "rnn", "--truncate", "never", "--retain-graph", "always"],
     "modified by an inplace operation"),
])
def test_the_later_lessons_exit_3_explained(tmp_path, capsys, argv, words):
    assert run(*argv, "--steps", "5", "--out", str(tmp_path)) == 3
    err = capsys.readouterr().err
    assert words in err and "why:" in err and "what to do:" in err
    report = json.loads((tmp_path / "report.json").read_text())
    assert words in report["events"][0]["message"]


def test_new_keys_work_in_toml_too(tmp_path):
    cfg = tmp_path / "lesson.toml"
    cfg.write_text('model = "rnn"\ntruncate = "every-step"\naccumulate = 2\n'
                   'accumulate-mode = "sum-first"\nretain-grad = true\nsteps = 3\n')
    assert run("--config", str(cfg), "--out", str(tmp_path / "o")) == 0
    report = json.loads((tmp_path / "o" / "report.json").read_text())
    assert report["config"]["model"] == "rnn"
    assert report["config"]["accumulate_mode"] == "sum-first"
    assert all(s["z_grad_norm"] > 0 for s in report["steps"])


def test_zero_steps_says_so(capsys):
    assert run("--steps", "0") == 0
    assert "trained 0 steps" in capsys.readouterr().out


def test_malformed_and_unknown_config_files_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text("heads = [\n")
    assert run("--config", str(bad)) == 2
    assert "not valid TOML" in capsys.readouterr().err
    unknown = tmp_path / "unknown.toml"
    unknown.write_text("heds = 3\n")
    assert run("--config", str(unknown)) == 2
    assert "unknown setting 'heds'" in capsys.readouterr().err
    wrong_type = tmp_path / "wrong.toml"
    wrong_type.write_text('heads = "three"\n')
    assert run("--config", str(wrong_type)) == 2
    assert "heads must be a whole number" in capsys.readouterr().err
    string_bool = tmp_path / "string_bool.toml"
    string_bool.write_text('no_zero_grad = "false"\n')
    assert run("--config", str(string_bool)) == 2
    assert "no_zero_grad must be true or false" in capsys.readouterr().err


def test_same_seed_same_numbers_bit_for_bit(tmp_path):
    for name in ("a", "b"):
        assert run("--steps", "8", "--strategy", "separate", "--accumulate", "2",
                   "--out", str(tmp_path / name)) == 0
    a, b = (json.loads((tmp_path / n / "report.json").read_text())["steps"] for n in "ab")
    # every number but the backward's wall-clock time, which no seed fixes
    for steps in (a, b):
        for step in steps:
            assert step.pop("backward_seconds") > 0
    assert a == b
    assert run("--steps", "8", "--seed", "1", "--out", str(tmp_path / "c")) == 0
    c = json.loads((tmp_path / "c" / "report.json").read_text())["steps"]
    assert c[0]["losses"] != a[0]["losses"]


def test_presets_run(tmp_path):
    for preset in sorted((ROOT / "resources" / "presets").glob("*.toml")):
        code = run("--config", str(preset), "--steps", "3")
        assert code in (0, 3), preset.name


def test_python_dash_m_runs_in_a_fresh_process_without_traceback(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "gradviz", "run", "--heads", "0"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2
    assert proc.stderr.strip() == "gradviz: heads must be between 1 and 8 (got 0)"
    proc = subprocess.run([sys.executable, "-m", "gradviz", "run", "--steps", "3"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "trained 3 steps on cpu" in proc.stdout


def test_bench_prints_each_probe_level_and_its_ratio(capsys):
    assert main(["bench", "--steps", "10", "--repeats", "1"]) == 0
    out = capsys.readouterr().out
    for level in ("bare", "none", "default", "everything", "run", "app alone", "app, B",
                  "compare"):
        assert any(line.startswith(level) and "%" in line for line in out.splitlines()), level
    # what comparing costs, as a number of times the run alone
    cost = re.search(r"B pinned, in its own process \(B = A's settings\): ([0-9.]+)x "
                     r"the time of A alone", out)
    # a number of times, measured: how large is the benchmark's to say, not a test's (a
    # busy machine gave 0.41x once)
    assert cost and float(cost.group(1)) > 0, out
    cost = re.search(r"`gradviz compare A A`: ([0-9.]+)x the time of `gradviz run`", out)
    assert cost and float(cost.group(1)) > 0, out
