"""A saved dock layout from the settings file reaches QMainWindow.restoreState only after
gradviz's own check: Qt uses a dock-area index from the bytes unchecked and crashes."""
import base64
import inspect
import json
import os
import struct
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from PySide6.QtCore import QByteArray
from PySide6.QtWidgets import QDockWidget

from gradviz.plain.config.config import Config
from gradviz.qt import launch
from gradviz.qt.window_layout import restore_state
from gradviz.qt.window_state import BadLayout, check_window_state

from waits import WAIT_MS

AREA_INDEX_AT = 13   # version marker, version, dock marker, area count: then the first index


@pytest.fixture
def saved(module_window):
    """A real window's layout (the module's one window: its engine is not used here), and
    the names of its docks."""
    window = module_window
    window.first_layout()
    names = {dock.objectName() for dock in window.findChildren(QDockWidget)}
    return bytes(window.saveState().data()), names, window


def with_area_index(state: bytes, index: int) -> bytes:
    return state[:AREA_INDEX_AT] + struct.pack(">i", index) + state[AREA_INDEX_AT + 4:]


def test_the_layout_gradviz_saves_passes_and_restores(saved):
    state, names, window = saved
    check_window_state(state, names)
    assert restore_state(window, QByteArray(state))


@pytest.mark.parametrize("change", [
    lambda s: with_area_index(s, 4),                 # Qt writes docks[4]: past its array
    lambda s: with_area_index(s, -1),
    lambda s: with_area_index(s, 100_000),
    lambda s: s[:-1],                                # cut short
    lambda s: s + b"\0",                             # something after it
    lambda s: s[:-4] + struct.pack(">i", 1),         # a toolbar line gradviz has no toolbar for
    lambda s: s.replace("graphDock".encode("utf-16-be"), "evilxDock".encode("utf-16-be")),
    lambda s: b"",
    lambda s: b"\xff" * 64,
])
def test_a_tampered_layout_is_refused(saved, change):
    state, names, _ = saved
    with pytest.raises(BadLayout):
        check_window_state(change(state), names)


def test_the_same_dock_twice_and_deep_nesting_are_refused(saved):
    _, names, _ = saved
    head = struct.pack(">ii", 0xFF, 0) + b"\xfd" + struct.pack(">iiii", 1, 0, 100, 100)

    def widget(name):
        encoded = name.encode("utf-16-be")
        return b"\xfb" + struct.pack(">I", len(encoded)) + encoded + b"\x01" + b"\0" * 16
    tail = struct.pack(">iiiiii", 100, 100, 4, 4, 8, 8) + b"\xfc" + struct.pack(">i", 0)
    twice = head + b"\xfc\x02" + struct.pack(">i", 2) + widget("graphDock") * 2 + tail
    with pytest.raises(BadLayout):
        check_window_state(twice, names)
    nested = b"".join(b"\xfc\x02" + struct.pack(">i", 1) + b"\xfc" + b"\0" * 16
                      for _ in range(20))
    with pytest.raises(BadLayout):
        check_window_state(head + nested, names)
    once = head + b"\xfc\x02" + struct.pack(">i", 1) + widget("graphDock") + tail
    check_window_state(once, names)   # the same bytes with the dock once are a layout


