"""Nothing gradviz starts outlives it: a model file that starts `sleep 1000` with
subprocess and a multiprocessing worker leaves none of them running once `gradviz run`
has ended, nor once the window has quit (its engine, B's process and what each
started). /proc tells which of them still run."""
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from test_isolation import APP  # the app with B pinned, then quit

from gradviz.engine import protocol as p
from gradviz.engine.b_runner import ProcessB
from gradviz.engine.child import child_command
from gradviz.exit_codes import EXIT_LEFT_RUNNING
from gradviz.plain.config.config import Config

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads Linux's /proc")

QUIT_SECONDS = 1.0   # what may pass between quitting and the last child's end
MODEL = textwrap.dedent("""
    import multiprocessing, os, subprocess, time
    import torch
    import torch.nn.functional as F
    from torch import nn

    def build(seed):
        sleeper = subprocess.Popen(["sleep", "1000"])
        worker = multiprocessing.Process(target=time.sleep, args=(1000,))
        worker.start()
        with open(os.path.join({marks!r}, str(os.getpid())), "a") as f:
            f.write(f"{{sleeper.pid}} {{worker.pid}}\\n")
        def batch(step, batch_size, generator):
            x = torch.randn(batch_size, 4, generator=generator)
            return x, [x[:, :2], x[:, 2:]]
        return {{"trunk": nn.Linear(4, 8), "heads": [nn.Linear(8, 2), nn.Linear(8, 2)],
                "losses": [F.mse_loss, F.mse_loss], "batch": batch}}
    """)


@pytest.fixture
def spawning_model(tmp_path):
    marks = tmp_path / "marks"
    marks.mkdir()
    path = tmp_path / "spawner.py"
    path.write_text(MODEL.format(marks=str(marks)))
    return path, marks


def running(pid: int) -> bool:
    """Whether pid is a live process (a zombie has ended: only its reaping is due)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != b"Z"


def survivors(pids: list[int], within: float) -> list[int]:
    """The pids still running once `within` seconds have passed (sooner, once none is)."""
    deadline = time.monotonic() + within
    while True:
        alive = [pid for pid in pids if running(pid)]
        if not alive or time.monotonic() > deadline:
            return alive


def started(marks: Path) -> list[int]:
    """Every process the model file's builds started, and the processes that built it."""
    pids = []
    for mark in marks.iterdir():
        pids.append(int(mark.name))
        pids += [int(pid) for line in mark.read_text().split("\n") for pid in line.split()]
    return pids


def run_to_files(command: list[str], tmp_path: Path, timeout: float, **env):
    """(exit status, stdout, stderr) of command, its output in files: a child left
    running would hold a pipe open, and reading one to its end would wait for it."""
    with open(tmp_path / "out", "w+") as out, open(tmp_path / "err", "w+") as err:
        try:
            code = subprocess.run(command, cwd=tmp_path, stdout=out, stderr=err,
                                  timeout=timeout, env=dict(os.environ, **env)).returncode
        finally:
            out.seek(0)
            err.seek(0)
            text = out.read(), err.read()
    return code, *text


def test_gradviz_run_leaves_nothing_running(spawning_model, tmp_path):
    path, marks = spawning_model
    code, _, err = run_to_files(child_command("gradviz", "run", "--quiet", "--model",
                                              str(path), "--steps", "2", "--batch-size", "8"),
                                tmp_path, timeout=120)
    pids = started(marks)
    assert len(pids) == 5            # gradviz run; build(0) and build(seed): two of each
    assert code == EXIT_LEFT_RUNNING, err
    assert err.count("\n") == 1 and "spawner.py" in err and "left 4 processes running" in err
    assert survivors(pids, QUIT_SECONDS) == []


def test_the_window_its_engine_and_b_leave_nothing_running(spawning_model, tmp_path):
    path, marks = spawning_model
    script = tmp_path / "app.py"
    script.write_text(APP)
    code, out, err = run_to_files([sys.executable, "-I", str(script), str(path)], tmp_path,
                                  timeout=600, QT_QPA_PLATFORM="offscreen")
    assert code == 0, err[-2000:]
    engine = int(out.split()[1])
    builders = {int(mark.name) for mark in marks.iterdir()}
    assert engine in builders and len(builders) == 2      # the engine and B's process
    assert survivors(started(marks), QUIT_SECONDS) == []


def test_unpinning_b_ends_what_its_model_file_started(spawning_model):
    """B unpinned while A's engine goes on: B's process and what its model file
    started end then, not when the engine ends."""
    path, marks = spawning_model
    b = ProcessB()
    try:
        assert isinstance(b.reset(Config(batch_size=8, heads=2), str(path)), p.BPending)
        assert isinstance(b.reply(), p.BReady)
    finally:
        b.close()
    pids = started(marks)
    assert len(pids) == 3            # B's process, and the sleeper and worker it started
    assert survivors(pids, QUIT_SECONDS) == []


# a lesson paged as a lecturer pages it, in the app with its engine in its own process:
# the engine started ahead for the next slide is the one PageDown then trains with; one
# that no slide takes (the lesson left) ends then; the DDP ranks started ahead for the
# next slide end with the app
AHEAD = """
import os, tempfile
from PySide6.QtWidgets import QApplication
from gradviz.engine.child import descendants
from gradviz.plain.config.config import Config
from gradviz.plain.lessons.lessons import find_lesson
from gradviz.qt.main_window import MainWindow
from gradviz.qt.settings import AppSettings, Remembered
app = QApplication([])
w = MainWindow(Remembered(Config()), AppSettings(os.path.join(tempfile.mkdtemp(), "s.json")))
w.show()
def until(done):
    while not done():
        app.processEvents()
def moved_and_next_ready():
    until(lambda: w.model.preparing is None and w.model.next_slide_ready)
until(lambda: w.model.generation >= 1)
lessons = w.lessons.player
lessons.open(find_lesson("aggregate-conflicts"), 3)   # next: 14/1, on a model file
moved_and_next_ready()
ahead = w.engine.prepared_pid
lessons.next()
until(lambda: w.model.model_name == "cnn_two_heads.py" and w.model.preparing is None)
print("taken", ahead, w.engine.pid, flush=True)
lessons.next()                                          # 14/2; next: 15/1, the built-in model
moved_and_next_ready()
ahead = w.engine.prepared_pid
lessons.leave()
print("unused", ahead, w.engine.prepared_pid, os.path.exists(f"/proc/{ahead}"), flush=True)
lessons.open(find_lesson("ddp-accumulation"), 0)        # next: 15/2, on 2 DDP ranks
moved_and_next_ready()
print("ranks", w.engine.pid, *descendants(w.engine.pid), flush=True)
w.close()
"""


def test_engines_and_ranks_started_ahead_are_taken_or_end(tmp_path):
    script = tmp_path / "ahead.py"
    script.write_text(AHEAD)
    code, out, err = run_to_files([sys.executable, "-I", str(script)], tmp_path, timeout=600,
                                  QT_QPA_PLATFORM="offscreen")
    assert code == 0, err[-2000:]
    said = {line.split()[0]: [int(v) if v.isdigit() else v for v in line.split()[1:]]
            for line in out.splitlines()}
    ahead, engine = said["taken"]
    assert ahead == engine                       # PageDown trained in the engine started ahead
    unused, left, running_then = said["unused"]
    assert isinstance(unused, int) and left == "None"
    assert running_then == "False"               # ended when the lesson was left
    engine, *ranks = said["ranks"]
    assert len(ranks) == 2                       # the next slide's ranks, started ahead
    assert survivors([engine, *ranks], QUIT_SECONDS) == []
