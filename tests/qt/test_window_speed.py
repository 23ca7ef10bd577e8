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


MODEL_BRIEF = """
import json
from gradviz.plain.config import Config
from gradviz.qt.window_speed import measure_window
if __name__ == "__main__":
    result = measure_window(Config(batch_size=16, steps=50, heads=3), seconds=0.5,
                            launch=False, model_path=PATH)
    print(json.dumps(result))
"""


def test_the_window_speed_check_trains_a_model_file_in_the_app(run_script):
    """`gradviz bench --model FILE --gui`: the window trains the file, not the built-in
    model (deep supervision: three heads at three depths)."""
    from gradviz.qt.model_menu import example_path
    path = example_path("deep_supervision")
    out = run_script(MODEL_BRIEF.replace("PATH", repr(path)), "brief_model_bench.py")
    assert out.returncode == 0, out.stderr[-2000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["model_path"] == path
    assert result["steps_per_second"] > 0