def test_a_poisoned_settings_file_starts_the_window_on_defaults_and_the_first_layout(
        qtbot, saved, tmp_path, monkeypatch, capsys):
    """Every key a pickle (the theme, zoom, pace and config refused by their type, the
    geometry valid base64 that Qt refuses) and the window_state a crafted layout (which
    crashed the process before): the window starts with defaults at its first-launch
    size, one warning a key, nothing run, and closing it writes clean JSON."""
    from test_settings_security import pickles, warnings, write_poisoned_ini

    from gradviz.qt.main_window import MainWindow
    state, _, _ = saved
    marker, path = tmp_path / "MARKER", tmp_path / "settings.json"
    write_poisoned_ini(tmp_path / "gradviz.ini", marker)
    b64 = base64.b64encode(pickles(marker)[5]).decode("ascii")
    crafted = base64.b64encode(with_area_index(state, 100_000)).decode("ascii")
    path.write_text(json.dumps({"version": 2, "config": b64, "theme": b64, "zoom": b64,
                                "pace_ms": b64, "geometry": b64, "window_state": crafted}))
    monkeypatch.setenv(launch.SETTINGS_ENV, str(path))
    capsys.readouterr()
    settings, remembered = launch.load_settings()
    window = MainWindow(remembered, settings, engine_in_process=True)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.model.generation >= 1, timeout=WAIT_MS)
    screen = window.screen().availableGeometry()
    # the first-launch size: most of the screen (never past its edge)
    assert window.isVisible() and window.width() >= min(1024, screen.width())
    assert window.theme.name == "light" and window.theme.zoom == 1.0
    assert window.run_bar.speed.value() == 0 and window.controls.config() == Config()
    window.close()
    lines = warnings(capsys.readouterr().err)
    assert [line.split()[2] for line in lines] == ["config", "theme", "zoom", "pace_ms",
                                                   "geometry", "window_state"], lines
    assert lines[4] == ("gradviz: settings: geometry is not a window geometry Qt accepts; "
                        "using the first-launch size")
    assert lines[5] == ("gradviz: settings: window_state is not a window layout Qt accepts; "
                        "using the first-launch layout")
    assert not marker.exists()
    assert json.loads(path.read_text())["version"] == 2   # closing wrote clean JSON


def stand_in_window(names):
    """A bare QMainWindow with an empty dock for each name: what Qt's restoreState reads
    a layout against (docks by name), without gradviz's panels to lay out each time."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QMainWindow
    window = QMainWindow()
    for name in sorted(names):
        dock = QDockWidget(name, window)
        dock.setObjectName(name)
        window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
    return window


RAW = f"""
import sys
from PySide6.QtCore import QByteArray
from PySide6.QtWidgets import QApplication, QDockWidget
app = QApplication([])
{inspect.getsource(stand_in_window)}
window = stand_in_window(sys.argv[2:])
window.restoreState(QByteArray(open(sys.argv[1], "rb").read()))
"""


def test_why_the_check_exists_raw_restore_state_crashes(saved, tmp_path):
    """Qt's own restoreState, unchecked, on a window with gradviz's docks (a bare one:
    the crash is Qt's reading of the bytes, before any panel is laid out)."""
    state, names, _ = saved
    crafted = tmp_path / "state.bin"
    crafted.write_bytes(with_area_index(state, 100_000))
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run([sys.executable, "-c", RAW, str(crafted), *sorted(names)],
                          capture_output=True, timeout=600, env=env)
    if proc.returncode == 0:
        pytest.skip("this Qt checks the dock-area index itself")
    assert proc.returncode in (-11, 139, -6, 134)     # SIGSEGV or SIGABRT, not an error


@pytest.fixture
def stand_in(saved):
    """A stand-in (above) on gradviz's own layout; hypothesis's examples share it."""
    state, names, _ = saved
    window = stand_in_window(names)
    assert window.restoreState(QByteArray(state))   # gradviz's own layout: Qt takes it
    yield window
    window.deleteLater()


@hsettings(max_examples=300, deadline=None,
           suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(edits=st.lists(st.tuples(st.integers(0, 400), st.binary(min_size=1, max_size=4)),
                      min_size=1, max_size=6))
def test_a_mutated_layout_is_refused_or_restored_never_a_crash(saved, stand_in, edits):
    state, _, _ = saved
    window = stand_in
    data = bytearray(state)
    for at, chunk in edits:
        at = at % (len(data) + 1)
        data[at:at + len(chunk)] = chunk
    try:
        assert restore_state(window, QByteArray(bytes(data))) in (True, False)
    finally:   # the window is shared: the next example starts from gradviz's layout
        window.restoreState(QByteArray(state))
