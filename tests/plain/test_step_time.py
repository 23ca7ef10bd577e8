"""A step's wall time and its cosine matrix, as a recording holds them: read back into
the History's columns (NaN where a step has none), a matrix of the wrong shape left
out."""
from __future__ import annotations

import numpy as np

from gradviz.plain.records.history import History
from gradviz.plain.records.records import StepRecord
from gradviz.plain.run_files.watch_stream import StreamWriter
from gradviz.plain.runs.recorded_run import RecordedRun


def test_a_recording_s_times_and_cosines_reach_the_history(tmp_path):
    writer = StreamWriter(tmp_path, {"param_names": ["w"]}).open()
    cosines = [[[1.0, -0.5], [-0.5, 1.0]], None, [[1.0, None], [None, 1.0]]]
    for s, (t, c) in enumerate(zip([100.0, None, 102.5], cosines)):
        writer.add_step(StepRecord(step=s, losses={"a": 1.0, "b": 2.0}, total=3.0,
                                   grad_norms={"w": 0.5}, global_grad_norm=0.5,
                                   cosine=c), 1, wall_time=t)
    run = RecordedRun(tmp_path)
    run.poll()
    history = run.history
    assert history is not None
    np.testing.assert_array_equal(history.column("wall_time"), [100.0, np.nan, 102.5])
    cos = history.column("cosine_pairs")   # two losses: one pair
    assert cos.shape == (3, 1) and cos[0, 0] == -0.5
    assert np.isnan(cos[1]).all()              # not sampled
    assert np.isnan(cos[2, 0])                 # null: a zero gradient's


def test_each_pair_once_in_row_order_and_another_shape_left_out():
    h = History(["a", "b", "c"], [])
    m = [[1.0, 0.1, 0.2], [0.1, 1.0, 0.3], [0.2, 0.3, 1.0]]
    h.append(StepRecord(step=0, losses=dict.fromkeys("abc", 1.0), total=3.0, cosine=m))
    h.append(StepRecord(step=1, losses=dict.fromkeys("abc", 1.0), total=3.0,
                        cosine=[[1.0, 0.2, 0.3]]))
    pairs = h.column("cosine_pairs")
    assert list(pairs[0]) == [0.1, 0.2, 0.3]   # (a, b), (a, c), (b, c)
    assert np.isnan(pairs[1]).all()


def test_many_losses_keep_no_pairs():
    names = [f"n{i}" for i in range(9)]
    h = History(names, [])
    h.append(StepRecord(step=0, losses=dict.fromkeys(names, 1.0), total=9.0,
                        cosine=np.eye(9).tolist()))
    assert h.column("cosine_pairs").shape == (1, 0)
