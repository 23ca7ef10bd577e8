"""`gradviz run --script S.py --out D`: S.py, run by itself under `python -I` at the
thread count it sets, prints exactly the numbers D/report.json holds, for the options
whose sums round differently at another thread count (BatchNorm, a transformer's
attention and layer norms). Neither run is told a thread count: each takes its own."""
import json
import subprocess
import sys

import pytest

CASES = {
    "batch-norm": ["--batch-norm", "--steps", "5"],
    "tiny-transformer": ["--model", "tiny_transformer", "--steps", "3"],
}


def _run(args: list[str], cwd) -> str:
    done = subprocess.run([sys.executable, "-I", *args], capture_output=True, text=True,
                          timeout=600, cwd=cwd)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.mark.parametrize("name", list(CASES))
def test_the_script_prints_the_reports_numbers_bit_for_bit(tmp_path, name):
    script, out = tmp_path / f"{name}.py", tmp_path / "out"
    _run(["-m", "gradviz", "run", "--quiet", "--script", str(script), "--out", str(out),
          *CASES[name]], tmp_path)
    steps = json.loads((out / "report.json").read_text())["steps"]
    lines = _run([str(script), "--grad-norms"], tmp_path).splitlines()
    assert len(lines) == len(steps) > 1
    for line, step in zip(lines, steps):
        words = line.split()
        assert int(words[0]) == step["step"]
        expected = [*step["losses"].values(), step["total"], *step["grad_norms"].values()]
        # exactly: repr() of a float read back is that float (None: no gradient)
        printed = [None if w == "None" else float(w) for w in words[1:]]
        assert printed == expected, (name, step["step"])
