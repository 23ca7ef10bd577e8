"""A watched script killed mid-run leaves its finished steps readable: by default every
one (each step's line is written before step() returns); with write_every=S every step
that ended more than S seconds before the kill, whole and in order (a cut last line is
never read)."""
from __future__ import annotations

import signal
import subprocess
import sys
import textwrap

import torch

import gradviz
from gradviz.core.watch import WRITE_BLOCKS_S
from gradviz.plain.run_files.watch_read import StreamReader
from gradviz.plain.runs.watch_summary import summary_lines

SCRIPT = textwrap.dedent("""
    import os, signal, sys, threading
    import torch
    import gradviz
    from gradviz.plain.run_files.step_file import StepFile
    flushed = threading.Event()   # set each time the lines kept are written
    write = StepFile.flush
    def flush(self):
        write(self)
        flushed.set()
    StepFile.flush = flush
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Linear(4, 2))
    with gradviz.watch(model, out=sys.argv[1], every=2,
                       write_every=float(sys.argv[3])) as watch:
        for step in range(10):
            out = model(torch.randn(3, 4))
            losses = {"a": out[:, 0].pow(2).mean(), "b": out[:, 1].abs().mean()}
            watch.losses(losses)
            sum(losses.values()).backward()
            watch.step()
            if step == 4:
                if sys.argv[2] == "now":
                    os.kill(os.getpid(), signal.SIGKILL)
                flushed.clear()   # the writer's next block, with no step after this one
                assert flushed.wait(60)
                print("5 steps written", flush=True)
                sys.stdin.readline()   # the loop stops here until killed
""")


def _killed_at_once(folder, write_every: float) -> StreamReader:
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(folder), "now",
                           str(write_every)], timeout=120)
    assert done.returncode == -9
    return StreamReader(folder)


def test_killed_script_keeps_every_finished_step(tmp_path):
    reader = _killed_at_once(tmp_path, 0)
    records = reader.read()
    assert [r.step for r in records] == [0, 1, 2, 3, 4]
    assert not reader.finished and reader.header is not None
    # its process is gone: no step will come, and the folder says so
    assert reader.stopped
    assert summary_lines(tmp_path)[0] == ("run: 5 steps (0 to 4); stopped without "
                                          "finishing (its process is gone)")
    assert reader.header["param_names"] == ["0.weight", "0.bias", "1.weight", "1.bias"]


def test_written_in_blocks_a_stopped_loop_s_steps_reach_the_file_and_survive_a_kill(
        tmp_path):
    """The loop stops after its fifth step (a hung data loader, an evaluation) and is
    then killed: the five lines were written meanwhile, without another step."""
    child = subprocess.Popen([sys.executable, "-c", SCRIPT, str(tmp_path), "wait",
                              str(WRITE_BLOCKS_S)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        # the child says so once its writer has written a block after the fifth step
        assert child.stdout is not None and child.stdout.readline() == "5 steps written\n"
        alive = StreamReader(tmp_path)
        alive.read()
        assert not alive.stopped   # its script waits, alive: the steps may go on
        child.send_signal(signal.SIGKILL)
    finally:
        child.kill()
        child.wait(timeout=60)
    reader = StreamReader(tmp_path)
    assert [r.step for r in reader.read()] == [0, 1, 2, 3, 4]
    assert not reader.finished and reader.header is not None


def test_written_in_blocks_a_kill_right_after_a_step_keeps_whole_steps_in_order(tmp_path):
    """Killed at once after its fifth step: what is in the file is steps 0, 1, ... in
    order, each whole (the last block's steps may be missing, never garbled)."""
    reader = _killed_at_once(tmp_path, WRITE_BLOCKS_S)
    steps = [r.step for r in reader.read()]
    assert steps == list(range(len(steps))) and len(steps) <= 5
    assert not reader.finished and reader.header is not None


def test_flush_puts_every_finished_step_in_the_file_at_once(tmp_path):
    model = torch.nn.Linear(3, 2)
    with gradviz.watch(model, out=tmp_path, write_every=WRITE_BLOCKS_S) as watch:
        reader = StreamReader(tmp_path)
        for step in range(3):
            out = model(torch.ones(4, 3))
            watch.losses({"a": out[:, 0].mean(), "b": out[:, 1].pow(2).mean()})
            (out[:, 0].mean() + out[:, 1].pow(2).mean()).backward()
            watch.step()
            watch.flush()
            assert [r.step for r in reader.read()] == [step]
