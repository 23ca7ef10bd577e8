"""The real two-process app with an engine that stops getting anywhere (issue 31): a
model file's forward that never returns during Play is said after the long-busy limit
and one Reset ends it; an engine frozen by SIGSTOP is declared stopped after the
silence, not twice that, and a Reset pressed meanwhile starts the fresh engine it asked
for. A smoke test of the wiring: when each is decided, and a Reset pressed at each
moment, is tests/plain/test_engine_watch.py's (and the client's side of each decision,
test_engine_client_protocol.py's)."""
import os
import signal
import sys
import textwrap
import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from gradviz.engine import protocol as p
from gradviz.plain.config.config import Config
from gradviz.plain.window.engine_watch import LONG_BUSY_SECONDS

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
LONG_BUSY = 2.0   # seconds: the notice and Reset's patience, short for a quick test
SILENT = 3.0      # seconds: the silence that declares a frozen engine stopped, as short


def _gone(pid: int) -> bool:
    """pid has ended (a zombie not reaped yet has too)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def _play(qtbot, w, steps: int) -> None:
    """Play until `steps` more steps are shown."""
    before = len(w.history)
    qtbot.mouseClick(w.run_bar.play, Qt.LeftButton)
    qtbot.waitUntil(lambda: w.refresh() or len(w.history) >= before + steps,
                    timeout=WAIT_MS)


def _fresh_engine_trains(qtbot, w, old_pid: int, generation: int) -> None:
    """The old engine has ended, and a fresh one, paused at step 0, trains."""
    qtbot.waitUntil(lambda: w.engine.alive and w.model.generation > generation,
                    timeout=WAIT_MS)
    assert w.engine.pid != old_pid and not w.model.running
    qtbot.waitUntil(lambda: _gone(old_pid), timeout=WAIT_MS)
    _play(qtbot, w, 5)
    assert w.history.last.step >= 4


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _reset(qtbot, w) -> None:
    """R, once, on w: its keys are the active window's (two windows are open)."""
    w.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is w, timeout=WAIT_MS)
    qtbot.keyClick(w, Qt.Key_R)


def _notices(w) -> list[str]:
    """The Notices w's engine adapter hands on from now, as they come."""
    said: list[str] = []
    on_record(w.engine, p.Notice, lambda r: said.append(r.text))
    return said


def test_a_stuck_forward_and_a_frozen_engine_are_each_ended_by_one_reset(
        qtbot, make_window, tmp_path):
    """The wiring, with real processes (every moment's decision: test_engine_watch.py),
    in two windows at once, each its own engine process (independent: their waits
    overlap). A forward that never returns during Play is said after the long-busy
    limit, and one Reset ends it. An engine SIGSTOPped during Play and Reset at once is
    declared stopped after the silence (not twice it: the first look at its CPU time
    once counted as progress, 6.8 s for 3) and the Reset's fresh engine starts."""
    mark = tmp_path / "stuck.mark"
    model = tmp_path / "stuck.py"
    model.write_text(STUCK_FORWARD.format(mark=str(mark), never_returns=SPINS))
    stuck = make_window(Config(device="cpu", batch_size=16), model_path=model,
                        in_process=False)
    frozen = make_window(Config(device="cpu", batch_size=16), in_process=False)
    stuck.engine.watch.long_busy_s, stuck.engine.watch.silent_s = LONG_BUSY, SILENT
    # the frozen one's Reset waits its patience, longer than the silence here: the
    # silence ends the engine, and the fresh engine is the one the Reset asked for
    frozen.engine.watch.long_busy_s = LONG_BUSY_SECONDS
    frozen.engine.watch.silent_s = SILENT
    said, frozen_said = _notices(stuck), _notices(frozen)
    failed: list[float] = []
    on_record(frozen.engine, p.Failed, lambda _r: failed.append(time.monotonic()))
    qtbot.mouseClick(stuck.run_bar.play, Qt.LeftButton)
    _play(qtbot, frozen, 5)
    pid, generation = frozen.engine.pid, frozen.model.generation
    os.kill(pid, signal.SIGSTOP)
    stopped_at = time.monotonic()
    try:
        _reset(qtbot, frozen)                            # once
        _stuck_forward_said_and_reset(qtbot, stuck, mark, said)
        qtbot.waitUntil(lambda: bool(failed), timeout=WAIT_MS)
        # its last beat came at most a beat before the stop; the window looks twice a
        # second, and ending the process takes a moment
        assert failed[0] - stopped_at < SILENT + 1.5
        said_of_it = "gradviz ended the training engine after it answered nothing for 3 s"
        qtbot.waitUntil(lambda: said_of_it in frozen.events_view.text(), timeout=WAIT_MS)
        assert "memory" not in frozen.events_view.text()   # its kill was the window's
        assert any(text.startswith("Starting a fresh training engine, as Reset asked, ")
                   for text in frozen_said)
        _fresh_engine_trains(qtbot, frozen, pid, generation)
    finally:
        _kill(pid)


def _stuck_forward_said_and_reset(qtbot, w, mark: Path, said: list[str]) -> None:
    """Playing w, its forward sticks: said during Play after the long-busy limit; one
    Reset ends that engine, and the fresh one trains (the mark: it sticks no more)."""
    qtbot.waitUntil(mark.exists, timeout=WAIT_MS)
    del said[:]   # what a slow batch before the stuck one may have said is not it
    long_step = "has worked on this for"
    qtbot.waitUntil(lambda: any(long_step in line for line in said), timeout=WAIT_MS)
    line = next(line for line in said if long_step in line)
    assert line.endswith("s and is still going: press Reset (R) to stop it.")
    assert w.model.running and w.engine.alive            # said during Play
    pid, generation = w.engine.pid, w.model.generation
    _reset(qtbot, w)                                     # once
    assert any(text.startswith("Reset ended the training engine, which had not "
                               "answered for ") for text in said)
    _fresh_engine_trains(qtbot, w, pid, generation)
