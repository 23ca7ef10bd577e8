"""`gradviz bench --gui`'s window phase, briefly, in a process of its own as the command
runs it: it trains in the real two-process app (no torch in the window's process),
measures, and prints nothing but its numbers (the offscreen plugin used to warn once a
window)."""
from test_window_reaches import QT, reaches

from gradviz.bench.qt.window_speed import lateness_summary
from gradviz.bench.window_phase import job_arguments, phase_process, phase_result
from gradviz.plain.config.config import Config

BENCH_QT = QT.parent / "bench" / "qt"   # the window's benchmarks


def _in_order(result: dict) -> bool:
    return 0 <= result["median_late_ms"] <= result["p99_late_ms"] <= result["max_late_ms"]


def test_the_window_speed_check_measures_the_real_app_quietly_on_a_model_file():
    """`gradviz bench --model FILE --gui`: the window trains the file, not the built-in
    model (deep supervision: three heads at three depths, named by the file). One run
    for both: what is measured does not depend on which model trains."""
    from gradviz.qt.model_menu import example_path
    path = example_path("deep_supervision")
    out = phase_process(job_arguments(Config(batch_size=16, steps=50, heads=3), 0.5,
                                      (1024, 768), model_path=path))
    assert out.returncode == 0, out.stderr[-2000:]
    result = phase_result(out)
    assert result["heads"] == ["shallow", "middle", "deep"]
    assert result["steps"] > 0 and result["steps_per_second"] > 0
    assert _in_order(result)
    assert result["torch_in_window_process"] is False
    assert 0 < result["window_cpu_share"]
    # each process's CPU time a step (/proc counts the engine's in 10 ms ticks: it may
    # be 0 in half a second on a busy machine), and the step count on screen
    assert result["window_cpu_ms_per_step"] > 0 and result["engine_cpu_ms_per_step"] >= 0
    first, last = result["shown_steps"]
    assert first is not None and last >= first and result["shown_advances"] >= 0
    assert 0 < result["longest_stall_s"] <= result["seconds"] + 1
    assert "propagateSizeHints" not in out.stderr, out.stderr[-500:]


def test_lateness_is_summarised_by_nearest_rank():
    late = [i / 1000 for i in range(1, 201)]   # 1 ms ... 200 ms, a probe tick each
    summary = lateness_summary(late)
    assert summary["median_late_ms"] == 100.0
    assert summary["p99_late_ms"] == 198.0
    assert summary["max_late_ms"] == 200.0


def test_a_frozen_window_ends_its_phase_and_says_so(qtbot):
    """The event loop stopped turning (no probe tick for longer than the limit): the
    watch reports what was measured and the freeze, and ends the phase."""
    import threading
    import time

    from gradviz.bench.qt.window_speed import Probe, watch_for_a_freeze
    probe = Probe(until=time.perf_counter() + 3600, done=lambda: None)
    probe.late = [0.001, 0.002, 0.004]
    probe.last_turn = time.perf_counter() - 100   # its last tick, 100 s ago
    reports: list[dict] = []
    ended = threading.Event()
    watch = watch_for_a_freeze(probe, reports.append, end=ended.set, frozen_s=30,
                               look_s=0.01)
    assert ended.wait(timeout=60)
    watch.join(timeout=60)
    assert len(reports) == 1
    assert reports[0]["frozen_s"] >= 100
    assert reports[0]["max_late_ms"] == 4.0


def test_a_phase_that_ended_is_not_called_frozen(qtbot):
    import time

    from gradviz.bench.qt.window_speed import Probe, watch_for_a_freeze
    probe = Probe(until=time.perf_counter(), done=lambda: None)
    probe.finished = True   # ended normally, then closing the window took long
    probe.last_turn = time.perf_counter() - 100
    reports: list[dict] = []
    watch = watch_for_a_freeze(probe, reports.append, end=lambda: None, frozen_s=30,
                               look_s=0.01)
    watch.join(timeout=60)
    assert not watch.is_alive() and reports == []


def test_the_window_benchmark_uses_the_model_and_public_methods_only():
    """What it reads off the window: the model (engine facts, the drawn-off-screen
    switch), the history the panels draw, the status line's words (the step count on
    screen), refresh, Play and Compare's pin."""
    used = set(reaches((BENCH_QT / "window_speed.py").read_text()))
    assert used <= {"model", "history", "status", "refresh", "toggle_play", "compare"}, used


def test_the_slide_benchmark_uses_the_model_and_the_lessons_only():
    """What `bench --slides` reads off the window: the model (the slide's preparing line,
    the drawn-off-screen switch), the history (the first model in) and the lessons (the
    slide on screen, the first lesson opened), and the keys a clicker sends."""
    used = set(reaches((BENCH_QT / "slide_speed.py").read_text()))
    assert used <= {"model", "history", "lessons"}, used
