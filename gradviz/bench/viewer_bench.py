"""`gradviz bench --viewer`: a folder of 8 made-up runs of 100,000 steps each, drawn over
each other in the recorded-run window (a process of its own, gradviz.bench.qt.viewer_speed),
and how late the window answered while a user moved its controls."""
from __future__ import annotations

from ..exit_codes import EXIT_OK
from .window_phase import PROBE_MS, phase_process, phase_result

ANSWER_GOAL_MS = 30      # the window answers within this, at the 99th percentile
VIEWER_TIMEOUT_S = 3600  # writing and reading 800,000 steps, on a slow machine at worst
VIEWER_SIZE = (1920, 1080)


def _ms(value: float) -> str:
    return f"{value:.1f}" if value < 10 else f"{value:.0f}"


def _times(times_ms: dict[str, float]) -> str:
    return ", ".join(f"{name} {_ms(ms)} ms" for name, ms in times_ms.items()) or "none"


def viewer_lines(result: dict) -> list[str]:
    p99 = result["p99_late_ms"]
    verdict = "within" if p99 <= ANSWER_GOAL_MS else "over"
    return [
        f"viewer: {result['runs']} runs of {result['steps']:,} steps each, drawn over each "
        f"other (written in {result['write_s']:.0f} s, read by the window in "
        f"{result['load_s']:.0f} s); then {result['moves']} moves in "
        f"{result['seconds']:.0f} s (the smoothing slider, the x axis, a run unticked and "
        f"ticked, the agreement's tab): the window answered {_ms(result['median_late_ms'])} "
        f"ms late (median), {_ms(p99)} ms (99%), {_ms(result['max_late_ms'])} ms (worst), "
        f"by a {PROBE_MS} ms probe timer: {verdict} the {ANSWER_GOAL_MS} ms goal",
        f"the window's own work between two ticks (its thread's CPU time: another "
        f"program's turns not counted): {_ms(result['p99_busy_ms'])} ms (99%), "
        f"{_ms(result['max_busy_ms'])} ms (worst)",
        f"slowest chart updates: {_times(result['slowest_update_ms'])}; slowest moves "
        f"(the move itself): {_times(result['slowest_move_ms'])}",
        f"load average (1 min) {result['load_average']:.1f} on {result['cores']} cores"]


def print_viewer(size: tuple[int, int], quiet: bool) -> int:
    if not quiet:
        print(f"gradviz bench --viewer: the recorded-run window ({size[0]}x{size[1]}, "
              f"offscreen, its own process) on a folder of made-up runs in the watch's "
              f"format, every run ticked, once every step is read", flush=True)
    out = phase_process(["--size", f"{size[0]}x{size[1]}"], VIEWER_TIMEOUT_S,
                        "gradviz.bench.qt.viewer_speed")
    for line in viewer_lines(phase_result(out)):
        print(line)
    return EXIT_OK
