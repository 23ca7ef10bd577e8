"""The window on a user's model file (issue 22): `gradviz --model` and File → Open
model… train the file in the engine's process, with the file's head names on the
panels; the question before a picked file runs is asked once per path and content;
a file that raises is shown in What happened with its own file:line, and the window
goes on; Reset, Shift+R and a restarted engine keep the file. One run of the real
two-process app: the engine starting, a build that hangs stopped and one too big for
memory said (build_faults.py), killed with B pinned (its process ends too) and said,
Reset's fresh one with the settings it had, and closing that ends it at once."""
import importlib.util
import os
import signal
import sys
import textwrap
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from build_faults import CEILING_ENV, HANGS, a_hung_build_is_stopped_and_one_too_big_shows_its_line
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from gradviz.plain.config.config import Config
from gradviz.qt.model_menu import example_path
from gradviz.qt.settings import Remembered

from model_question import Answer
from waits import WAIT_MS

# a model file written here as a user would: plain PyTorch, two named heads
TWO_HEADS = textwrap.dedent("""\
    import torch
    import torch.nn.functional as F
    from torch import nn


    class Trunk(nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = nn.Linear(4, 8)

        def forward(self, x):
            if x.shape[0] > 2 and RAISE:   # the trial forward (2 rows) passes
                raise ValueError("boom in the trunk")
            return torch.tanh(self.layer(x))


    RAISE = False


    def build(seed):
        torch.manual_seed(seed)

        def batch(step, batch_size, generator):
            x = torch.randn(batch_size, 4, generator=generator)
            return x, [x.sum(1, keepdim=True), x[:, :1]]

        return {"trunk": Trunk(), "heads": [nn.Linear(8, 1), nn.Linear(8, 1)],
                "losses": [F.mse_loss, F.mse_loss], "batch": batch,
                "names": ["alpha", "beta"]}
    """)


def legend(plot) -> list[str]:
    return [label.text for _, label in plot.legend.items]


@pytest.fixture
def model_window(make_window):
    """A window training the model file at a path (None: the built-in model)."""
    def make(path, config: Config = Config(device="cpu"), in_process: bool = True):
        return make_window(config, model_path=path, in_process=in_process)
    return make


def _train(qtbot, w, steps: int) -> None:
    before = len(w.history)
    # Play is clicked (after a dialog the window may not be the active one, which its
    # keys need)
    qtbot.mouseClick(w.run_bar.play, Qt.LeftButton)
    qtbot.waitUntil(lambda: len(w.history) >= before + steps, timeout=WAIT_MS)
    qtbot.mouseClick(w.run_bar.play, Qt.LeftButton)
    qtbot.waitUntil(lambda: not w.model.running, timeout=WAIT_MS)


