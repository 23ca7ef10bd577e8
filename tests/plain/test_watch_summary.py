"""`gradviz report DIR`'s lines: steps, last losses, missing gradients, ranks agreeing."""
from __future__ import annotations

import pytest

from gradviz.app import main
from gradviz.plain.records.records import StepRecord
from gradviz.plain.run_files.watch_stream import StreamWriter
from gradviz.plain.runs.watch_summary import summary_lines


def _write(folder, norms_by_step, finished=True, micro=1):
    writer = StreamWriter(folder, {"param_names": ["w", "v"]}).open()
    for step, w in enumerate(norms_by_step):
        writer.add_step(StepRecord(step=step, losses={"a": 0.5, "b": 2.0}, total=2.5,
                                   grad_norms={"w": w, "v": None}, global_grad_norm=w,
                                   junction_grad_norms={"a": 0.25, "b": 1.5}
                                   if step == 0 else None), micro)
    if finished:
        writer.close(len(norms_by_step))


def test_one_stream(tmp_path):
    _write(tmp_path, [1.0, 2.0], finished=False, micro=3)
    lines = summary_lines(tmp_path)
    assert lines[0] == ("run: 2 steps (0 to 1), 3 losses() calls per step (accumulation); "
                        "still being written")
    assert lines[1] == "  last losses: a 0.5, b 2 (total 2.5); global grad norm 2"
    assert lines[2] == "  no gradient (.grad None) at the last step: v"
    assert lines[3] == "  push at the features (step 0): a 0.25, b 1.5"


@pytest.mark.parametrize("other, verdict", [
    ([1.0, 2.0], "ranks agree: equal gradient norms at all 2 steps they share (norms "
              "only: no gradient fingerprints recorded)"),
    ([1.0, 2.5], "ranks disagree: step 1, w: gradient norm rank-0 2, rank-1 2.5 (after "
              "DDP's all-reduce every rank's gradient would be the same)")])
def test_ranks_agree_or_not(tmp_path, capsys, other, verdict):
    _write(tmp_path / "rank-0", [1.0, 2.0])
    _write(tmp_path / "rank-1", other)
    assert main(["report", str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{tmp_path}: 2 ranks (rank-0, rank-1)" and out[-1] == verdict


def test_a_folder_without_a_run_is_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["report", str(tmp_path)])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.count("\n") == 1
