"""The DDP script's own ranks (plain.program.ddp_script): `python FILE` starts ranks 1..N-1 as
`python -I` processes of FILE, gloo over 127.0.0.1, and ends them with itself, also
where it stops early; none is left waiting for a step that never comes."""
import subprocess
import sys
from pathlib import Path

import pytest

from gradviz.plain.config.config import Config
from gradviz.plain.program.script import script_text

PROC = Path("/proc")


def running(path: Path) -> list[int]:
    """The live processes whose command line names path (Linux's /proc)."""
    found = []
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            try:
                words = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:   # it ended meanwhile
                continue
            if str(path).encode() in words:
                found.append(int(entry.name))
    return found


@pytest.mark.skipif(not PROC.is_dir(), reason="reads the processes from Linux's /proc")
def test_a_script_that_stops_early_ends_its_ranks(tmp_path):
    # a loss that diverges stops the program before its last step: its ranks, waiting
    # for the next step's weights, would time out (gloo's 60 s) and say so on stderr
    cfg = Config(device="cpu").replace(heads=3, batch_size=48, accumulate=2, ddp_ranks=3,
                                       ddp_no_sync=True, lr=1000.0, steps=20)
    script = tmp_path / "diverges.py"
    script.write_text(script_text(cfg), encoding="utf-8")
    done = subprocess.run([sys.executable, "-I", str(script)], capture_output=True,
                          text=True, timeout=240, cwd=tmp_path)
    assert done.returncode == 1, done.stderr[-2000:]
    printed = len(done.stdout.splitlines())
    assert 0 < printed < cfg.steps
    # the program's own line alone: no rank wrote an error (a timeout, a lost peer)
    assert done.stderr.splitlines() == [
        f"step {printed}: a loss is NaN or infinite (training diverged)"]
    assert running(script) == []