def _plain_first_losses(path: str, batch_size: int) -> list[float]:
    """Step 0's loss per head, from the file run as a plain PyTorch program would: its
    build(0), its batch for step 0 (generator seeded 0 * 1_000_003 + 0, docs/model-files.md)."""
    spec = importlib.util.spec_from_file_location("plain_copy", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    built = module.build(0)
    x, targets = built["batch"](0, batch_size, torch.Generator().manual_seed(0))
    with torch.no_grad():
        zs = built["trunk"](x)
        return [float(F.cross_entropy(head(zs[k]), targets[k]))
                for k, head in enumerate(built["heads"])]


def test_the_bundled_models_train_with_their_head_names_and_reset_keeps_them(
        qtbot, model_window):
    """deep_supervision from the start: its names, its own step-0 losses, kept by Reset
    and Shift+R; the examples are listed and open without the question, and back;
    a lesson opened on a model file teaches on the built-in model."""
    path = example_path("deep_supervision")
    w = model_window(path)
    qtbot.waitUntil(lambda: w.model.model_name == "deep_supervision.py", timeout=WAIT_MS)
    assert legend(w.loss_plot) == ["shallow", "middle", "deep", "total"]
    assert "deep_supervision.py" in w.windowTitle()
    width = w.controls.widgets["trunk_width"]
    assert not width.isEnabled() and "built-in model" in width.toolTip()
    assert not w.controls.widgets["heads"].isEnabled()
    assert w.controls.widgets["lr"].isEnabled()
    _train(qtbot, w, 5)
    # step 0's losses, as the loss plot has them: the file's own, computed plainly
    assert w.history.column("step")[0] == 0
    assert list(w.history.column("losses")[0]) == pytest.approx(
        _plain_first_losses(path, w.model.confirmed.batch_size), rel=1e-5)
    qtbot.keyClick(w, Qt.Key_R)                      # Reset: the same file, step 0
    qtbot.waitUntil(lambda: len(w.history) == 0 and w.engine.session.step_index == 0,
                    timeout=WAIT_MS)
    assert w.engine.session.spec is not None and w.engine.session.spec.names[0] == "shallow"
    qtbot.keyClick(w, Qt.Key_R, Qt.ShiftModifier)   # the defaults, on the same file
    qtbot.waitUntil(lambda: w.engine.session.config.lr == Config().lr, timeout=WAIT_MS)
    assert w.model.model_name == "deep_supervision.py"
    assert legend(w.loss_plot) == ["shallow", "middle", "deep", "total"]
    _examples_open_without_the_question(qtbot, w)
    _a_lesson_teaches_on_the_built_in_model(qtbot, w)


def _open_model_asks_once_per_path_and_content(qtbot, w, tmp_path, monkeypatch) -> None:
    model = tmp_path / "my_net.py"
    model.write_text(TWO_HEADS)
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        staticmethod(lambda *a, **k: (str(model), "")))
    open_model = w.findChild(QAction, "openModelAction")
    answer = Answer(QMessageBox.Open)
    open_model.trigger()
    assert answer.asked == 1 and "Python code" in answer.texts[0]
    qtbot.waitUntil(lambda: w.model.model_name == "my_net.py", timeout=WAIT_MS)
    assert legend(w.loss_plot) == ["alpha", "beta", "total"]
    _train(qtbot, w, 3)
    generation = w.model.generation
    open_model.trigger()                         # the same file, unchanged: not asked
    qtbot.waitUntil(lambda: w.model.generation > generation, timeout=WAIT_MS)
    assert answer.asked == 1 and w.model.model_name == "my_net.py"
    model.write_text(TWO_HEADS + "# edited\n")   # changed: asked again
    answer.button = QMessageBox.Cancel
    generation = w.model.generation
    open_model.trigger()
    assert answer.asked == 2
    assert w.model.generation == generation            # cancelled: nothing new runs
    assert len(w.remembered().trusted_models) == 1
    assert all(isinstance(k, str) for k in w.remembered().trusted_models)


def test_raising_model_files_show_their_line_and_open_model_asks_once(
        qtbot, model_window, tmp_path, monkeypatch):
    """A file whose build raises is not used (the built-in model trains instead) and
    says where; File → Open model… asks before a file runs, once per path and content;
    a file whose forward raises mid-training says where, and Reset still answers, on
    the same file."""
    broken = tmp_path / "broken.py"
    broken.write_text("def build(seed):\n    return 1 / 0\n")
    w = model_window(broken)
    qtbot.waitUntil(lambda: "ZeroDivisionError" in w.events_view.text(), timeout=WAIT_MS)
    assert "broken.py:2" in w.events_view.text()
    assert w.model.model_name == "" and w.model.model_path is None
    _train(qtbot, w, 3)                              # the built-in model trains instead
    assert legend(w.loss_plot)[0] == "head0"
    _open_model_asks_once_per_path_and_content(qtbot, w, tmp_path, monkeypatch)
    model = tmp_path / "raising.py"
    model.write_text(TWO_HEADS.replace("RAISE = False", "RAISE = True"))
    line = TWO_HEADS.splitlines().index(
        '            raise ValueError("boom in the trunk")') + 1
    w.engine.open_model(str(model))   # as File → Open model… does once the user agreed
    qtbot.waitUntil(lambda: w.model.model_name == "raising.py", timeout=WAIT_MS)
    w.activateWindow()                  # its keys again, after the question's dialogs
    qtbot.waitUntil(lambda: QApplication.activeWindow() is w, timeout=WAIT_MS)
    qtbot.keyClick(w, Qt.Key_Space)
    qtbot.waitUntil(lambda: "boom in the trunk" in w.events_view.text(), timeout=WAIT_MS)
    assert f"raising.py:{line}" in w.events_view.text()
    qtbot.waitUntil(lambda: not w.model.running, timeout=WAIT_MS)
    qtbot.keyClick(w, Qt.Key_R)                      # the window still answers
    qtbot.waitUntil(lambda: w.engine.session.step_index == 0 and not w.model.running,
                    timeout=WAIT_MS)
    assert w.model.model_name == "raising.py"


def _children(pid: int) -> list[int]:
    """The processes whose parent is pid (Linux's /proc; elsewhere none are found)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:   # ended while we looked
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def _running(pid: int) -> bool:
    """pid is a process that has not ended (a zombie waiting to be reaped has)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _compared(w) -> int:
    w.refresh()
    return len(w.compare.history_b or ())


