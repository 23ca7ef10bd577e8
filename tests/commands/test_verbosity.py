"""-q/--quiet and -v/--verbose on every command, each meaning less or more than its
default output, as its help says."""
import pytest

from gradviz.app import main


def gradviz(*argv: str) -> int:
    try:
        return main(list(argv))
    except SystemExit as exc:
        return exc.code


@pytest.mark.parametrize("command", ["run", "compare", "lessons", "bench"])
def test_every_command_takes_quiet_and_verbose(command, capsys):
    assert gradviz(command, "--help") == 0
    text = capsys.readouterr().out
    assert "-q, --quiet" in text and "-v, --verbose" in text


def test_run_prints_every_step_with_v_and_only_the_summary_with_q(capsys):
    assert gradviz("run", "--steps", "25", "--batch-size", "8", "-v") == 0
    lines = capsys.readouterr().out.splitlines()
    assert [int(line.split()[1]) for line in lines[:-1]] == list(range(25))
    assert gradviz("run", "--steps", "25", "--batch-size", "8", "-q") == 0
    assert capsys.readouterr().out.startswith("trained 25 steps")


def test_compare_is_silent_with_q_and_says_each_step_with_v(tmp_path, capsys):
    a, b = tmp_path / "a.toml", tmp_path / "b.toml"
    a.write_text('strategy = "sum"\n')
    b.write_text('strategy = "separate"\n')
    assert gradviz("compare", str(a), str(b), "--steps", "3", "--batch-size", "8", "-q") == 0
    assert capsys.readouterr().out == ""
    assert gradviz("compare", str(a), str(b), "--steps", "3", "--batch-size", "8", "-v") == 0
    steps = [line for line in capsys.readouterr().out.splitlines() if line.startswith("step ")]
    assert [int(line.split()[1]) for line in steps] == [0, 1, 2]


def test_bench_prints_only_its_rows_with_q(capsys):
    assert gradviz("bench", "--steps", "3", "--repeats", "1", "--batch-size", "8", "-q") == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines and not any(line.startswith(("gradviz bench:", "loop ")) for line in lines)
    assert lines[0].startswith("bare ")
