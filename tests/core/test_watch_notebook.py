"""gradviz.show in a real Jupyter kernel (a notebook executed by nbclient), beside a
training script writing the run in a process of its own: the cell draws the run as HTML
while it is written (3 steps, before the script goes on), redraws it through its display
handle until the run ends (the cell then ends by itself), and its last drawing holds each
loss's name and the numbers the script's loop saw; interrupted (the kernel's Interrupt),
the cell ends quietly with its drawing; the kernel imported neither Qt nor torch."""
from __future__ import annotations

import asyncio
import json
import os
import threading
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat", reason="the notebook extra: pip install -e "
                                                  "'.[notebook]'")
nbclient = pytest.importorskip("nbclient", reason="the notebook extra")
pytest.importorskip("ipykernel", reason="the notebook extra")

SCRIPT = Path(__file__).with_name("watch_notebook_script.py")
DRAWN_WAIT_S = 240   # the kernel's start and the script's torch import, on a busy machine
# GO, from the test or the notebook's third cell to the script, which waits on the FIFO:
# one byte written without blocking (nothing, where no script holds it open any more)
GO = ("import contextlib, os\n"
      "with contextlib.suppress(OSError):\n"
      "    fd = os.open({path!r}, os.O_WRONLY | os.O_NONBLOCK)\n"
      "    os.write(fd, b'g')\n"
      "    os.close(fd)\n")


def _go(go: Path) -> None:
    exec(GO.format(path=str(go)))   # the very code the notebook's third cell runs


class _WatchedClient(nbclient.NotebookClient):
    """nbclient's client that tells, as each message of the kernel is applied to the
    notebook, whether the show cell's drawing holds a text: `drawn` is set then."""

    def __init__(self, *args, drawn_text: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.drawn_text, self.drawn, self.drawn_html = drawn_text, threading.Event(), ""

    def process_message(self, msg, cell, cell_index):
        try:
            return super().process_message(msg, cell, cell_index)
        finally:   # also where the message ends the cell
            html = _html(self.nb.cells[1])
            if not self.drawn.is_set() and self.drawn_text in html:
                self.drawn_html = html
                self.drawn.set()


def _html(cell) -> str:
    return "".join(o.get("data", {}).get("text/html", "") for o in list(cell.outputs))


def _notebook(run: Path, go: Path, numbers: Path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(
            "import subprocess, sys\n"
            f"p = subprocess.Popen([sys.executable, '-I', {str(SCRIPT)!r}, {str(run)!r}, "
            f"{str(go)!r}, {str(numbers)!r}], start_new_session=True)"),
        nbformat.v4.new_code_cell(f"import gradviz\ngradviz.show({str(run)!r}, refresh_s=0.05)"),
        nbformat.v4.new_code_cell(
            GO.format(path=str(go)) + "import sys\n"
            "print('PySide6' in sys.modules, 'torch' in sys.modules)\n"
            "print('script', p.wait(timeout=120))"),
    ]
    return nb


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="GO is a FIFO (POSIX)")
@pytest.mark.parametrize("interrupt", [False, True], ids=["to-the-end", "interrupted"])
def test_a_notebook_cell_draws_the_run_as_it_is_written_without_qt(tmp_path, interrupt):
    run, go, numbers = tmp_path / "run", tmp_path / "go", tmp_path / "numbers.json"
    os.mkfifo(go)
    nb = _notebook(run, go, numbers)
    client = _WatchedClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}},
                            drawn_text="3 steps (0 to 2); still being written")

    def once_three_steps_are_drawn():
        client.drawn.wait(DRAWN_WAIT_S)
        if interrupt and client.drawn_html:
            # the notebook's Interrupt (SIGINT to the kernel's process group; the script
            # has a session of its own, as a run started elsewhere would): the script
            # then waits for the third cell's GO
            asyncio.run(client.km.interrupt_kernel())
        else:
            _go(go)   # also on failure: the script then ends, and so does the cell

    watcher = threading.Thread(target=once_three_steps_are_drawn)
    watcher.start()
    try:
        client.execute()
    finally:
        _go(go)
        client.drawn.set()   # a cell that ended without the drawing: the watcher stops
        watcher.join()

    drawn_while_written = client.drawn_html
    assert drawn_while_written, _html(nb.cells[1])[:2000]
    # one output, the drawing after the handle's last update: no traceback
    assert [o["output_type"] for o in nb.cells[1].outputs] == ["display_data"]
    html = _html(nb.cells[1])
    printed = "".join(o.get("text", "") for o in nb.cells[2].outputs)
    assert printed.splitlines() == ["False False", "script 0"]
    if interrupt:
        assert "stopped following (interrupted)" in html
        assert "3 steps (0 to 2); still being written" in html
        return
    assert "5 steps (0 to 4); finished" in html
    last = json.loads(numbers.read_text())[-1]
    g = "{:.4g}".format
    assert (f"depth {g(last['losses']['depth'])}, seg {g(last['losses']['seg'])} "
            f"(total {g(last['losses']['depth'] + last['losses']['seg'])}); "
            f"global grad norm {g(last['norm'])}") in html
    assert "cosines (step 4): depth~seg " in html and html.count("<svg") == 5
