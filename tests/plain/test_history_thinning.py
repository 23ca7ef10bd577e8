"""A long run's history stays within its bound: past it, a row every 2nd, 4th... step,
evenly spread, the newest step's numbers still the newest, and the window and the
report say so."""
from __future__ import annotations

import numpy as np

from gradviz.plain.run_files.history_thinning import MAX_CELLS, bounded_history, row_bound
from gradviz.plain.run_files.watch_read import FolderFollower
from gradviz.plain.runs.recorded_run import RecordedRun

from run_folder_lines import EVERY, write_stream

ROWS = 1024


def test_a_long_run_keeps_every_8th_step_within_the_bound(tmp_path):
    write_stream(tmp_path, 5000)
    follower = FolderFollower(tmp_path, max_rows=ROWS)
    assert follower.read() == 5000
    history = follower.histories[""]
    steps = history.column("step")
    # 1024 rows: every other kept at steps 1024, 2048, 4096; then a row every 8th step
    assert history.kept_every == 8 and len(history) == 625 < ROWS
    assert np.array_equal(steps, np.arange(0, 5000, 8))
    assert history.last is not None and history.last.step == 4999   # the newest, no row
    newest_sampled = 4999 // EVERY * EVERY
    assert history.last_cosine is not None and history.fingerprint_steps[-1] == 4960
    assert history.fingerprint_steps == [s for s in range(0, 5000, 40)]   # rows' only
    assert np.array_equal(history.last_cosine,
                          np.array(follower.readers[""].last_pushed.cosine))
    assert follower.readers[""].last_pushed.step == newest_sampled


def test_the_window_gets_the_thinned_history_as_fresh_and_says_so(tmp_path, monkeypatch):
    import gradviz.plain.runs.recorded_run as recorded
    write_stream(tmp_path, 1500)
    monkeypatch.setattr(recorded, "FolderFollower",
                        lambda folder: FolderFollower(folder, max_rows=ROWS))
    run = RecordedRun(tmp_path)
    polled = run.poll()
    assert polled.fresh and run.history is not None and run.history.kept_every == 2
    assert run.status() == (f"{tmp_path}: Net, 1,500 steps (0 to 1499; charts: every 2nd "
                            "step); finished")


def test_a_history_of_many_names_holds_fewer_rows():
    names = [f"n{i}" for i in range(16384)]   # what a 1 MiB line can name
    rows = row_bound(len(names), len(names))
    history = bounded_history(names, names)
    width = sum(a.size // a.shape[0] for a in history._data.values())
    assert rows == 16 and 2 * rows * width <= 2 * MAX_CELLS
    assert history._data["step"].shape[0] <= 2 * rows
    assert row_bound(3, 10) == 1 << 16   # the default model's: every row it may keep
