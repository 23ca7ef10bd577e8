"""The compare view fed by a real `gradviz compare` run in its own process, as the window
does it: the verdict, the per-group table, B as a ghost line."""
import html
import re

from PySide6.QtWidgets import QLabel, QTableWidget

from gradviz.plain.config import Config
from gradviz.qt.compare_runner import CompareRunner
from gradviz.qt.widgets.compare_view import CompareView


def test_a_comparison_runs_apart_and_is_shown(qtbot, tmp_path):
    b = tmp_path / "in-loop.toml"
    b.write_text('strategy = "in-loop"\n')
    runner, view = CompareRunner(), CompareView()
    qtbot.addWidget(view)
    runner.finished.connect(view.show_comparison)
    with qtbot.waitSignal(runner.finished, timeout=120_000):
        runner.start(Config(batch_size=32), str(b), steps=4)
    verdict = html.unescape(re.sub("<[^>]+>", "", view.findChild(QLabel, "compareVerdict").text()))
    assert "different: B's gradient on the trunk, head 0: 3.00× A's, head 1: 2.00×" in verdict
    table = view.findChild(QTableWidget, "compareTable")
    assert [table.item(r, 0).text() for r in range(table.rowCount())] == \
        ["trunk", "head0", "head1", "head2"]
    assert len(view.loss_plot.listDataItems()) == 2        # A and its ghost B
    assert view.data["b"]["strategy"] == "in-loop" and len(view.data["steps"]) == 4


def test_a_bad_b_file_is_one_line(qtbot, tmp_path):
    b = tmp_path / "bad.toml"
    b.write_text("heads = 2\n")
    runner, view = CompareRunner(), CompareView()
    qtbot.addWidget(view)
    runner.failed.connect(view.show_failed)
    with qtbot.waitSignal(runner.failed, timeout=120_000) as blocker:
        runner.start(Config(), str(b), steps=2)
    assert "must build the same model" in blocker.args[0]
    assert "Not compared" in view.verdict.text()


def test_stopping_a_comparison_kills_it(qtbot, tmp_path):
    b = tmp_path / "b.toml"
    b.write_text("")
    runner = CompareRunner()
    runner.start(Config(), str(b), steps=100_000)
    assert runner.running
    with qtbot.assertNotEmitted(runner.finished):
        runner.stop()
    assert not runner.running
