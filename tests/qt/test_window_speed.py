"""`gradviz bench --gui`'s window phase, briefly, in a process of its own as the command
runs it: it trains in the real two-process app (no torch in the window's process),
measures, and prints nothing but its numbers (the offscreen plugin used to warn once a
window)."""
from gradviz.commands.window_phase import job_arguments, phase_process, phase_result
from gradviz.plain.config import Config
from gradviz.qt.window_speed import lateness_summary


def _in_order(result: dict) -> bool:
    return 0 <= result["median_late_ms"] <= result["p99_late_ms"] <= result["max_late_ms"]


def test_the_window_speed_check_measures_the_real_app_quietly():
    out = phase_process(job_arguments(Config(batch_size=16, steps=50), 0.5, (1024, 768)))
    assert out.returncode == 0, out.stderr[-2000:]
    result = phase_result(out)
    assert result["steps"] > 0 and result["steps_per_second"] > 0
    assert _in_order(result)
    assert result["torch_in_window_process"] is False
    assert 0 < result["window_cpu_share"]
    assert "propagateSizeHints" not in out.stderr, out.stderr[-500:]


def test_the_window_speed_check_trains_a_model_file_in_the_app():
    """`gradviz bench --model FILE --gui`: the window trains the file, not the built-in
    model (deep supervision: three heads at three depths, named by the file)."""
    from gradviz.qt.model_menu import example_path
    path = example_path("deep_supervision")
    out = phase_process(job_arguments(Config(batch_size=16, steps=50, heads=3), 0.5,
                                      (1920, 1080), model_path=path))
    assert out.returncode == 0, out.stderr[-2000:]
    result = phase_result(out)
    assert result["heads"] == ["shallow", "middle", "deep"]
    assert result["steps_per_second"] > 0


def test_lateness_is_summarised_by_nearest_rank():
    late = [i / 1000 for i in range(1, 201)]   # 1 ms ... 200 ms, a probe tick each
    summary = lateness_summary(late)
    assert summary["median_late_ms"] == 100.0
    assert summary["p99_late_ms"] == 198.0
    assert summary["max_late_ms"] == 200.0
