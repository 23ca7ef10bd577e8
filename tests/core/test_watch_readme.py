"""The README's watch example runs as written and leaves the run it promises."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from gradviz.plain.run_files.watch_read import StreamReader

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_watch_example_runs_as_written(tmp_path):
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Watch your own loop"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, timeout=300,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    reader = StreamReader(tmp_path / "runs" / "exp1")
    records = reader.read()
    assert len(records) == 100 and reader.finished
    assert list(records[0].losses) == ["depth", "seg"]
    assert records[0].junction_grad_norms is not None and records[1].cosine is None
    assert "trunk.0.weight" in reader.header["param_names"]