def _play(qtbot, w, steps: int) -> None:
    """Space, until `steps` more steps are shown (still playing)."""
    before = len(w.history)
    qtbot.keyClick(w, Qt.Key_Space)
    qtbot.waitUntil(lambda: w.model.running and len(w.history) > before + steps,
                    timeout=WAIT_MS)


def _b_pinned_ahead(qtbot, w, linux: bool) -> list[int]:
    """The user opens Compare (B's process starts then) and pins the settings: B's
    process, as started ahead."""
    w.compare.menu.popup(w.mapToGlobal(QPoint(40, 40)))
    if linux:
        qtbot.waitUntil(lambda: len(_children(w.engine.pid)) == 1, timeout=WAIT_MS)
    started_ahead = _children(w.engine.pid)
    w.compare.menu.hide()
    w.activateWindow()                          # the window's keys again, not the menu's
    qtbot.waitUntil(lambda: QApplication.activeWindow() is w, timeout=WAIT_MS)
    w.compare.pin_settings()                    # B beside A, in a process of the engine's
    return started_ahead


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_the_two_process_app_on_a_model_file_survives_a_kill_and_closes_at_once(
        qtbot, settings, tmp_path, monkeypatch):
    """The real two-process app, as `gradviz --model` starts it: the window says the
    engine is starting; on Linux, the file's build hangs and is stopped, and a file too
    big for memory says its line (build_faults.py); the file runs in the engine's
    process and in B's, never in the window's, and the engine runs at a lower priority.
    B's process starts when the Compare menu opens and the pin uses it; killing the
    engine (as the out-of-memory killer does) ends B's process too and leaves the window
    saying what happened; Reset starts a fresh engine on the same file with the same
    settings, B pinned again; and closing mid-training ends the engine at once."""
    from gradviz.engine.niceness import ENGINE_NICENESS
    from gradviz.qt.main_window import MainWindow
    linux = sys.platform.startswith("linux")     # the processes are looked for in /proc
    pids = tmp_path / "pids.txt"
    model = tmp_path / "pid_net.py"
    model.write_text(f"import os\nopen({str(pids)!r}, 'a').write(f'{{os.getpid()}}\\n')\n"
                     + TWO_HEADS)
    first = model
    if linux:   # one launch for the build faults too (/proc and RLIMIT_AS are Linux's)
        monkeypatch.setenv(*CEILING_ENV)
        first = tmp_path / "hangs.py"
        first.write_text(HANGS)
    w = MainWindow(Remembered(Config(device="cpu", batch_size=16)), settings,
                   model_path=str(first))        # the engine in its own process
    qtbot.addWidget(w)
    w.show()
    try:
        assert w.isVisible() and "Starting the training engine" in w.phase_label.text()
        if linux:
            a_hung_build_is_stopped_and_one_too_big_shows_its_line(qtbot, w, tmp_path)
            qtbot.keyClick(w, Qt.Key_Space)      # paused, then the file opened
            qtbot.waitUntil(lambda: not w.model.running, timeout=WAIT_MS)
            w.engine.open_model(str(model))   # as File → Open model… does once agreed
        _killed_and_reset(qtbot, w, pids, linux)
        # on a busy machine the window gets the CPU before the engine does
        assert os.getpriority(os.PRIO_PROCESS, w.engine.pid) == \
            os.getpriority(os.PRIO_PROCESS, 0) + ENGINE_NICENESS
        pid = w.engine.pid                       # closed mid-training
        w.close()
        assert w.engine.stopped      # at once: close() returns with the process gone
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    finally:
        w.close()


