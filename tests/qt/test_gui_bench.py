"""`gradviz bench --gui`'s window part, briefly: it trains in the real two-process app,
measures, and prints nothing but its numbers (the offscreen plugin warned once a window)."""
import pytest

from gradviz.core.config import Config
from gradviz.qt.gui_bench import run_gui_bench


@pytest.mark.no_qt_log   # Qt's messages as the command's user sees them, on stderr
def test_the_gui_bench_measures_the_real_app_quietly(capfd):
    result = run_gui_bench(Config(batch_size=16, steps=50), seconds=0.5, launch=False)
    assert result["steps_per_second"] > 0
    assert 0 < result["median_gap_ms"] <= result["p99_gap_ms"] <= result["max_gap_ms"]
    assert "propagateSizeHints" not in capfd.readouterr().err
