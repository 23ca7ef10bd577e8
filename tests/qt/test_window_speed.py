"""`gradviz bench --gui`'s window part, briefly, in a process of its own as the command
runs it: it trains in the real two-process app, measures, and prints nothing but its
numbers (the offscreen plugin used to warn once a window)."""
import json

BRIEF = """
import json
from gradviz.plain.config import Config
from gradviz.qt.window_speed import measure_window
if __name__ == "__main__":
    result = measure_window(Config(batch_size=16, steps=50), seconds=0.5, launch=False)
    print(json.dumps(result))
"""


def test_the_window_speed_check_measures_the_real_app_quietly(run_script):
    out = run_script(BRIEF, "brief_bench.py")
    assert out.returncode == 0, out.stderr[-2000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["steps_per_second"] > 0
    assert 0 < result["median_gap_ms"] <= result["p99_gap_ms"] <= result["max_gap_ms"]
    assert "propagateSizeHints" not in out.stderr, out.stderr[-500:]
