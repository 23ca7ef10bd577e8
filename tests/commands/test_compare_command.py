"""`gradviz compare` as a user calls it: the table, the files, the exit status like cmp."""
import csv
import json

import pytest
import torch
from cli_files import toml

from gradviz.app import main


def run(*argv: str) -> int:
    try:
        return main(["compare", *argv])
    except SystemExit as exc:
        return exc.code


def test_same_is_exit_0_with_a_table_and_files(tmp_path, capsys):
    a = toml(tmp_path, "sum.toml", 'strategy = "sum"\n')
    b = toml(tmp_path, "separate.toml", 'strategy = "separate"\n')
    assert run(a, b, "--steps", "3", "--out", str(tmp_path / "out")) == 0
    out = capsys.readouterr().out
    for words in ("trunk", "head2", "step 0: max abs", "last step losses A",
                  "peak saved memory", "verdict: same gradients"):
        assert words in out
    data = json.loads((tmp_path / "out" / "compare.json").read_text())
    assert data["same"] is True and data["a"]["strategy"] == "sum"
    assert data["b"]["strategy"] == "separate" and len(data["steps"]) == 3
    rows = list(csv.DictReader((tmp_path / "out" / "compare.csv").open()))
    assert len(rows) == 3 * 4 and set(rows[0]) == {"step", "group", "max_abs", "max_rel"}


def test_different_is_exit_1_and_says_how(tmp_path, capsys):
    a = toml(tmp_path, "a.toml", "")
    b = toml(tmp_path, "b.toml", 'strategy = "in-loop"\n')
    assert run(a, b, "--steps", "2") == 1
    assert "verdict: different: B's gradient on the trunk, head 0: 3.00× A's" in \
        capsys.readouterr().out


def test_flags_apply_to_both_and_files_override_them(tmp_path, capsys):
    a = toml(tmp_path, "a.toml", "accumulate = 2\n")
    b = toml(tmp_path, "b.toml", "")
    assert run(a, b, "--steps", "2", "--batch-size", "16", "--out", str(tmp_path / "o")) == 0
    data = json.loads((tmp_path / "o" / "compare.json").read_text())
    assert data["a"]["batch_size"] == data["b"]["batch_size"] == 16
    assert data["a"]["accumulate"] == 2 and data["b"]["accumulate"] == 1


def test_an_autograd_error_is_exit_3_and_says_which(tmp_path, capsys):
    a = toml(tmp_path, "a.toml", "")
    b = toml(tmp_path, "b.toml", 'strategy = "separate"\nretain-graph = "never"\n')
    assert run(a, b, "--steps", "2", "--out", str(tmp_path / "o")) == 3
    err = capsys.readouterr().err
    assert err.startswith("gradviz: B: RuntimeError at step 0") and "why:" in err
    data = json.loads((tmp_path / "o" / "compare.json").read_text())
    assert data["error"]["which"] == "B"


@pytest.mark.parametrize("files, extra, words", [
    (("", 'heads = 2\n'), [], "A and B must build the same model"),
    (("", "bogus = 1\n"), [], "unknown setting 'bogus'"),
    (("", ""), ["--rtol", "2"], "--rtol must be between 0 and 1"),
    (("", ""), ["--config", "x.toml"], "not --config"),
])
def test_bad_input_is_exit_2_with_one_line(tmp_path, capsys, files, extra, words):
    a, b = (toml(tmp_path, f"{n}.toml", text) for n, text in zip("ab", files))
    assert run(a, b, "--steps", "1", *extra) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and len(err.splitlines()) == 1


def test_a_missing_file_is_exit_2(tmp_path, capsys):
    assert run(str(tmp_path / "nope.toml"), str(tmp_path / "nope.toml")) == 2
    assert "config file not found" in capsys.readouterr().err


@pytest.mark.parametrize("flags, text_a, who", [
    (["--steps", "0"], "", "A and B"),
    (["--steps", "2"], "steps = 0\n", "A"),
])
def test_zero_steps_is_a_bad_argument_not_different(tmp_path, capsys, flags, text_a, who):
    a = toml(tmp_path, "a.toml", text_a)
    b = toml(tmp_path, "b.toml", "")
    assert run(a, b, *flags) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (f"gradviz compare: {who} would train 0 steps, which compares "
                            "nothing: give --steps 1 or more\n")


def test_a_weight_of_zero_has_no_gradient_in_plain_pytorch():
    w = torch.randn(3, requires_grad=True)
    (0.0 * (w ** 2).sum()).backward()
    assert torch.count_nonzero(w.grad) == 0


def test_a_loop_whose_gradients_are_all_zero_is_told_so_not_inf(tmp_path, capsys):
    a = toml(tmp_path, "a.toml", "loss-weights = [0.0, 0.0, 0.0]\n")
    b = toml(tmp_path, "b.toml", "")
    assert run(a, b, "--steps", "2", "--out", str(tmp_path / "o")) == 1
    out = capsys.readouterr().out
    assert ("verdict: different: trunk, head0, head1, head2 gradients are all zero in A and "
            "not in B (step 0)") in out
    assert "by up to inf" not in out

    def refuse(constant):
        raise ValueError(f"not JSON: {constant}")
    data = json.loads((tmp_path / "o" / "compare.json").read_text(), parse_constant=refuse)
    assert data["steps"][0]["groups"]["trunk"]["max_rel"] is None   # infinite: null


def test_sum_against_upgrad_with_conflicting_heads_is_different(tmp_path, capsys):
    """Lesson 13's settings: UPGrad changes the trunk's gradient, not the heads'."""
    common = "heads = 3\nloss-weights = [1.0, 1.0, 4.0]\n"
    a = toml(tmp_path, "sum.toml", common + 'strategy = "sum"\n')
    b = toml(tmp_path, "upgrad.toml", common + 'strategy = "upgrad"\n')
    assert run(a, b, "--steps", "2", "--out", str(tmp_path / "out")) == 1
    out = capsys.readouterr().out
    assert "verdict: different: trunk gradients differ" in out
    assert "head0, head1, head2 the same" in out
    data = json.loads((tmp_path / "out" / "compare.json").read_text())
    assert data["same"] is False and data["b"]["strategy"] == "upgrad"
    heads = [g for g in data["steps"][0]["groups"] if g.startswith("head")]
    assert heads and all(data["steps"][0]["groups"][g]["max_rel"] < 1e-5 for g in heads)