def _killed_and_reset(qtbot, w, pids: Path, linux: bool) -> None:
    """The engine trains the file with B pinned, is killed and said stopped, and Reset's
    fresh engine trains the same file, with the same settings, B pinned again."""
    qtbot.waitUntil(lambda: w.model.model_name == "pid_net.py", timeout=WAIT_MS)
    assert w.model.devices and w.model.devices[0][0] == "cpu"
    assert w.controls.widgets["device"].findData("cpu") >= 0
    ran_in = {int(p) for p in pids.read_text().split()}
    assert ran_in == {w.engine.pid} and os.getpid() not in ran_in
    assert _children(w.engine.pid) == []
    started_ahead = _b_pinned_ahead(qtbot, w, linux)
    _play(qtbot, w, 20)
    qtbot.waitUntil(lambda: _compared(w) > 2, timeout=WAIT_MS)
    assert _children(w.engine.pid) == started_ahead      # the pin used that process
    ran_in = {int(p) for p in pids.read_text().split()}
    assert len(ran_in) == 2 and os.getpid() not in ran_in   # A's engine and B's
    first, config, generation = w.engine.pid, w.model.confirmed, w.model.generation
    b_processes = _children(first)
    assert len(b_processes) == (1 if linux else 0)
    os.kill(first, signal.SIGKILL)                   # mid-training
    qtbot.waitUntil(lambda: not w.engine.alive, timeout=WAIT_MS)
    # B's process ends with the engine (it reads the end of its socket): none is left
    qtbot.waitUntil(lambda: not any(_running(pid) for pid in b_processes), timeout=WAIT_MS)
    assert w.isVisible() and not w.model.running
    text = w.events_view.text()
    assert "The training engine stopped (exit code -9 / killed by signal SIGKILL)" in text
    assert "Press Reset (R)" in text
    assert "the system does to a process that runs out of memory" in text
    assert "batch_size=16" in text and "Shift+R with the default settings" in text
    qtbot.keyClick(w, Qt.Key_R)                      # a fresh engine, the same file
    assert "with the settings it had (" in w.phase_label.text()
    assert "batch_size=16" in w.phase_label.text()
    qtbot.waitUntil(lambda: w.engine.alive and w.model.generation > generation,
                    timeout=WAIT_MS)
    assert w.engine.pid != first and w.model.model_name == "pid_net.py"
    assert first not in {int(p) for p in pids.read_text().split()[-1:]}
    assert w.model.confirmed == config and w.controls.config() == config
    assert legend(w.loss_plot)[:3] == ["alpha", "beta", "total"]
    _play(qtbot, w, 20)
    qtbot.waitUntil(lambda: _compared(w) > 0, timeout=WAIT_MS)   # B pinned in the fresh one
    assert "same gradients" in w.compare.view.record.verdict


class Opened(Exception):
    """Raised by the stand-in window: what the app would have opened."""


def test_the_model_flag_opens_the_app_on_the_examples_path(monkeypatch, tmp_path):
    from gradviz import app
    from gradviz.qt import main_window

    def window(remembered, settings, model_path=None, **_):
        raise Opened(model_path)
    monkeypatch.setattr(main_window, "MainWindow", window)
    monkeypatch.setenv("GRADVIZ_SETTINGS", str(tmp_path / "s.json"))
    with pytest.raises(Opened) as opened:
        app.main(["--model", "cnn_two_heads", "--lr", "0.01"])
    assert opened.value.args[0] == example_path("cnn_two_heads")


def test_a_model_flag_that_names_nothing_is_one_line(monkeypatch, tmp_path, capsys):
    from gradviz import app
    monkeypatch.setenv("GRADVIZ_SETTINGS", str(tmp_path / "s.json"))
    with pytest.raises(SystemExit) as ended:
        app.main(["--model", "no_such_model"])
    err = capsys.readouterr().err.strip()
    assert ended.value.code == 2 and len(err.splitlines()) == 1
    assert "no_such_model" in err and "deep_supervision" in err


def _examples_open_without_the_question(qtbot, w) -> None:
    from gradviz.plain.config.model_names import model_names
    names = [a.text() for a in w.file_menu.examples.actions()]
    assert names == ["the built-in model", *model_names()] and len(names) == 4
    answer = Answer(QMessageBox.Cancel)
    w.findChild(QAction, "exampleModel_tiny_transformer").trigger()
    qtbot.waitUntil(lambda: w.model.model_name == "tiny_transformer.py", timeout=WAIT_MS)
    assert answer.asked == 0 and legend(w.loss_plot) == ["sequence", "per token", "total"]
    assert "tiny_transformer.py" in w.windowTitle()
    w.findChild(QAction, "builtInModelAction").trigger()   # and back
    qtbot.waitUntil(lambda: w.model.model_name == "" and w.engine.session is not None
                    and w.engine.session.spec is None, timeout=WAIT_MS)
    assert w.controls.widgets["trunk_width"].isEnabled()
    assert "tiny_transformer" not in w.windowTitle()


def _a_lesson_teaches_on_the_built_in_model(qtbot, w) -> None:
    """A lesson opened on a model file (deep_supervision, opened as the examples open)."""
    from gradviz.plain.lessons.lessons import find_lesson
    w.findChild(QAction, "exampleModel_deep_supervision").trigger()
    qtbot.waitUntil(lambda: w.model.model_name == "deep_supervision.py", timeout=WAIT_MS)
    lesson = find_lesson("backward-twice")
    w.lessons.open(lesson)
    qtbot.waitUntil(lambda: w.engine.session is not None and w.engine.session.spec is None
                    and w.model.model_name == "", timeout=WAIT_MS)
    assert w.engine.session.config.heads == lesson.slides[0].config.heads
    assert legend(w.loss_plot)[0] == "head0"
