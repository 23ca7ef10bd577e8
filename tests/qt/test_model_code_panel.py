"""The Code panel and "Copy as script" on a model file (issue 22): the panel shows the
loop of the file's model (built by its build(), fed by its batch()), and the copied
script, run on its own in an isolated Python (`python -I`, nothing of gradviz on its
path), prints the very losses the window's engine trained."""
import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import QMessageBox

from gradviz.plain.config.config import Config
from gradviz.qt.model_menu import example_path

from model_question import Answer
from shared_window import fresh_run
from waits import WAIT_MS

STEPS = 3


def _step_once(qtbot, w) -> None:
    """Shift+Right, as a user single-steps: one whole step, then wait for it."""
    before = len(w.history)
    qtbot.keyClick(w, Qt.Key_Right, Qt.ShiftModifier)
    qtbot.waitUntil(lambda: len(w.history) > before, timeout=WAIT_MS)


RUN_EACH = """import runpy, sys
for path in sys.argv[1:]:
    print("--", flush=True)
    runpy.run_path(path, run_name="__main__")
"""


def _run_copied(scripts: list[str], tmp_path: Path) -> subprocess.Popen:
    """The copied scripts, each run as __main__ in turn, in one child Python started
    isolated (torch imported once), from a folder that holds nothing of gradviz: started,
    not awaited (the window goes on meanwhile)."""
    paths = []
    for i, script in enumerate(scripts):
        paths.append(tmp_path / f"copied{i}.py")
        paths[-1].write_text(script)
    return subprocess.Popen([sys.executable, "-I", "-c", RUN_EACH, *map(str, paths)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=tmp_path)


def _printed(child: subprocess.Popen) -> list[list[list[float]]]:
    """What each copied script printed, one row per step (its step number first)."""
    stdout, stderr = child.communicate(timeout=600)
    assert child.returncode == 0, stderr[-2000:]
    runs = stdout.split("--\n")[1:]
    return [[[float(word) for word in line.split()] for line in run.splitlines()]
            for run in runs]


CONFIGS = [
    Config(device="cpu", steps=STEPS, batch_size=8),
    Config(device="cpu", steps=STEPS, batch_size=8, strategy="separate", accumulate=2,
           detach=(1,)),
]   # a sum of the losses; separate backwards, accumulated, a head detached


def _trained_and_copied(qtbot, w, config, path) -> tuple[str, list, list]:
    """config trained STEPS steps on the model file at path; the copied script, and the
    losses and totals the engine trained."""
    fresh_run(qtbot, w, config)
    code = w.code_view.code()
    assert "MODEL_FILE.build(SEED)" in code and "MultiHeadNet" not in code
    for _ in range(STEPS):
        _step_once(qtbot, w)
    qtbot.mouseClick(w.code_view.script_button, Qt.LeftButton)
    script = QGuiApplication.clipboard().text()
    assert f"MODEL_PATH = {str(Path(path).resolve())!r}" in script
    assert "TAPS = [0, 1, 2]" in script and "import gradviz" not in script
    assert code in script   # the panel's loop is the script's, word for word
    return script, w.history.column("losses"), w.history.column("total")


def test_copy_as_script_of_a_model_file_prints_what_the_engine_trained_then_back_on_built_in(
        qtbot, make_window, tmp_path):
    path = example_path("deep_supervision")   # three heads at three depths (taps)
    w = make_window(CONFIGS[0], model_path=path)
    qtbot.waitUntil(lambda: w.model.model_name == "deep_supervision.py", timeout=WAIT_MS)
    trained = [_trained_and_copied(qtbot, w, config, path) for config in CONFIGS]
    child = _run_copied([script for script, _, _ in trained], tmp_path)
    try:   # the scripts run while the window goes on to the next model files
        _back_on_the_built_in_model_the_panel_shows_its_loop(qtbot, w)
    except BaseException:
        child.kill()
        child.communicate()
        raise
    runs = _printed(child)
    assert len(runs) == len(CONFIGS)
    for (_, losses, totals), rows in zip(trained, runs):
        assert [row[0] for row in rows] == list(range(STEPS))
        for step, row in enumerate(rows):
            assert row[1:4] == list(losses[step]), f"step {step}"
            assert row[4] == totals[step], f"step {step}"


def _back_on_the_built_in_model_the_panel_shows_its_loop(qtbot, w) -> None:
    """A model file of one trunk output (no taps to write), then the built-in model."""
    answer = Answer(QMessageBox.Open)
    w.file_menu.open_model(str(example_path("cnn_two_heads")))
    qtbot.waitUntil(lambda: w.model.model_name == "cnn_two_heads.py", timeout=WAIT_MS)
    assert answer.asked == 1
    assert "MODEL_FILE.build(SEED)" in w.code_view.code()
    assert "TAPS =" not in w.code_view.script()
    w.findChild(QAction, "builtInModelAction").trigger()
    qtbot.waitUntil(lambda: w.model.model_name == "" and w.engine.session is not None
                    and w.engine.session.spec is None, timeout=WAIT_MS)
    assert "MultiHeadNet" in w.code_view.code()
    assert "MODEL_FILE" not in w.code_view.script()
