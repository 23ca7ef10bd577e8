"""The compare view fed by a real `gradviz compare` run in its own process, as the window
does it: the verdict, the per-group table, B as a ghost line."""
import html
import re

from PySide6.QtWidgets import QLabel, QTableWidget

from gradviz.plain.config.config import Config
from gradviz.qt.compare_runner import CompareRunner
from gradviz.qt.widgets.compare_view import CompareView


def test_a_comparison_runs_apart_and_is_shown_and_a_bad_b_file_is_one_line(qtbot, tmp_path):
    """Two comparisons at once, each in its own process (they are independent: one
    wait for both): one that runs, one whose B file builds another model."""
    b = tmp_path / "in-loop.toml"
    b.write_text('strategy = "in-loop"\n')
    bad = tmp_path / "bad.toml"
    bad.write_text("heads = 2\n")
    runner, view = CompareRunner(), CompareView()
    bad_runner, bad_view = CompareRunner(), CompareView()
    for v in (view, bad_view):
        qtbot.addWidget(v)
    runner.finished.connect(view.show_comparison)
    bad_runner.failed.connect(bad_view.show_failed)
    failures: list[str] = []
    bad_runner.failed.connect(failures.append)
    with qtbot.waitSignals([runner.finished, bad_runner.failed], timeout=120_000):
        runner.start(Config(batch_size=32), str(b), steps=4)
        bad_runner.start(Config(), str(bad), steps=2)
    verdict = html.unescape(re.sub("<[^>]+>", "", view.findChild(QLabel, "compareVerdict").text()))
    assert "different: B's gradient on the trunk, head 0: 3.00× A's, head 1: 2.00×" in verdict
    table = view.findChild(QTableWidget, "compareTable")
    assert [table.item(r, 0).text() for r in range(table.rowCount())] == \
        ["trunk", "head0", "head1", "head2"]
    assert len(view.loss_plot.listDataItems()) == 2        # A and its ghost B
    assert view.data["b"]["strategy"] == "in-loop" and len(view.data["steps"]) == 4
    assert len(failures) == 1 and "must build the same model" in failures[0]
    assert "Not compared" in bad_view.verdict.text()


def test_stopping_a_comparison_kills_it(qtbot, tmp_path):
    b = tmp_path / "b.toml"
    b.write_text("")
    runner = CompareRunner()
    runner.start(Config(), str(b), steps=100_000)
    assert runner.running
    with qtbot.assertNotEmitted(runner.finished):
        runner.stop()
    assert not runner.running
