"""A model file whose build() never returns, or asks for more memory than the machine
has (issue 22), driven in a real two-process window: the window lives on and answers.
A build that runs on is shown as such, for as long as it runs (no clock calls it
failed), beside "Stop building", which ends the engine and goes back to the model from
before, saying so in one line; a build that allocates too much fails inside build()
under the engine's memory ceiling, and What happened shows the file's own line. (Going
back to the model file from before, and the words said:
tests/qt/test_engine_client_protocol.py, on a fake engine.) Linux only: /proc and
RLIMIT_AS are Linux's."""
import textwrap
from pathlib import Path

from PySide6.QtCore import Qt

from gradviz.engine import protocol as p

from waits import WAIT_MS, on_record

# its build() never returns (a loop with no end, as a wrong `while` makes one)
HANGS = textwrap.dedent("""\
    import torch


    def build(seed):
        while True:
            pass
    """)
# its build() asks for 8 GiB at once, as a mistyped size does
TOO_BIG = textwrap.dedent("""\
    import torch
    import torch.nn.functional as F
    from torch import nn


    def build(seed):
        table = torch.empty(8 << 30, dtype=torch.uint8)
        return {"trunk": nn.Linear(4, 4), "heads": [nn.Linear(4, 1)],
                "losses": [F.mse_loss], "batch": None}
    """)
# the engine's ceiling: 1 GiB more than it has when the build starts (by default, what
# the machine has free); 8 GiB is granted without one (and never touched)
CEILING_ENV = ("GRADVIZ_BUILD_MEMORY_MB", "1024")


def _gone(pid: int) -> bool:
    return not Path(f"/proc/{pid}").exists()


def _wait_building(qtbot, w, name: str) -> None:
    """The status line says the file is building, its seconds going up (the window reads
    the engine's beats and repaints: it answers), and Stop building is offered."""
    lines: list[str] = []
    on_record(w.engine, p.Notice,
              lambda r: lines.append(r.text) if r.text.startswith("Building") else None)
    qtbot.waitUntil(lambda: len(set(lines)) >= 2, timeout=WAIT_MS)
    assert all(f"Building the model file {name}" in line for line in lines)
    assert w.build_stop.button.isVisible() and name in w.phase_label.text()


def _stop(qtbot, w, name: str, back: str) -> None:
    hung = w.engine.pid
    qtbot.mouseClick(w.build_stop.button, Qt.LeftButton)
    line = f"Stopped building the model file {name}; training {back} instead."
    assert line in w.phase_label.text()
    # the engine that ran the loop is ended, not left spinning (reaped: a busy machine
    # may take a moment to take a killed process off its table)
    qtbot.waitUntil(lambda: _gone(hung), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: line in w.events_view.text(), timeout=WAIT_MS)
    assert not w.build_stop.button.isVisible()


def a_hung_build_is_stopped_and_one_too_big_shows_its_line(qtbot, w, tmp_path: Path) -> None:
    """w: the app's window opened on HANGS (`gradviz --model hangs.py`, never having had a
    model), with CEILING_ENV set."""
    _wait_building(qtbot, w, "hangs.py")
    assert w.model.generation == 0 and w.engine.alive   # still building: nothing failed
    _stop(qtbot, w, "hangs.py", "the built-in model")
    qtbot.waitUntil(lambda: w.model.generation >= 1, timeout=WAIT_MS)
    assert w.model.model_name == "" and w.model.model_path is None
    assert [label.text for _, label in w.loss_plot.legend.items][0] == "head0"
    _too_big_shows_its_line(qtbot, w, tmp_path)


def _too_big_shows_its_line(qtbot, w, tmp_path: Path) -> None:
    """A file whose build allocates too much, opened next: its line in What happened,
    and the built-in model trains on in the same engine."""
    model = tmp_path / "too_big.py"
    model.write_text(TOO_BIG)
    w.engine.open_model(str(model))   # as File → Open model… does once the user agreed
    line = TOO_BIG.splitlines().index(
        "    table = torch.empty(8 << 30, dtype=torch.uint8)") + 1
    qtbot.waitUntil(lambda: f"too_big.py:{line}" in w.events_view.text(), timeout=WAIT_MS)
    text = w.events_view.text()
    assert "allocate" in text and "more memory than gradviz lets" in text
    assert "torch.empty(8 &lt;&lt; 30" in text or "torch.empty(8 << 30" in text
    assert w.engine.alive and w.model.model_name == ""   # the built-in model trains
    pid = w.engine.pid
    qtbot.keyClick(w, Qt.Key_Space)
    qtbot.waitUntil(lambda: len(w.history) >= 3, timeout=WAIT_MS)
    assert w.engine.pid == pid   # the same engine: it never died
