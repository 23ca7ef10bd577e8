"""A rank torchrun tore down reads as what happened to it: the rank killed by SIGKILL is
"stopped without finishing (its process is gone)", the rank torchrun then ended by
SIGTERM is "ended by a signal (SIGTERM)", in the folder and in `gradviz report`."""
from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from gradviz.plain.runs.watch_summary import summary_lines

SCRIPT = Path(__file__).with_name("watch_rank_script.py")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.timeout(300)
def test_a_killed_rank_and_the_rank_torchrun_ended_are_told_apart(tmp_path):
    out = tmp_path / "run"
    done = subprocess.run(
        [sys.executable, "-I", "-m", "torch.distributed.run", "--nproc-per-node", "2",
         "--master-addr", "127.0.0.1", "--master-port", str(_free_port()),
         "--monitor-interval", "0.5", str(SCRIPT), str(out)],
        capture_output=True, text=True, timeout=240)
    assert done.returncode != 0   # torchrun says a rank failed
    rank0 = json.loads((out / "rank-0" / "watch.json").read_text())
    rank1 = json.loads((out / "rank-1" / "watch.json").read_text())
    assert rank0["ended"] == {"how": "signal", "what": "SIGTERM"}, done.stderr[-2000:]
    assert "ended" not in rank1 and "finished" not in rank1
    lines = summary_lines(out)
    assert any(line.startswith("rank-0: ") and line.endswith("; ended by a signal (SIGTERM)")
               for line in lines), lines
    assert "rank-1: 4 steps (0 to 3); stopped without finishing (its process is gone)" \
        in lines, lines
