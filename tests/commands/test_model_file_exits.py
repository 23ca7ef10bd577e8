"""A model file that exits (sys.exit(n), SystemExit, GeneratorExit) or leaves a thread
running: `gradviz run` and `bench --model` say so in one line naming the file, with the
exit status gradviz.exit_codes documents, and always end."""
import os
import subprocess
import textwrap

import pytest

from gradviz.engine.child import child_command
from gradviz.exit_codes import EXIT_AUTOGRAD_ERROR, EXIT_LEFT_RUNNING, EXIT_USAGE

MODEL = textwrap.dedent("""
    import torch
    import torch.nn.functional as F
    from torch import nn
    {top}

    def build(seed):
        {build}
        def batch(step, batch_size, generator):
            x = torch.randn(batch_size, 4, generator=generator)
            return x, [x[:, :2]]
        return {{"trunk": nn.Linear(4, 8), "heads": [nn.Linear(8, 2)],
                "losses": [{loss}], "batch": batch}}
    """)
CASES = {
    "sys.exit at the top": (dict(top="import sys; sys.exit(9)"), EXIT_USAGE, "SystemExit: 9"),
    "SystemExit in build": (dict(build="raise SystemExit('no')"), EXIT_USAGE, "SystemExit"),
    "GeneratorExit in build": (dict(build="raise GeneratorExit"), EXIT_USAGE, "GeneratorExit"),
    "exit at a step": (dict(loss="lambda y, t: exit(6) if y.shape[0] > 2 else F.mse_loss(y, t)"),
                       EXIT_AUTOGRAD_ERROR, "raised SystemExit at step 0"),
    "a stray thread": (dict(build="import threading, time; threading.Thread(target=time.sleep, "
                                  "args=(1000,), name='forever').start()"),
                       EXIT_LEFT_RUNNING, "threads running (forever, forever)"),
}


def gradviz(tmp_path, *argv):
    return subprocess.run(child_command("gradviz", *argv), cwd=tmp_path, capture_output=True,
                          text=True, timeout=300,
                          env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_run_says_it_in_one_line_naming_the_file(tmp_path, case):
    parts, status, words = CASES[case]
    path = tmp_path / "theirs.py"
    path.write_text(MODEL.format(**{"top": "", "build": "pass", "loss": "F.mse_loss", **parts}))
    out = gradviz(tmp_path, "run", "--quiet", "--model", str(path), "--steps", "3",
                  "--batch-size", "8")
    assert out.returncode == status, out.stderr
    lines = out.stderr.strip().splitlines()
    assert "Traceback" not in out.stderr and words in lines[0] and "theirs.py" in lines[0], lines
    assert all(line.startswith("  ") for line in lines[1:])   # a step's why and what to do
    assert "PyTorch refused" not in out.stderr               # the model file did it


def test_bench_says_a_file_that_exits_in_one_line(tmp_path):
    path = tmp_path / "theirs.py"
    path.write_text(MODEL.format(top="import sys; sys.exit(9)", build="pass", loss="F.mse_loss"))
    out = gradviz(tmp_path, "bench", "--model", str(path), "--steps", "3", "--repeats", "1")
    assert out.returncode == EXIT_USAGE
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert "theirs.py': SystemExit: 9 (theirs.py:5)" in out.stderr
