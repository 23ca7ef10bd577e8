"""`gradviz bench --soak SECONDS`: one long window phase with a core kept busy, and the
line that reports it (the phase itself is faked here: its own test runs it briefly,
tests/qt/test_window_speed.py)."""
from gradviz.app import main
from gradviz.bench import command as bench
from gradviz.exit_codes import EXIT_USAGE

PHASE = {"seconds": 600.2, "steps": 90_000, "steps_per_second": 150.0,
         "shown_steps": [500, 90_480], "shown_advances": 2350, "longest_stall_s": 0.61,
         "median_late_ms": 0.1, "p99_late_ms": 41.0, "max_late_ms": 180.0}


def gradviz(*argv: str) -> int:
    try:
        return main(list(argv))
    except SystemExit as exc:
        return exc.code


def test_the_soak_plays_that_long_with_a_core_busy_and_reports_the_longest_stall(
        monkeypatch, capsys):
    asked: list[tuple[list[str], float]] = []

    def phase(args: list[str], timeout_s: float) -> dict:
        asked.append((args, timeout_s))
        return PHASE
    monkeypatch.setattr(bench, "run_phase", phase)
    assert gradviz("bench", "--soak", "600") == 0
    (args, timeout_s), = asked
    assert "--busy" in args and args[args.index("--seconds") + 1] == "600.0"
    assert timeout_s > 600
    out = capsys.readouterr().out
    assert "from 500 to 90480, advancing 2350 times" in out
    assert "longest without advancing: 0.61 s" in out
    assert "41 ms (99%), 180 ms (worst)" in out


def test_a_soak_of_no_time_is_refused_in_one_line(capsys):
    assert gradviz("bench", "--soak", "0") == EXIT_USAGE
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["gradviz: bench --soak needs a number of seconds above 0"]
