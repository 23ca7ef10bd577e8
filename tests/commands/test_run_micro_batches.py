"""`gradviz run` with the settings of accumulation that is not the full batch: a flag
for the sizes (or for accumulate) replaces what a config file said of both."""
import json

import pytest

from gradviz.app import main


@pytest.mark.parametrize("file, flags, accumulate, sizes", [
    ("accumulate = 4\n", ["--micro-batch-sizes", "40,24"], 2, [40, 24]),
    ("micro-batch-sizes = [40, 8, 8, 8]\n", ["--accumulate", "2"], 2, []),
    ("micro-batch-sizes = [40, 8, 8, 8]\n", [], 4, [40, 8, 8, 8]),
])
def test_a_flag_for_either_key_replaces_the_files_both(tmp_path, file, flags, accumulate,
                                                       sizes):
    (tmp_path / "c.toml").write_text(file)
    out = tmp_path / "out"
    assert main(["run", "--config", str(tmp_path / "c.toml"), "--device", "cpu", "--steps",
                 "1", "--quiet", "--out", str(out), *flags]) == 0
    config = json.loads((out / "report.json").read_text())["config"]
    assert config["accumulate"] == accumulate and config["micro_batch_sizes"] == sizes


@pytest.mark.parametrize("flags, words", [
    (["--micro-batch-sizes", "40,8"], "micro-batch-sizes add up to 48, not batch-size 64"),
    (["--scale-by", "sum"], "invalid choice: 'sum'"),
    (["--clip", "0"], "clip must be greater than 0"),
    (["--clip-at", "epoch"], "invalid choice: 'epoch'"),
    (["--batch-norm", "--model", "rnn"], "the rnn has none"),
])
def test_bad_values_are_exit_2_in_one_line(capsys, flags, words):
    with pytest.raises(SystemExit) as exit_:
        main(["run", "--steps", "1", *flags])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and words in err
