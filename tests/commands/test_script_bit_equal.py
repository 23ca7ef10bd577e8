"""`gradviz run --script S.py --out D`: S.py, run by itself under `python -I` at the
thread count it sets, prints exactly the numbers D/report.json holds, for the options
whose sums round differently at another thread count (BatchNorm, a transformer's
attention and layer norms) and for DDP ranks, whose all-reduced gradient adds in another
order than a one-process loop (where the script had no ranks of its own, 28 of the 2-rank
case's 64 gradient norms differed). Neither run is told a thread count: each takes its
own. Both runs' ranks are processes here, gloo over 127.0.0.1, each run bounded below."""
import json
import subprocess
import sys

import pytest

CASES = {
    "batch-norm": ["--batch-norm", "--steps", "5"],
    "tiny-transformer": ["--model", "tiny_transformer", "--steps", "3"],
    # two ranks add their shares in either order alike; three add in gloo's ring order
    "ddp-2-ranks-no-sync": ["--ddp-ranks", "2", "--accumulate", "4", "--ddp-no-sync",
                            "--steps", "4"],
    "ddp-3-ranks-synced": ["--ddp-ranks", "3", "--accumulate", "2", "--batch-size", "48",
                           "--optimizer", "adam", "--lr", "0.01", "--steps", "4"],
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
