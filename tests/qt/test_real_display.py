"""On a real X server (Xvfb), as a lecturer's laptop would run it: at 1280x720 and
1024x768 the window fits at launch, legibly (no chart crushed under its title, no stray
tab bar), after Ctrl+= three times, after clicking a parameter and after Ctrl+= as
often as the text can grow; PageDown changes the slide; Ctrl+Q quits within a second.
Skipped where Xvfb or Qt's X libraries are missing (the README says which Debian packages
they are)."""
import json
import os
import random
import select
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gradviz.qt.display import missing_libraries

HERE = Path(__file__).resolve().parent

needs_x = pytest.mark.skipif(
    sys.platform != "linux" or not shutil.which("Xvfb") or bool(missing_libraries("xcb")),
    reason="needs Xvfb and Qt's X libraries (the README's apt-get line)")


def _start_xvfb(size: str) -> tuple[subprocess.Popen, int]:
    """Xvfb on a display number of its own; it writes that number to a pipe once it
    accepts clients (-displayfd): the wait is on that, not on time. The number is drawn
    at random from a high range rather than Xvfb's lowest free one: a server of another
    test still shutting down on a number just freed took the new server's socket with
    it ("could not connect to display :0" in CI, with the tests run in parallel). A
    number in use makes Xvfb exit, and another is drawn. -noreset: by default Xvfb
    resets itself each time its last client leaves, and drops a client that connects
    meanwhile ("could not connect to display" in CI, the app starting while a test's
    xdotool looked for its window)."""
    for _ in range(20):
        number = random.randrange(100, 30_000)
        read_end, write_end = os.pipe()
        xvfb = subprocess.Popen(["Xvfb", f":{number}", "-displayfd", str(write_end),
                                 "-noreset", "-nolisten", "tcp", "-screen", "0",
                                 f"{size}x24"],
                                pass_fds=(write_end,),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write_end)
        with os.fdopen(read_end) as ready:
            # ready, or closed by Xvfb's exit (the number in use): either wakes this
            ready_in_time, _, _ = select.select([ready], [], [], 120)   # a busy machine
            said = ready.readline().strip() if ready_in_time else ""
        if said.isdigit():
            return xvfb, int(said)
        xvfb.kill()
        xvfb.wait(10)
    pytest.fail("Xvfb did not start")


def _launch(tmp_path, size: str) -> tuple[subprocess.Popen, subprocess.Popen]:
    """x_display_check.py started on an Xvfb screen of `size` of its own (not awaited)."""
    xvfb, n = _start_xvfb(size)
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    env.update(DISPLAY=f":{n}", GRADVIZ_SETTINGS=str(tmp_path / f"settings-{size}.json"))
    proc = subprocess.Popen([sys.executable, str(HERE / "x_display_check.py")], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return xvfb, proc


def _result(proc: subprocess.Popen) -> dict:
    """The check's JSON, once it ended."""
    stdout, stderr = proc.communicate(timeout=240)
    assert proc.returncode == 0, stderr[-2000:]
    result = json.loads(stdout.strip().splitlines()[-1])
    assert "error" not in result, result
    return result


def _end(xvfb: subprocess.Popen, proc: subprocess.Popen) -> None:
    if proc.poll() is None:   # a check that failed on the other screen's account
        proc.kill()
        proc.communicate()
    xvfb.terminate()
    xvfb.wait(10)


@needs_x
def test_the_window_fits_a_projector_and_quits_quickly(tmp_path):
    """Both screens at once: two Xvfb servers, the two windows launched together (each
    its own processes and settings file), both awaited, then each one's facts."""
    launched = []
    try:
        for size in ("1280x720", "1024x768"):
            launched.append((size, *_launch(tmp_path, size)))
        results = {size: _result(proc) for size, _, proc in launched}
    finally:
        for _, xvfb, proc in launched:
            _end(xvfb, proc)
    for size, result in results.items():
        _fits_legibly(size, result)


def _fits_legibly(size: str, result: dict) -> None:
    for moment in ("launch", "zoomed", "history", "largest", "next_slide"):
        width, height, screen_w, screen_h, inside = result[moment]
        assert inside and width <= screen_w and height <= screen_h, (moment, result[moment], size)
    # a first launch on a projector takes all of it (at 92%, 100 px of 1280 went unused)
    width, height, screen_w, screen_h, _ = result["launch"]
    assert (width, height) == (screen_w, screen_h), result["launch"]
    # legible at launch: no stray tab bar, the loss curves with room, the charts in tabs
    assert result["stale_tabs"] == []
    height, least = result["loss_plot_height"]
    assert height >= least, result["loss_plot_height"]
    assert result["charts_in_tabs"]
    assert result["settings_beside_charts"] == [True, True], result["settings_beside_charts"]
    # Ctrl+= three times took effect, as far as the slide on screen still fits (in a
    # lesson, a panel below its least size or a scrolled narration stops the text)
    assert result["active"] and result["zoom"] > 1.3
    # 1.15 ** 8 = 3.06 needs more than either screen: the text stopped growing where the
    # window still fits, and the status line says why
    assert 1.3 < result["largest_zoom"] < 2.5, result["largest_zoom"]
    assert "is the largest this" in result["largest_notice"], result["largest_notice"]
    # a slide's chart and its narration both seen (at 1024x768 the chart was a tab
    # behind the narration)
    assert all(result["slide_seen"].values()), result["slide_seen"]
    needed, shown = result["narration_whole"]   # at 1024x768 its Notice needed scrolling
    assert needed <= shown + 2, result["narration_whole"]
    before, after = result["page_down"]
    assert "slide 1/3" in before and "slide 2/3" in after
    print(f"{size}: quitting took {result['quit_seconds'] * 1000:.0f} ms")   # bench --gui's claim
