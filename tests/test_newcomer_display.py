"""A newcomer's first launch on Linux: a missing system library is named in one line
(with the apt-get line that installs it) before Qt would abort, and an offscreen window,
never seen, says so and how to quit."""
import os
import queue
import signal
import subprocess
import sys
import threading

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from gradviz.qt.display import (
    QT_LIBRARIES,
    XCB_LIBRARIES,
    can_load,
    display_problem,
    invisible_notice,
    missing_libraries,
    qt_platform,
)

X_DESKTOP = {"DISPLAY": ":0"}
EVERY_LIBRARY = [soname for soname, _ in QT_LIBRARIES + XCB_LIBRARIES]


def loader(missing):
    return lambda soname: soname not in missing


def test_all_libraries_present_means_no_problem():
    assert display_problem(X_DESKTOP, "linux", loader(set())) is None


def test_a_missing_xcb_library_names_its_package_and_the_apt_line():
    line = display_problem(X_DESKTOP, "linux", loader({"libxcb-icccm.so.4"}))
    assert "\n" not in line
    assert "libxcb-icccm.so.4" in line
    assert "sudo apt-get install libxcb-icccm4" in line
    assert "QT_QPA_PLATFORM=offscreen" in line     # the way around it, without a window


@given(st.sets(st.sampled_from(EVERY_LIBRARY), min_size=1))
def test_the_line_installs_exactly_the_packages_missing(missing):
    line = display_problem(X_DESKTOP, "linux", loader(missing))
    assert "\n" not in line
    packages = line.split("sudo apt-get install ", 1)[1].split(";")[0].split()
    want = {package for soname, package in QT_LIBRARIES + XCB_LIBRARIES if soname in missing}
    assert sorted(packages) == sorted(want)            # each once, none more
    assert all(soname in line for soname in missing)


@given(st.sets(st.sampled_from([s for s, _ in XCB_LIBRARIES]), min_size=1))
def test_offscreen_and_wayland_need_no_x_library(missing):
    assert display_problem({"QT_QPA_PLATFORM": "offscreen"}, "linux", loader(missing)) is None
    assert display_problem({"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"}, "linux",
                           loader(missing)) is None


def test_offscreen_still_needs_what_every_qt_window_needs():
    line = display_problem({"QT_QPA_PLATFORM": "offscreen"}, "linux", loader({"libEGL.so.1"}))
    assert "sudo apt-get install libegl1" in line


def test_no_display_is_one_line_and_other_systems_are_left_alone():
    line = display_problem({}, "linux", loader(set()))
    assert "DISPLAY is not set" in line and "\n" not in line
    assert display_problem({}, "darwin", loader(set(EVERY_LIBRARY))) is None
    assert display_problem({}, "win32", loader(set(EVERY_LIBRARY))) is None


@pytest.mark.parametrize("environ, platform", [
    ({}, "xcb"), ({"QT_QPA_PLATFORM": "xcb"}, "xcb"),
    ({"QT_QPA_PLATFORM": "offscreen"}, "offscreen"),
    ({"QT_QPA_PLATFORM": "wayland;xcb"}, "wayland"),
    ({"XDG_SESSION_TYPE": "wayland"}, "wayland"),
    ({"XDG_SESSION_TYPE": "wayland", "QT_QPA_PLATFORM": "xcb"}, "xcb"),
])
def test_the_platform_is_the_one_qt_tries_first(environ, platform):
    assert qt_platform(environ) == platform


def test_the_loader_tells_a_real_library_from_a_missing_one():
    assert can_load("libc.so.6") if sys.platform == "linux" else True
    assert not can_load("libgradviz-no-such-library.so.0")


@pytest.mark.skipif(sys.platform != "linux" or not missing_libraries("xcb"),
                    reason="this machine has every library Qt's X window needs")
def test_the_app_on_an_x_display_without_its_libraries_exits_2_in_one_line(tmp_path):
    """Here some are missing: the real app, on an X display, says which instead of Qt's
    abort (exit 134)."""
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY",
                                                             "XDG_SESSION_TYPE")}
    env.update(DISPLAY=":99", GRADVIZ_SETTINGS=str(tmp_path / "settings.json"))
    proc = subprocess.run([sys.executable, "-I", "-m", "gradviz"], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "sudo apt-get install" in proc.stderr


def test_the_notice_is_for_an_invisible_window_only():
    assert invisible_notice({"QT_QPA_PLATFORM": "offscreen"}, "shot.png") is None
    assert invisible_notice({}, None) is None
    assert invisible_notice({"QT_QPA_PLATFORM": "xcb"}, None) is None
    assert "Ctrl+C" in invisible_notice({"QT_QPA_PLATFORM": "minimal"}, None)


def _lines(stream, into: queue.Queue) -> None:
    for line in stream:
        into.put(line)
    into.put(None)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT is a POSIX terminal's Ctrl+C")
def test_an_offscreen_app_says_it_is_invisible_and_ctrl_c_quits(tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen",
               GRADVIZ_SETTINGS=str(tmp_path / "settings.json"))
    proc = subprocess.Popen([sys.executable, "-I", "-m", "gradviz"], env=env, cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=_lines, args=(proc.stderr, lines), daemon=True).start()
    try:
        seen = []
        while not any("offscreen" in line for line in seen):
            line = lines.get(timeout=600)     # bounded: a silent app fails, never hangs
            assert line is not None, f"the app ended without the notice: {seen}"
            seen.append(line)
        notice = next(line for line in seen if "offscreen" in line)
        assert "never shown" in notice and "Ctrl+C" in notice and "--screenshot" in notice
        proc.send_signal(signal.SIGINT)       # as the notice says
        assert proc.wait(timeout=600) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert seen == [notice], seen             # the notice, and only it, before the quit


ENV_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"),
                   max_size=40)


@example({"QT_QPA_PLATFORM": "a\nb"}, {"libEGL.so.1"}, None)
@given(st.dictionaries(st.sampled_from(["QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY",
                                        "XDG_SESSION_TYPE"]), ENV_TEXT),
       st.sets(st.sampled_from(EVERY_LIBRARY)), st.none() | ENV_TEXT)
def test_any_environment_gives_one_line_or_nothing(environ, missing, screenshot):
    for line in (display_problem(environ, "linux", loader(missing)),
                 invisible_notice(environ, screenshot)):
        assert line is None or (line.startswith("gradviz: ") and "\n" not in line)
