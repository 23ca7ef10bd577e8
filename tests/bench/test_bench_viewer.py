"""`gradviz bench --viewer`: the recorded-run window on a folder of made-up runs, in a
process of its own, briefly here (what is measured, not how fast: speed claims live in
`gradviz bench` and docs/benchmarks.md); and its lines, from numbers given."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gradviz.bench import viewer_bench
from gradviz.bench.viewer_bench import viewer_lines
from gradviz.bench.window_phase import phase_result

ROOT = Path(__file__).resolve().parents[2]


def test_the_window_is_timed_once_every_run_is_read(tmp_path):
    # the phase's module from this checkout (the command runs it isolated, -I, from the
    # installed gradviz)
    out = subprocess.run([sys.executable, "-m", "gradviz.bench.qt.viewer_speed", "--runs", "3",
                          "--steps", "400", "--seconds", "1.5", "--size", "1024x768",
                          "--folder", str(tmp_path / "runs")],
                         capture_output=True, text=True, cwd=ROOT, timeout=600,
                         env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert out.returncode == 0, out.stderr[-2000:]
    result = phase_result(out)
    assert (result["runs"], result["steps"]) == (3, 400)
    assert result["moves"] >= 5 and result["load_s"] > 0
    assert 0 <= result["median_late_ms"] <= result["p99_late_ms"] <= result["max_late_ms"]
    assert set(result["slowest_update_ms"]) & {"runsLossPlot", "runsNormPlot"}
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == sorted(
        ["lr-3e-02-seed0", "lr-3e-03-seed1", "lr-3e-04-seed2"])


RESULT = {"runs": 8, "steps": 100000, "write_s": 26.0, "load_s": 48.4, "moves": 75,
          "seconds": 15.0, "median_late_ms": 0.07, "p99_late_ms": 21.0, "max_late_ms": 143.4,
          "slowest_update_ms": {"runsLossPlot": 59.5}, "slowest_move_ms": {"axis wall": 24.4},
          "load_average": 1.5, "cores": 2, "p99_busy_ms": 19.9, "max_busy_ms": 55.6}


def test_the_lines_say_the_lateness_against_the_goal():
    lines = viewer_lines(RESULT)
    assert lines[0].startswith("viewer: 8 runs of 100,000 steps each, drawn over each other "
                               "(written in 26 s, read by the window in 48 s); then 75 moves")
    assert lines[0].endswith("the window answered 0.1 ms late (median), 21 ms (99%), 143 ms "
                             "(worst), by a 1 ms probe timer: within the 30 ms goal")
    assert lines[1] == ("the window's own work between two ticks (its thread's CPU time: "
                        "another program's turns not counted): 20 ms (99%), 56 ms (worst)")
    assert lines[2] == ("slowest chart updates: runsLossPlot 60 ms; slowest moves (the move "
                        "itself): axis wall 24 ms")
    assert "over the 30 ms goal" in viewer_lines({**RESULT, "p99_late_ms": 47.0})[0]


def test_a_window_process_that_gives_no_numbers_is_one_line(monkeypatch, capsys):
    from gradviz.app import main

    def no_result(args, timeout_s, module):
        assert module == "gradviz.bench.qt.viewer_speed"
        return subprocess.CompletedProcess(args, 1, "", "ImportError: libEGL.so.1\n")
    monkeypatch.setattr(viewer_bench, "phase_process", no_result)
    with pytest.raises(SystemExit) as exit_:
        main(["bench", "--viewer", "-q"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err == ("gradviz: bench: the window phase gave no result "
                                       "(exit 1): ImportError: libEGL.so.1\n")
