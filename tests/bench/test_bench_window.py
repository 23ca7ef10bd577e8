"""`gradviz bench --gui`'s lines: each phase's rate as a share of the plain loop timed
just before and just after it (the phases and the plain loop are faked here; the window
phase itself runs briefly in tests/qt/test_window_speed.py)."""
from gradviz.app import main
from gradviz.bench import command as bench
from gradviz.exit_codes import EXIT_USAGE
from gradviz.plain.config.config import Config

PHASE = {"steps_per_second": 1400.0, "longest_stall_s": 0.2, "median_late_ms": 0.1,
         "p99_late_ms": 9.0, "max_late_ms": 30.0, "engine_cpu_ms_per_step": 0.6,
         "engine_cpu_share": 0.84, "window_cpu_ms_per_step": 0.2, "window_cpu_share": 0.28}


def gradviz(*argv: str) -> int:
    try:
        return main(list(argv))
    except SystemExit as exc:
        return exc.code


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


def test_gui_size_runs_the_quiet_phase_alone_at_that_size(monkeypatch, capsys):
    asked: list[list[str]] = []

    def phase(args):
        asked.append(args)
        return PHASE
    monkeypatch.setattr(bench, "run_bench", lambda *a, **k: [])
    monkeypatch.setattr(bench, "_print_comparing", lambda *a, **k: None)
    monkeypatch.setattr(bench, "_bare_rate", lambda config, model_file, clock="wall": 2000.0)
    monkeypatch.setattr(bench, "run_phase", phase)
    assert gradviz("bench", "-q", "--gui-size", "1024x768") == 0
    (args,) = asked
    assert args[args.index("--size") + 1] == "1024x768"
    assert "--busy" not in args and "--pin-b" not in args
    assert "every panel live at 1024x768" in capsys.readouterr().out


def test_a_window_size_it_cannot_read_is_refused_in_one_line(capsys):
    assert gradviz("bench", "--gui-size", "1024x") == EXIT_USAGE
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err == ("gradviz bench: argument --gui-size: a window size is WIDTHxHEIGHT, "
                   "each 320 to 8192 pixels (1024x768), not '1024x' (see gradviz bench --help)")
