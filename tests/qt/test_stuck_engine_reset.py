"""The real two-process app with an engine that stops getting anywhere (issue 31): a
model file's forward that never returns during Play is said after LONG_BUSY_SECONDS,
and one Reset ends it, pressed before that or after; an engine frozen by SIGSTOP is
declared stopped after SILENT_SECONDS, not twice that, and a Reset pressed meanwhile
starts the fresh engine it asked for."""
import os
import signal
import sys
import textwrap
import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from gradviz.engine import protocol as p
from gradviz.plain.config import Config
from gradviz.qt import engine_client

from waits import WAIT_MS, on_record

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="POSIX signals, and /proc for CPU time")

# a model file whose forward, on its 10th training batch, writes STUCK_MARK and never
# returns (in the first engine only: a fresh one finds the mark and trains on)
STUCK_FORWARD = textwrap.dedent("""\
    from pathlib import Path

    import time
    import torch
    import torch.nn.functional as F
    from torch import nn

    MARK = Path({mark!r})
    CALLS = [0]


    class Trunk(nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = nn.Linear(4, 8)

        def forward(self, x):
            CALLS[0] += 1
            if CALLS[0] > 10 and not MARK.exists():
                MARK.write_text("stuck")
                {never_returns}
            return torch.tanh(self.layer(x))


    def build(seed):
        torch.manual_seed(seed)

        def batch(step, batch_size, generator):
            x = torch.randn(batch_size, 4, generator=generator)
            return x, [x.sum(1, keepdim=True)]

        return {{"trunk": Trunk(), "heads": [nn.Linear(8, 1)], "losses": [F.mse_loss],
                "batch": batch}}
    """)
SPINS = "while True:\n                    pass"
SLEEPS = "time.sleep(10 ** 6)"
LONG_BUSY = 2.0   # seconds: the notice and Reset's patience, short for a quick test


def _gone(pid: int) -> bool:
    """pid has ended (a zombie not reaped yet has too)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def _notices(w) -> list[str]:
    said: list[str] = []
    on_record(w.engine, p.Notice, lambda r: said.append(r.text))
    return said


def _play(qtbot, w, steps: int) -> None:
    """Play until `steps` more steps are shown."""
    before = len(w.history)
    qtbot.mouseClick(w.run_bar.play, Qt.LeftButton)
    qtbot.waitUntil(lambda: w.refresh() or len(w.history) >= before + steps,
                    timeout=WAIT_MS)


def _stuck_window(qtbot, make_window, tmp_path, monkeypatch, never_returns: str):
    """A window on the real engine, playing a model file whose forward has just stuck."""
    monkeypatch.setattr(engine_client, "LONG_BUSY_SECONDS", LONG_BUSY)
    mark = tmp_path / "stuck.mark"
    model = tmp_path / "stuck.py"
    model.write_text(STUCK_FORWARD.format(mark=str(mark), never_returns=never_returns))
    w = make_window(Config(device="cpu", batch_size=16), model_path=model,
                    in_process=False)
    said = _notices(w)
    qtbot.mouseClick(w.run_bar.play, Qt.LeftButton)
    qtbot.waitUntil(mark.exists, timeout=WAIT_MS)
    return w, said


def _fresh_engine_trains(qtbot, w, old_pid: int, generation: int) -> None:
    """The stuck engine has ended, and a fresh one, paused at step 0, trains."""
    qtbot.waitUntil(lambda: w.engine.alive and w.model.generation > generation,
                    timeout=WAIT_MS)
    assert w.engine.pid != old_pid and not w.model.running
    qtbot.waitUntil(lambda: _gone(old_pid), timeout=WAIT_MS)
    _play(qtbot, w, 5)
    assert w.history.last.step >= 4


def test_a_forward_that_never_returns_during_play_is_said_and_one_reset_ends_it(
        qtbot, make_window, tmp_path, monkeypatch):
    w, said = _stuck_window(qtbot, make_window, tmp_path, monkeypatch, SPINS)
    long_step = "has worked on this for"
    qtbot.waitUntil(lambda: any(long_step in line for line in said), timeout=WAIT_MS)
    line = next(line for line in said if long_step in line)
    assert line.endswith("s and is still going: press Reset (R) to stop it.")
    assert w.model.running and w.engine.alive            # said during Play
    pid, generation = w.engine.pid, w.model.generation
    qtbot.keyClick(w, Qt.Key_R)                          # once
    assert any(text.startswith("Reset ended the training engine, which had not "
                               "answered for ") for text in said)
    _fresh_engine_trains(qtbot, w, pid, generation)


def test_a_reset_pressed_as_the_step_sticks_ends_it_without_a_second_one(
        qtbot, make_window, tmp_path, monkeypatch):
    """Pressed before the step has run LONG_BUSY_SECONDS: the engine cannot answer it,
    so it is ended once the step has run that long."""
    w, said = _stuck_window(qtbot, make_window, tmp_path, monkeypatch, SLEEPS)
    pid, generation = w.engine.pid, w.model.generation
    qtbot.keyClick(w, Qt.Key_R)                          # once, at once
    _fresh_engine_trains(qtbot, w, pid, generation)
    assert any(text.startswith("Reset ended the training engine") for text in said)


def _stopped(qtbot, w):
    """The window's engine, training, SIGSTOPped: (its pid, when it was stopped)."""
    _play(qtbot, w, 5)
    pid = w.engine.pid
    os.kill(pid, signal.SIGSTOP)
    return pid, time.monotonic()


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def test_a_frozen_engine_is_declared_stopped_after_the_silence_not_twice_it(
        qtbot, make_window, monkeypatch):
    silent = 3.0
    monkeypatch.setattr(engine_client, "SILENT_SECONDS", silent)
    w = make_window(Config(device="cpu", batch_size=16), in_process=False)
    failed: list[float] = []
    on_record(w.engine, p.Failed, lambda _r: failed.append(time.monotonic()))
    pid, stopped_at = _stopped(qtbot, w)
    try:
        qtbot.waitUntil(lambda: bool(failed), timeout=WAIT_MS)
    finally:
        _kill(pid)
    # its last beat came at most a beat before the stop; the window looks twice a
    # second, and ending the process takes a moment (the first look at its CPU time
    # counted as progress: 6.8 s for 3)
    assert failed[0] - stopped_at < silent + 1.5
    assert "showed no sign of life for 3 s" in w.events_view.text()
    assert not w.engine.alive


@pytest.mark.parametrize("silent, patience", [(3.0, 10.0), (20.0, LONG_BUSY)],
                         ids=["declared stopped first", "the Reset's patience first"])
def test_a_reset_pressed_while_the_engine_is_frozen_starts_a_fresh_one(
        qtbot, make_window, monkeypatch, silent, patience):
    monkeypatch.setattr(engine_client, "SILENT_SECONDS", silent)
    monkeypatch.setattr(engine_client, "LONG_BUSY_SECONDS", patience)
    w = make_window(Config(device="cpu", batch_size=16), in_process=False)
    generation = w.model.generation
    pid, _ = _stopped(qtbot, w)
    try:
        qtbot.keyClick(w, Qt.Key_R)                      # once
        _fresh_engine_trains(qtbot, w, pid, generation)
    finally:
        _kill(pid)
