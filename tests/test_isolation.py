"""No process gradviz starts imports anything from the folder it was started in, nor from
PYTHONPATH entries it did not choose: a lecturer runs gradviz from the folder a stranger's
lesson was unpacked into, and a `numpy.py` there must not run. The app (its engine and
B's process), and the `gradviz compare` the Compare dock starts, run from a folder of
planted modules that leave a mark when imported; none is found. Nor, beside a model
file, does any library gradviz uses (torch's optimizer and compiler stack, TorchJD and
the QP solvers it probes) import a planted module, whatever the strategy or optimizer."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from gradviz.engine.child import child_command

pytestmark = pytest.mark.skipif(os.name != "posix", reason="B's process needs POSIX")

PLANTED = ("numpy", "torch", "json", "gradviz", "pickle", "socket")

APP = """
import os, sys, tempfile
from PySide6.QtWidgets import QApplication
from gradviz.plain.config.config import Config
from gradviz.qt.main_window import MainWindow
from gradviz.qt.settings import AppSettings, Remembered
app = QApplication([])
settings = AppSettings(os.path.join(tempfile.mkdtemp(), "s.json"))
w = MainWindow(Remembered(Config(batch_size=16, heads=2, device="cpu")), settings,
               model_path=sys.argv[1] if len(sys.argv) > 1 else None)   # a model file
w.show()
def until(done):
    while not done():
        app.processEvents()
until(lambda: w.model.generation >= 1)
w.compare.pin_settings()          # B in a process of the engine's
w.toggle_play()
until(lambda: w.compare.history_b is not None and len(w.compare.history_b) >= 3)
print("engine", w.engine.pid, "b", len(w.compare.history_b), flush=True)
w.close()
"""


def plant(tmp_path: Path, folder_name: str, names) -> tuple[Path, Path]:
    """(a folder of planted modules, one per name, the folder their marks go to)."""
    folder, marks = tmp_path / folder_name, tmp_path / "marks"
    folder.mkdir()
    marks.mkdir()
    for name in names:
        (folder / f"{name}.py").write_text(
            "import os\n"
            f"open(os.path.join({str(marks)!r}, __name__ + '-' + str(os.getpid())), 'w')"
            ".close()\n")
    return folder, marks


@pytest.fixture
def planted(tmp_path):
    """(a folder of planted modules, the folder their marks go to)."""
    return plant(tmp_path, "lesson-folder", PLANTED)


def _run(command, folder: Path, timeout: float = 600):
    env = dict(os.environ, PYTHONPATH=str(folder), QT_QPA_PLATFORM="offscreen")
    return subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True,
                          timeout=timeout)


def test_the_app_its_engine_and_bs_process_import_nothing_from_the_folder(planted, tmp_path):
    folder, marks = planted
    script = tmp_path / "app.py"       # beside the folder, not in it
    script.write_text(APP)
    out = _run([sys.executable, "-I", str(script)], folder)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.startswith("engine"), out.stdout
    assert sorted(p.name for p in marks.iterdir()) == []


def test_the_compare_the_app_starts_imports_nothing_from_the_folder(planted, tmp_path):
    folder, marks = planted
    a, b = tmp_path / "A.toml", tmp_path / "B.toml"
    a.write_text('strategy = "sum"\nheads = 2\nbatch_size = 16\n')
    b.write_text('strategy = "separate"\nheads = 2\nbatch_size = 16\n')
    out = _run(child_command("gradviz", "compare", str(a), str(b), "--steps", "2",
                             "--out", str(tmp_path / "out")), folder)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "same" in out.stdout
    assert sorted(p.name for p in marks.iterdir()) == []


def test_the_planted_modules_would_leave_a_mark(planted):
    """The checks above could fail: a child started without -I imports the folder's
    json.py (from the working folder and from PYTHONPATH alike)."""
    folder, marks = planted
    _run([sys.executable, "-c", "import json"], folder)
    assert [p.name.split("-")[0] for p in marks.iterdir()] == ["json"]


# installed ones (numpy, quadprog, qpsolvers, sympy, filelock) must be found where they
# are installed; the rest are optional modules torch and the QP solvers probe for
BESIDE_MODEL = ("numpy", "triton", "highspy", "cvxopt", "ecos", "quadprog", "qpsolvers",
                "clarabel", "daqp", "gurobipy", "mosek", "osqp", "piqp", "proxsuite", "scs",
                "qpalm", "jax", "sympy", "filelock", "kvxopt", "qpax", "sip")
MODEL = """
import torch
import torch.nn.functional as F
from torch import nn
import helper_beside_it

def build(seed):
    torch.manual_seed(seed)
    def batch(step, batch_size, generator):
        x = torch.randn(batch_size, 6, generator=generator)
        return x, [x[:, :2], x[:, 2:3]]
    return {"trunk": helper_beside_it.trunk(), "heads": [nn.Linear(8, 2), nn.Linear(8, 1)],
            "losses": [F.mse_loss, F.mse_loss], "batch": batch}
"""


@pytest.fixture
def model_amid_planted(tmp_path):
    """(a model file amid planted modules, with a helper of its own beside it, the
    folder the marks go to)."""
    folder, marks = plant(tmp_path, "strangers", BESIDE_MODEL)
    (folder / "helper_beside_it.py").write_text(
        "from torch import nn\n\ndef trunk():\n    return nn.Linear(6, 8)\n")
    path = folder / "m.py"
    path.write_text(textwrap.dedent(MODEL))
    return path, marks


@pytest.mark.parametrize("options", [
    ("run", "--strategy", "upgrad"), ("run", "--strategy", "pcgrad"),
    ("run", "--optimizer", "adam"), ("bench", "--optimizer", "adam", "--repeats", "1")])
def test_nothing_beside_a_model_file_runs_unnamed(model_amid_planted, tmp_path, options):
    path, marks = model_amid_planted
    command, *rest = options
    out_folder = ["--out", str(tmp_path / "out")] if command == "run" else []
    out = subprocess.run(
        child_command("gradviz", command, "--model", str(path), "--steps", "3",
                      "--batch-size", "8", *rest, *out_folder),
        cwd=path.parent, capture_output=True, text=True, timeout=600,
        env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
    assert out.returncode == 0, out.stderr[-2000:]
    assert "Traceback" not in out.stderr and "PyTorch refused" not in out.stdout + out.stderr
    assert sorted(p.name for p in marks.iterdir()) == []


def test_the_planted_modules_would_leave_their_mark(model_amid_planted):
    """The marks are real: the folder first on a plain interpreter's path runs one."""
    path, marks = model_amid_planted
    subprocess.run([sys.executable, "-I", "-c", "import sys; sys.path.insert(0, sys.argv[1]);"
                    " import highspy", str(path.parent)], check=True, timeout=60)
    assert [p.name.split("-")[0] for p in marks.iterdir()] == ["highspy"]
