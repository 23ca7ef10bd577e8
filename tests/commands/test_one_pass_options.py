"""The new options as a user gives them: `gradviz run` and `gradviz compare` flags, TOML
keys, and one line (exit 2) for a bad value, whatever the value."""
import json

import pytest
from cli_files import toml
from hypothesis import given, settings
from hypothesis import strategies as st

from gradviz.app import main
from gradviz.plain.config.config import Config, ConfigError
from gradviz.plain.config.config_toml import from_mapping, parse_toml, to_toml


def call(*argv: str) -> int:
    try:
        return main(list(argv))
    except SystemExit as exc:
        return exc.code


def test_run_takes_every_new_flag_and_reports_it(tmp_path):
    out = tmp_path / "out"
    assert call("run", "--device", "cpu", "--steps", "2", "--batch-size", "16",
                "--strategy", "autograd-grad", "--edit-data", "2", "--detach", "1",
                "--detach-mode", "inference_mode", "--out", str(out), "--quiet") == 3
    report = json.loads((out / "report.json").read_text())
    config = report["config"]
    assert (config["strategy"], config["edit_data"], config["detach_mode"]) == \
        ("autograd-grad", 2, "inference_mode")
    assert "torch.inference_mode()" in report["events"][0]["title"]
    assert call("run", "--device", "cpu", "--steps", "2", "--batch-size", "16",
                "--strategy", "backward-list", "--edit-data", "2", "--detach", "1",
                "--out", str(out), "--quiet") == 0
    report = json.loads((out / "report.json").read_text())
    assert [s["trunk_walks"] for s in report["steps"]] == [1, 1]


def test_run_with_inference_mode_under_separate_is_exit_3_explained(tmp_path, capsys):
    assert call("run", "--device", "cpu", "--steps", "2", "--batch-size", "16",
                "--strategy", "separate", "--detach", "0", "--detach-mode",
                "inference_mode", "--quiet") == 3
    assert "does not require grad" in capsys.readouterr().err


def test_compare_says_same_for_one_pass_and_different_for_edit_data(tmp_path, capsys):
    a = toml(tmp_path, "sum.toml", 'strategy = "sum"\n')
    one_pass = toml(tmp_path, "list.toml", 'strategy = "backward-list"\n')
    by_hand = toml(tmp_path, "grad.toml", 'strategy = "autograd-grad"\n')
    edited = toml(tmp_path, "data.toml", "edit-data = 0\n")
    assert call("compare", a, one_pass, "--steps", "2", "--batch-size", "16") == 0
    assert call("compare", a, by_hand, "--steps", "2", "--batch-size", "16") == 0
    assert call("compare", a, edited, "--steps", "2", "--batch-size", "16") == 1
    assert "verdict: different" in capsys.readouterr().out
    # a flag applies to both sides: a detached head 1 in both, the same gradients; under
    # no_grad, autograd.backward's list refuses head 1's loss where the sum takes it
    assert call("compare", a, one_pass, "--steps", "1", "--batch-size", "16",
                "--detach", "1") == 0
    assert call("compare", a, one_pass, "--steps", "1", "--batch-size", "16",
                "--detach-mode", "no_grad", "--detach", "1") == 3
    assert "B stopped at step 0: This loss was computed under torch.no_grad()" in \
        capsys.readouterr().out


def test_toml_keys_round_trip():
    cfg = Config(strategy="autograd-grad", edit_data=1, detach=(2,),
                 detach_mode="inference_mode")
    assert from_mapping(parse_toml(to_toml(cfg))) == cfg
    assert from_mapping(parse_toml('edit_data = 0\nstrategy = "backward-list"\n')) == \
        Config(edit_data=0, strategy="backward-list")


@pytest.mark.parametrize("argv, words", [
    (["--strategy", "backward_list"], "invalid choice"),
    (["--detach-mode", "nograd"], "invalid choice"),
    (["--edit-data", "x"], "invalid int value"),
    (["--edit-data", "3"], "edit-data names head 3, but heads are 0..2"),
])
def test_a_bad_flag_is_one_line_and_exit_2(argv, words, capsys):
    assert call("run", "--device", "cpu", "--steps", "1", *argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and words in err


@settings(max_examples=150, deadline=None, database=None)
@given(st.one_of(st.integers(), st.floats(), st.text(max_size=20), st.booleans(),
                 st.lists(st.integers(), max_size=3)))
def test_any_edit_data_value_is_a_head_or_a_one_line_error(value):
    try:
        cfg = from_mapping({"edit-data": value}, Config(heads=3))
    except ConfigError as exc:
        assert "\n" not in str(exc) and "edit-data" in str(exc)
    else:
        assert type(value) is int and 0 <= value < 3 and cfg.edit_data == value


@settings(max_examples=150, deadline=None, database=None)
@given(st.text(max_size=20), st.text(max_size=20))
def test_any_strategy_or_detach_mode_word_is_known_or_one_line(strategy, mode):
    for key, value in (("strategy", strategy), ("detach-mode", mode)):
        try:
            from_mapping({key: value})
        except ConfigError as exc:
            assert "\n" not in str(exc) and key in str(exc)
        else:
            assert value in ("sum", "separate", "in-loop", "backward-list", "autograd-grad",
                             "detach", "detach_", "no_grad", "inference_mode")
