"""A watched script killed mid-run leaves every finished step readable."""
from __future__ import annotations

import subprocess
import sys
import textwrap

from gradviz.plain.watch_read import StreamReader

SCRIPT = textwrap.dedent("""
    import os, signal, sys
    import torch
    import gradviz
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Linear(4, 2))
    with gradviz.watch(model, out=sys.argv[1], every=2) as watch:
        for step in range(10):
            out = model(torch.randn(3, 4))
            losses = {"a": out[:, 0].pow(2).mean(), "b": out[:, 1].abs().mean()}
            watch.losses(losses)
            sum(losses.values()).backward()
            watch.step()
            if step == 4:
                os.kill(os.getpid(), signal.SIGKILL)
""")


def test_killed_script_keeps_its_finished_steps(tmp_path):
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], timeout=120)
    assert done.returncode == -9
    reader = StreamReader(tmp_path)
    records = reader.read()
    assert [r.step for r in records] == [0, 1, 2, 3, 4]
    assert not reader.finished and reader.header is not None
    assert reader.header["param_names"] == ["0.weight", "0.bias", "1.weight", "1.bias"]
