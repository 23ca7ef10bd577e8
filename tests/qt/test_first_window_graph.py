"""Issue 45, item 6: the window a first launch opens on a small screen shows a graph a
room can read. At 1024x768 (`gradviz --model cnn_two_heads`, no lesson, after Play) the
graph panel was about 450x140 px beside the gradient charts, its key below it as large as
the graph, and it showed 2 of its 18 boxes. The window runs in a process of its own on an
offscreen screen of 1024x768 (the test process's is 800x600), as a first launch opens it."""
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

SCRIPT = r"""
import json, sys
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
app = QApplication(sys.argv)
sys.path.insert(0, sys.argv[1])
from shared_window import open_window, wait_for
from gradviz.plain.config.config import Config
from gradviz.plain.config.model_names import model_path
from gradviz.qt.settings import AppSettings, Remembered
from gradviz.qt.widgets.graph_framing import drawn_rect

settings = AppSettings(sys.argv[2])
with model_path("cnn_two_heads") as path:
    w = open_window(Remembered(Config()), settings, engine_in_process=True,
                    model_path=str(path))
    # the first launch's layout: the window maximised, the charts fitted beside the graph
    # (the offscreen screen's window frame takes 2 px a side)
    wait_for(lambda: w.width() >= 1016 and w.graph_dock.width() > 0)
    QTest.keyClick(w, Qt.Key.Key_Space)                       # Play
    wait_for(lambda: w.model.running)
    wait_for(lambda: len(w.history) >= 20, 300_000)
    QTest.keyClick(w, Qt.Key.Key_Space)                       # paused, to look at it
    wait_for(lambda: not w.model.running)
    view, canvas = w.graph_view, w.graph_view.canvas
    wait_for(lambda: view.idle and canvas.graph is not None and canvas.fitted)
    app.processEvents()
    port = canvas.viewport().rect()
    whole = []
    for node_id, item in canvas.nodes.items():
        seen = canvas.mapFromScene(drawn_rect(item)).boundingRect()
        if item.isVisible() and item.text.isVisible() and item.text.text() \
                and port.contains(seen):
            whole.append(item.text.text().splitlines()[0])
    print(json.dumps({
        "window": [w.width(), w.height()],
        "graph": [view.width(), view.height()],
        "canvas": [canvas.width(), canvas.height()],
        "key": "folded" if view.key_room.folded else
               ("beside" if view.key_beside() else "below"),
        "key_size": [view.side_scroll.width(), view.side_scroll.height()]
                    if view.side_scroll.isVisible() else None,
        "boxes": len(canvas.nodes), "whole": whole,
        "label_px": canvas.label_line_px()}))
    w.close()
"""


def test_on_a_1024x768_screen_the_first_window_shows_a_graph_a_room_reads(tmp_path):
    screen = tmp_path / "screen.json"
    screen.write_text(json.dumps({"screens": [{
        "name": "projector", "x": 0, "y": 0, "width": 1024, "height": 768,
        "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}))
    script = tmp_path / "first_window.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, QT_QPA_PLATFORM=f"offscreen:configfile={screen}")
    done = subprocess.run([sys.executable, str(script), str(HERE),
                           str(tmp_path / "settings.json")],
                          capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["window"][0] >= 1016 and seen["boxes"] == 18, seen
    # the graph the larger part of its row, and more than a strip high
    assert seen["graph"][0] >= 0.55 * 1024 and seen["graph"][1] >= 300, seen
    # the key beside the graph, or folded away: never a strip below as high as the graph
    assert seen["key"] in ("beside", "folded"), seen
    if seen["key"] == "beside":
        assert seen["key_size"][0] <= 0.4 * seen["graph"][0], seen
    # four boxes whole at least (two were), named at a size a hall reads
    assert len(seen["whole"]) >= 4 and seen["label_px"] >= 14, seen
    assert all(name.startswith(("trunk", "heads", "z")) for name in seen["whole"]), seen
