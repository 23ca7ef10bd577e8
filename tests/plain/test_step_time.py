"""A step's wall time and its cosine matrix, as a recording holds them: written only
where set (every other step's line is the one it always was), read back into the
History's columns (NaN where a step has none), a matrix of the wrong shape left out."""
from __future__ import annotations

import json

import numpy as np

from gradviz.plain.history import History
from gradviz.plain.recorded_run import RecordedRun
from gradviz.plain.records import StepRecord
from gradviz.plain.watch_stream import StreamWriter


def test_wall_time_is_written_only_where_set():
    plain = StepRecord(step=0, losses={"a": 1.0}, total=1.0)
    timed = StepRecord(step=0, losses={"a": 1.0}, total=1.0, wall_time=1.7e9 + 0.25)
    assert "wall_time" not in plain.to_json()
    assert json.loads(timed.to_json())["wall_time"] == 1.7e9 + 0.25
    assert timed.to_json() == json.dumps(timed.to_dict())


def test_a_recording_s_times_and_cosines_reach_the_history(tmp_path):
    writer = StreamWriter(tmp_path, {"param_names": ["w"]}).open()
    cosines = [[[1.0, -0.5], [-0.5, 1.0]], None, [[1.0, None], [None, 1.0]]]
    for s, (t, c) in enumerate(zip([100.0, None, 102.5], cosines)):
        writer.add_step(StepRecord(step=s, losses={"a": 1.0, "b": 2.0}, total=3.0,
                                   grad_norms={"w": 0.5}, global_grad_norm=0.5,
                                   wall_time=t, cosine=c), 1)
    run = RecordedRun(tmp_path)
    run.poll()
    history = run.history
    assert history is not None
    np.testing.assert_array_equal(history.column("wall_time"), [100.0, np.nan, 102.5])
    cos = history.column("cosine")
    assert cos.shape == (3, 2, 2) and cos[0, 0, 1] == -0.5
    assert np.isnan(cos[1]).all()              # not sampled
    assert np.isnan(cos[2, 0, 1]) and cos[2, 0, 0] == 1.0   # null: a zero gradient's


def test_a_matrix_of_another_shape_is_left_out():
    h = History(["a", "b"], [])
    h.append(StepRecord(step=0, losses={"a": 1.0, "b": 1.0}, total=2.0,
                        cosine=[[1.0, 0.2, 0.3]]))
    assert np.isnan(h.column("cosine")).all()
