"""`gradviz bench --gui`'s lines: each phase's rate as a share of the plain loop timed
just before and just after it (the phases and the plain loop are faked here; the window
phase itself runs briefly in tests/qt/test_window_speed.py)."""
from gradviz.commands import bench
from gradviz.plain.config import Config

PHASE = {"steps_per_second": 1400.0, "longest_stall_s": 0.2, "median_late_ms": 0.1,
         "p99_late_ms": 9.0, "max_late_ms": 30.0, "engine_cpu_ms_per_step": 0.6,
         "engine_cpu_share": 0.84, "window_cpu_ms_per_step": 0.2, "window_cpu_share": 0.28}


def test_each_phase_is_a_share_of_the_plain_loop_around_it(monkeypatch, capsys):
    timeline: list[str] = []
    # wall-clock rates before and after each phase: 2,000 then 1,600 steps/s (a drift)
    wall = iter([2000.0, 1600.0] * len(bench.WINDOW_PHASES))

    def bare_rate(config, model_file, clock="wall"):
        timeline.append(f"bare {clock} {config.steps}")
        return next(wall) if clock == "wall" else 2500.0   # 0.4 ms of CPU a step

    def phase(args):
        timeline.append("phase")
        return PHASE
    monkeypatch.setattr(bench, "_bare_rate", bare_rate)
    monkeypatch.setattr(bench, "run_phase", phase)
    bench._print_window(Config(steps=300), None, quiet=True)
    steps = bench.WINDOW_BARE_STEPS
    assert timeline[:5] == [f"bare wall {steps}", f"bare cpu {steps}", "phase",
                            f"bare wall {steps}", f"bare cpu {steps}"]
    rows = capsys.readouterr().out.strip().splitlines()
    assert len(rows) == len(bench.WINDOW_PHASES)
    for row in rows:
        # 1,400 / 1,800 (the mean of 2,000 and 1,600), not 1,400 / 2,000 = 70%
        assert "78%" in row.split("every panel")[0]
        assert "(2000 and 1600 steps/s)" in row
        assert "the plain loop 0.40 ms" in row
