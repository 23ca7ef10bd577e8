"""Whether ranks hold the same gradient: norms at every shared step, and the gradient
fingerprints a watch records on its sampled steps. Ranks whose norms agree but whose
fingerprints do not (a gradient with its sign flipped) disagree; a fingerprint carries
through a stream's line and back."""
from __future__ import annotations

import json

from gradviz.plain.records.records import StepRecord
from gradviz.plain.run_files.folder_records import convert_step
from gradviz.plain.run_files.watch_read import FolderFollower, StreamReader
from gradviz.plain.run_files.watch_stream import STEPS, StreamWriter
from gradviz.plain.runs.rank_agreement import gradient_line
from gradviz.plain.runs.recorded_run import RecordedRun
from gradviz.plain.runs.watch_summary import summary_lines

NORMS = {"w": 0.5, "v": 2.0}
# a made-up fingerprint per parameter: two projections, each at most its norm in size
PRINTS = {"w": [0.125, -0.25], "v": [1.5, 0.75]}


def record_from_dict(data: dict) -> StepRecord:
    """A report step (steps.jsonl's, parsed) back as a StepRecord, checked as a line is."""
    return convert_step(data).record()


def _record(step: int, prints: dict | None, sign: float = 1.0) -> StepRecord:
    """A watched step; with prints, a sampled one (which also measured saved bytes)."""
    return StepRecord(step=step, losses={"a": 1.0}, total=1.0, grad_norms=dict(NORMS),
                      global_grad_norm=(0.5 ** 2 + 2.0 ** 2) ** 0.5,
                      saved_bytes=None if prints is None else 4096,
                      grad_fingerprint=None if prints is None else {
                          p: None if xs is None else [sign * x for x in xs]
                          for p, xs in prints.items()})


def _ranks(tmp_path, steps: int = 30, every: int = 20, sign_one: float = 1.0,
           flipped_from: int = 0, prints: dict | None = PRINTS) -> FolderFollower:
    """Two ranks with equal norms at every step and fingerprints on steps 0, every...;
    rank-1's negated from step flipped_from on."""
    for rank in (0, 1):
        writer = StreamWriter(tmp_path / f"rank-{rank}", {"param_names": list(NORMS)}).open()
        for step in range(steps):
            sign = sign_one if rank == 1 and step >= flipped_from else 1.0
            writer.add_step(_record(step, prints if step % every == 0 else None, sign), 1)
        writer.close(steps)
    follower = FolderFollower(tmp_path)
    follower.read()
    return follower


def test_equal_norms_and_fingerprints_agree_and_say_what_was_compared(tmp_path):
    line = gradient_line(_ranks(tmp_path).histories)
    assert line == ("ranks agree: equal gradient norms at all 30 steps they share, "
                    "equal gradient fingerprints at 2 sampled steps")


def test_a_negated_fingerprint_with_equal_norms_disagrees(tmp_path):
    line = gradient_line(_ranks(tmp_path, sign_one=-1.0).histories)
    assert line == ("ranks disagree: rank-1's gradient differs from rank-0's at step 0 "
                    "(w): same norm, different direction (after DDP's all-reduce every "
                    "rank's gradient would be the same)")


def test_the_first_differing_sampled_step_is_named(tmp_path):
    line = gradient_line(_ranks(tmp_path, sign_one=-1.0, flipped_from=5).histories)
    assert "differs from rank-0's at step 20 (w): same norm" in line


def test_a_difference_within_the_tolerance_of_the_norm_agrees(tmp_path):
    # 1e-7 of w's norm apart: a different summation order's last digits
    first = _ranks(tmp_path / "a").histories
    assert gradient_line(first).startswith("ranks agree")
    history = first["rank-1"]
    history.fingerprints[0][0, 0] += 0.5e-7
    assert gradient_line(first).startswith("ranks agree")
    history.fingerprints[0][0, 0] += 1e-6   # past AGREE_RTOL (1e-6) of the norm 0.5
    assert gradient_line(first).startswith("ranks disagree: rank-1's gradient differs")


def test_without_fingerprints_the_line_says_it_compared_norms_only(tmp_path):
    # as older streams and `gradviz run --out` reports are; a sign flip would pass
    line = gradient_line(_ranks(tmp_path, steps=3, sign_one=-1.0, prints=None).histories)
    assert line == ("ranks agree: equal gradient norms at all 3 steps they share "
                    "(norms only: no gradient fingerprints recorded)")


def test_report_and_window_lines_name_the_flipped_rank(tmp_path, capsys):
    _ranks(tmp_path, steps=3, sign_one=-1.0)
    want = ("ranks disagree: rank-1's gradient differs from rank-0's at step 0 (w): "
            "same norm, different direction (after DDP's all-reduce every rank's "
            "gradient would be the same)")
    assert summary_lines(tmp_path)[-1] == want
    run = RecordedRun(tmp_path)
    run.poll()
    assert run.rank_lines()[2] == want


def test_a_fingerprint_goes_through_a_line_and_back(tmp_path):
    record = _record(0, {"w": [0.125, float("nan")], "v": None})
    text = record.to_json()
    assert text == json.dumps(record.to_dict())
    assert json.loads(text)["grad_fingerprint"] == {"w": [0.125, None], "v": None}
    writer = StreamWriter(tmp_path, {"param_names": list(NORMS)}).open()
    writer.add_step(record, 1)
    writer.add_step(_record(1, None), 1)
    back = StreamReader(tmp_path).read()
    assert back[0].grad_fingerprint == {"w": [0.125, None], "v": None}
    assert back[1].grad_fingerprint is None
    # a step without one writes no key: its line is the one it always was
    assert "grad_fingerprint" not in (tmp_path / STEPS).read_text().splitlines()[1]
    assert record_from_dict(json.loads(text)).grad_fingerprint == back[0].grad_fingerprint
