"""The Code panel and "Copy as script" on a model file (issue 22): the panel shows the
loop of the file's model (built by its build(), fed by its batch()), and the copied
script, run on its own in an isolated Python (`python -I`, nothing of gradviz on its
path), prints the very losses the window's engine trained."""
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QGuiApplication

from gradviz.plain.config import Config
from gradviz.qt.model_menu import example_path

from waits import WAIT_MS

STEPS = 3


def _step_once(qtbot, w) -> None:
    """Shift+Right, as a user single-steps: one whole step, then wait for it."""
    before = len(w.history)
    qtbot.keyClick(w, Qt.Key_Right, Qt.ShiftModifier)
    qtbot.waitUntil(lambda: len(w.history) > before, timeout=WAIT_MS)


def _printed(script: str, tmp_path: Path) -> list[list[float]]:
    """What the copied script prints, one row per step (its step number first), run in a
    child Python started isolated, from a folder that holds nothing of gradviz."""
    path = tmp_path / "copied.py"
    path.write_text(script)
    done = subprocess.run([sys.executable, "-I", str(path)], capture_output=True,
                          text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    return [[float(word) for word in line.split()] for line in done.stdout.splitlines()]


@pytest.mark.parametrize("config", [
    Config(device="cpu", steps=STEPS, batch_size=8),
    Config(device="cpu", steps=STEPS, batch_size=8, strategy="separate", accumulate=2,
           detach=(1,)),
], ids=["sum", "separate-accumulate-detach"])
def test_copy_as_script_of_a_model_file_prints_what_the_engine_trained(
        qtbot, make_window, tmp_path, config):
    path = example_path("deep_supervision")   # three heads at three depths (taps)
    w = make_window(config, model_path=path)
    qtbot.waitUntil(lambda: w.model.model_name == "deep_supervision.py", timeout=WAIT_MS)
    code = w.code_view.code()
    assert "MODEL_FILE.build(SEED)" in code and "MultiHeadNet" not in code
    for _ in range(STEPS):
        _step_once(qtbot, w)
    qtbot.mouseClick(w.code_view.script_button, Qt.LeftButton)
    script = QGuiApplication.clipboard().text()
    assert f"MODEL_PATH = {str(Path(path).resolve())!r}" in script
    assert "TAPS = [0, 1, 2]" in script and "import gradviz" not in script
    assert code in script   # the panel's loop is the script's, word for word
    rows = _printed(script, tmp_path)
    assert [row[0] for row in rows] == list(range(STEPS))
    losses, totals = w.history.column("losses"), w.history.column("total")
    for step, row in enumerate(rows):
        assert row[1:4] == list(losses[step]), f"step {step}"
        assert row[4] == totals[step], f"step {step}"


def test_back_on_the_built_in_model_the_panel_shows_its_loop(qtbot, make_window):
    w = make_window(Config(device="cpu"), model_path=example_path("cnn_two_heads"))
    qtbot.waitUntil(lambda: w.model.model_name == "cnn_two_heads.py", timeout=WAIT_MS)
    assert "MODEL_FILE.build(SEED)" in w.code_view.code()
    assert "TAPS =" not in w.code_view.script()   # one trunk output: no taps to write
    w.findChild(QAction, "builtInModelAction").trigger()
    qtbot.waitUntil(lambda: w.model.model_name == "" and w.engine.session is not None
                    and w.engine.session.spec is None, timeout=WAIT_MS)
    assert "MultiHeadNet" in w.code_view.code()
    assert "MODEL_FILE" not in w.code_view.script()
