"""`gradviz run --model FILE --script S.py`: a plain program that imports the model file
by its path and prints, step by step, exactly the numbers report.json holds (CPU)."""
import json
import subprocess
import sys
import textwrap
from pathlib import Path

from gradviz.app import main

ROOT = Path(__file__).resolve().parents[2]

# two heads read the deep output, one the shallow (taps)
MODEL = """
import torch
import torch.nn.functional as F
from torch import nn

class Trunk(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(4, 10), nn.Linear(10, 10)

    def forward(self, x):
        shallow = torch.tanh(self.a(x))
        return shallow, self.b(shallow)

def build(seed):
    torch.manual_seed(seed)
    def batch(step, batch_size, generator):
        x = torch.randn(batch_size, 4, generator=generator)
        return x, [x[:, 0].gt(0).long(), x[:, 1:3], x[:, 3:4]]
    return {"trunk": Trunk(), "heads": [nn.Linear(10, 2), nn.Linear(10, 2), nn.Linear(10, 1)],
            "losses": [F.cross_entropy, F.mse_loss, F.mse_loss], "batch": batch,
            "taps": [1, 1, 0]}
"""
CASES = {
    "sum": [],
    "separate-detach": ["--strategy", "separate", "--detach", "1"],
    "in-loop-accumulate": ["--strategy", "in-loop", "--accumulate", "2"],
    "sum-first-adam": ["--accumulate", "4", "--accumulate-mode", "sum-first",
                       "--optimizer", "adam", "--lr", "0.01"],
    "detach_-first-no-zero-grad": ["--detach", "0", "--detach-mode", "detach_",
                                   "--no-zero-grad", "--retain-grad"],
    "keep-graphs-weights": ["--keep-graphs", "--loss-weights", "0.5,2,1"],
}

RUNNER = """
import contextlib, io, json, runpy, sys
out = {}
for path in sys.argv[1:]:
    sys.argv = [path, "--grad-norms"]
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        runpy.run_path(path, run_name="__main__")
    out[path] = text.getvalue()
print(json.dumps(out))
"""


def test_each_script_prints_exactly_what_the_report_holds(tmp_path):
    model = tmp_path / "mine.py"
    model.write_text(textwrap.dedent(MODEL))
    scripts = {}
    for name, flags in CASES.items():
        out, script = tmp_path / name, tmp_path / f"{name}.py"
        try:
            code = main(["run", "--quiet", "--model", str(model), "--steps", "3",
                         "--batch-size", "8", "--script", str(script), "--out", str(out),
                         *flags])
        except SystemExit as exc:
            code = exc.code
        assert code == 0, name
        scripts[str(script)] = json.loads((out / "report.json").read_text())["steps"]
    done = subprocess.run([sys.executable, "-c", RUNNER, *scripts], capture_output=True,
                          text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    for path, steps in scripts.items():
        lines = printed[path].splitlines()
        assert len(lines) == len(steps) == 3, path
        for line, step in zip(lines, steps):
            words = line.split()
            numbers = list(step["losses"].values()) + [step["total"]] + \
                list(step["grad_norms"].values())
            assert words[0] == str(step["step"])
            assert [None if w == "None" else float(w) for w in words[1:]] == numbers, path


def test_the_script_names_the_model_files_path_and_imports_nothing_of_gradviz(tmp_path):
    model = tmp_path / "it's \"mine\".py"   # quotes in the name stay one literal
    model.write_text(textwrap.dedent(MODEL))
    script = tmp_path / "loop.py"
    assert main(["run", "--quiet", "--model", str(model), "--steps", "1",
                 "--script", str(script)]) == 0
    text = script.read_text()
    assert "import gradviz" not in text and "from gradviz" not in text
    assert f"MODEL_PATH = {str(model.resolve())!r}" in text and "TAPS = [1, 1, 0]" in text
    compile(text, str(script), "exec")


def test_the_script_finds_the_model_files_helpers_beside_it(tmp_path):
    (tmp_path / "helpers_beside_mine.py").write_text(
        "from torch import nn\n\ndef head():\n    return nn.Linear(10, 1)\n")
    model = tmp_path / "mine.py"
    model.write_text(textwrap.dedent(MODEL).replace(
        "nn.Linear(10, 1)]", "__import__('helpers_beside_mine').head()]"))
    script, out = tmp_path / "loop.py", tmp_path / "out"
    assert main(["run", "--quiet", "--model", str(model), "--steps", "2", "--script",
                 str(script), "--out", str(out)]) == 0
    done = subprocess.run([sys.executable, "-I", str(script)], capture_output=True,
                          text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    steps = json.loads((out / "report.json").read_text())["steps"]
    assert [float(w) for w in done.stdout.splitlines()[1].split()[1:]] == \
        list(steps[1]["losses"].values()) + [steps[1]["total"]]
