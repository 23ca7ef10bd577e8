"""`gradviz compare` beside the full batch (accumulate 1): "same" where accumulation is
the full batch's gradient up to rounding, "different" where it is not (unequal parts
scaled by 1/N, BatchNorm, clipping per micro-batch). Why each is so in plain PyTorch:
tests/core/test_micro_batches.py."""
import json

import pytest

from gradviz.app import main

FULL = "accumulate = 1\n"


def run(*argv: str) -> int:
    try:
        return main(["compare", *argv])
    except SystemExit as exc:
        return exc.code


@pytest.mark.parametrize("a, b, status, verdict", [
    (FULL, "accumulate = 4\n", 0, "same gradients"),
    (FULL, 'micro-batch-sizes = [40, 8, 8, 8]\nscale-by = "size"\n', 0, "same gradients"),
    (FULL, "micro-batch-sizes = [40, 8, 8, 8]\n", 1, "different: "),
    (FULL + "batch-norm = true\n", "batch-norm = true\naccumulate = 4\n", 1, "different: "),
    (FULL + "clip = 0.5\n", 'accumulate = 4\nclip = 0.5\nclip-at = "step"\n', 0,
     "same gradients"),
    (FULL + "clip = 0.5\n", 'accumulate = 4\nclip = 0.5\nclip-at = "micro-batch"\n', 1,
     "different: trunk, head0, head1, head2 gradients differ"),
])
def test_compare_says_same_or_different_from_the_full_batch(tmp_path, capsys, a, b, status,
                                                            verdict):
    (tmp_path / "a.toml").write_text(a)
    (tmp_path / "b.toml").write_text(b)
    out = tmp_path / "out"
    assert run(str(tmp_path / "a.toml"), str(tmp_path / "b.toml"), "--device", "cpu",
               "--steps", "3", "--out", str(out)) == status
    assert f"verdict: {verdict}" in capsys.readouterr().out
    data = json.loads((out / "compare.json").read_text())
    assert data["same"] is (status == 0)


def test_sizes_as_a_flag_apply_to_both_and_a_file_accumulate_replaces_them(tmp_path, capsys):
    (tmp_path / "a.toml").write_text(FULL)
    (tmp_path / "b.toml").write_text("")
    out = tmp_path / "out"
    assert run(str(tmp_path / "a.toml"), str(tmp_path / "b.toml"), "--device", "cpu",
               "--steps", "2", "--micro-batch-sizes", "40,8,8,8", "--out", str(out)) == 1
    data = json.loads((out / "compare.json").read_text())
    assert data["a"]["accumulate"] == 1 and data["a"]["micro_batch_sizes"] == []
    assert data["b"]["accumulate"] == 4 and data["b"]["micro_batch_sizes"] == [40, 8, 8, 8]


def test_sizes_that_do_not_add_up_are_exit_2_in_one_line(tmp_path, capsys):
    (tmp_path / "a.toml").write_text(FULL)
    (tmp_path / "b.toml").write_text("micro-batch-sizes = [40, 8]\n")
    assert run(str(tmp_path / "a.toml"), str(tmp_path / "b.toml"), "--steps", "1") == 2
    err = capsys.readouterr().err.strip()
    assert err == "gradviz: micro-batch-sizes add up to 48, not batch-size 64"
