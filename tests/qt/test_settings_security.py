"""The settings file is input from anywhere: it must never run code (PySide6's QSettings
unpickled `@Variant(... PyObjectWrapper ...)` values), and a corrupt, huge or hostile
one must start the app with defaults and one warning line per bad value."""
import base64
import errno
import json
import os
import pickle
import shlex
import subprocess
import sys

import pytest
from PySide6.QtCore import QByteArray

from gradviz.plain.config.config import Config
from gradviz.plain.window.window_model import PACES_MS
from gradviz.qt import launch
from gradviz.qt.settings import MAX_RECENT, AppSettings, Remembered

from waits import WAIT_MS

KEYS = ("config", "theme", "zoom", "pace_ms", "geometry", "window_state")


class RunsACommand:
    """Unpickling this runs a shell command: what an attacker puts in a settings file."""

    def __init__(self, command: str):
        self.command = command

    def __reduce__(self):
        return (os.system, (self.command,))


def pickles(marker) -> list[bytes]:
    command = f"touch {shlex.quote(str(marker))}"
    return [pickle.dumps(RunsACommand(command), protocol)
            for protocol in range(pickle.HIGHEST_PROTOCOL + 1)]


def variants(marker) -> list[str]:
    """Every pickle protocol, as raw bytes (latin-1 text) and as base64."""
    out = []
    for raw in pickles(marker):
        out += [raw.decode("latin-1"), base64.b64encode(raw).decode("ascii")]
    return out


def qsettings_ini_line(key: str, raw_pickle: bytes) -> str:
    """The line QSettings writes for a Python object: a QVariant of user type
    PySide::PyObjectWrapper whose stream form is the pickle, every byte escaped."""
    name = b"PySide::PyObjectWrapper\0"
    stream = (b"\0\0\0\x7f" + len(name).to_bytes(4, "big") + name
              + len(raw_pickle).to_bytes(4, "big") + raw_pickle)
    # every byte escaped: \0 for a zero (Qt misreads \x00), \xNN for the others
    escaped = "".join("\\0" if b == 0 else f"\\x{b:02x}" for b in stream)
    return f"{key}=@Variant({escaped})"


def write_poisoned_ini(path, marker) -> None:
    raw = pickles(marker)[4]
    lines = ["[General]", "version=1"]   # version 1 made the old loader read every key
    lines += [qsettings_ini_line(key, raw) for key in KEYS]
    path.write_text("\n".join(lines) + "\n")


def write_json(path, document) -> None:
    path.write_text(json.dumps(document))


def warnings(captured: str) -> list[str]:
    return [line for line in captured.splitlines() if line.startswith("gradviz: settings:")]


def assert_defaults(r: Remembered, *, config=True, theme=True, zoom=True, pace_ms=True,
                    geometry=True, window_state=True) -> None:
    if config:
        assert r.config == Config()
    if theme:
        assert r.theme == "light"
    if zoom:
        assert r.zoom == 1.0
    if pace_ms:
        assert r.pace_ms == 0
    if geometry:
        assert r.geometry is None
    if window_state:
        assert r.window_state is None


# ---- (a) no code runs, whatever the file holds -----------------------------------------
def test_the_crafted_ini_line_is_a_live_exploit_for_qsettings(tmp_path):
    """Proves the payload below is real: untyped QSettings.value() runs it. (In a child
    process: the command only touches a file in tmp_path.)"""
    marker = tmp_path / "QSETTINGS_RAN_IT"
    ini = tmp_path / "old.ini"
    write_poisoned_ini(ini, marker)
    code = ("from PySide6.QtCore import QSettings; import sys; "
            "QSettings(sys.argv[1], QSettings.IniFormat).value('geometry')")
    subprocess.run([sys.executable, "-c", code, str(ini)], timeout=300, capture_output=True)
    if not marker.exists():   # seen with PySide6 6.12 on Python 3.12: not (or no longer) live
        import PySide6
        pytest.skip(f"PySide6 {PySide6.__version__} does not unpickle this value")
    assert marker.exists()


def test_pickles_in_every_key_never_run(tmp_path, monkeypatch, capsys):
    marker = tmp_path / "MARKER"
    path = tmp_path / "settings.json"
    write_poisoned_ini(tmp_path / "gradviz.ini", marker)     # the old file, beside it
    monkeypatch.setenv(launch.SETTINGS_ENV, str(path))
    for payload in variants(marker):
        write_json(path, {"version": 2, **{key: payload for key in KEYS}})
        _, remembered = launch.load_settings()
        # base64 is valid base64: the layouts come back as inert bytes (Qt refuses them
        # when the window tries them, see the next test), never as an unpickled object
        assert_defaults(remembered, geometry=False, window_state=False)
        for data in (remembered.geometry, remembered.window_state):
            assert data is None or type(data) is QByteArray
        write_json(path, {"version": 2, "config": {k: payload for k in Config().to_dict()}})
        assert_defaults(launch.load_settings()[1])
        write_json(path, {"version": payload, "theme": "dark"})
        assert_defaults(launch.load_settings()[1])
        path.write_text(json.dumps(payload))                 # the whole file one string
        assert_defaults(launch.load_settings()[1])
    for raw in pickles(marker):                              # the whole file a pickle
        path.write_bytes(raw)
        assert_defaults(launch.load_settings()[1])
    capsys.readouterr()
    assert not marker.exists()


# ---- (b) corrupt files and bad values: defaults, one warning each ----------------------
HUGE = b'{"version": 2, "pad": "' + b"x" * (1024 * 1024) + b'"}'
DEEP = b"[" * 10_000 + b"]" * 10_000
WHOLE_FILE_CASES = {
    "not JSON": b"{not json",
    "binary": b"\x00\xff\xfe garbage \x80",
    "a JSON list": b"[1, 2]",
    "JSON null": b"null",
    "a JSON string": b'"settings"',
    "a JSON number": b"42",
    "10,000 levels deep": DEEP,
    "deep inside an object": b'{"version": 2, "config": ' + DEEP + b"}",
    "over 1 MB": HUGE,
    "an int of 5000 digits": b'{"version": 2, "pace_ms": ' + b"9" * 5000 + b"}",
    "no version": b'{"theme": "dark", "zoom": 2.0}',
    "version 1": b'{"version": 1, "theme": "dark"}',
    "version 3": b'{"version": 3, "theme": "dark"}',
    "version as text": b'{"version": "2", "theme": "dark"}',
    "version true": b'{"version": true, "theme": "dark"}',
}


@pytest.mark.parametrize("content", WHOLE_FILE_CASES.values(), ids=WHOLE_FILE_CASES.keys())
def test_an_unusable_file_gives_defaults_and_one_warning(tmp_path, capsys, content):
    path = tmp_path / "settings.json"
    path.write_bytes(content)
    remembered = AppSettings(path).load(Config())
    assert_defaults(remembered)
    assert len(warnings(capsys.readouterr().err)) == 1


def test_a_folder_or_a_fifo_as_the_file_is_refused_without_blocking(tmp_path, capsys):
    assert_defaults(AppSettings(tmp_path).load(Config()))
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "fifo.json"
        os.mkfifo(fifo)
        assert_defaults(AppSettings(fifo).load(Config()))   # would block for ever if read
    assert len(warnings(capsys.readouterr().err)) == (2 if hasattr(os, "mkfifo") else 1)


BAD_VALUES = {
    "config": ["[1, 2]", [1, 2], None, "string", 5, {"heads": 0}, {"trunk_width": 99_999},
               {"trunk_width": 4096, "trunk_depth": 64}, {"lr": 5000.0}, {"unknown": 1},
               {"loss_weights": [10**400, 1, 1]}, {"detach": [[[[1]]]]}, {"heads": "3"}],
    "theme": ["neon", 5, None, ["dark"], {"dark": True}, ""],
    "zoom": ["abc", float("nan"), float("inf"), float("-inf"), 1e308, 0, -1.0, 3.01, True,
             None, [1.0]],
    "pace_ms": [99999999999999999999, -1, 7, 1.5, "20", True, None, [20]],
    "geometry": ["!!!", "not base64 at all", 5, None, "", "AAA", ["AAAA"], "é"],
    "window_state": ["!!!", 5, None, "", "A", {"a": 1}],
}
CASES = [(key, value) for key, values in BAD_VALUES.items() for value in values]


@pytest.mark.parametrize("key,value", CASES, ids=[f"{k}={v!r:.30}" for k, v in CASES])
def test_a_bad_value_falls_back_alone_with_one_warning(tmp_path, capsys, key, value):
    good = {"config": Config(heads=2).to_dict(), "theme": "dark", "zoom": 1.5, "pace_ms": 50}
    document = {"version": 2, **good, key: value}
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(document))       # NaN and Infinity: Python's JSON writes them
    remembered = AppSettings(path).load(Config())
    assert len(warnings(capsys.readouterr().err)) == 1
    assert_defaults(remembered, **{k: k == key for k in KEYS})
    kept = {"config": remembered.config.heads == 2, "theme": remembered.theme == "dark",
            "zoom": remembered.zoom == 1.5, "pace_ms": remembered.pace_ms == 50}
    assert all(ok for k, ok in kept.items() if k != key), kept


def test_the_warning_reads_as_one_line(tmp_path, capsys):
    path = tmp_path / "settings.json"
    write_json(path, {"version": 2, "zoom": "abc"})
    AppSettings(path).load(Config())
    assert capsys.readouterr().err == "gradviz: settings: zoom 'abc' is not a number; using 1.0\n"


# ---- (c) what is saved comes back ------------------------------------------------------
def _open_from_the_settings_file(qtbot):
    from gradviz.qt.main_window import MainWindow
    settings, remembered = launch.load_settings()
    # the engine on a thread: the settings are the window's, its process is not tested here
    window = MainWindow(remembered, settings, engine_in_process=True)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.model.generation >= 1, timeout=WAIT_MS)
    return window


def _opened_recently(window, folder) -> list[str]:
    """MAX_RECENT + 2 settings files opened in turn (the last asks for steps=MAX_RECENT+2);
    the paths Open Recent keeps of them, newest first."""
    for i in range(MAX_RECENT + 2):
        path = folder / f"c{i}.toml"
        path.write_text(f"steps = {i + 1}\n")
        window.file_menu.open_config(str(path))
    return [str(folder / f"c{i}.toml") for i in range(MAX_RECENT + 1, 1, -1)]


def test_what_a_window_changed_survives_a_relaunch_and_quitting_mid_run_stops_cleanly(
        qtbot, tmp_path, monkeypatch, capsys):
    """One relaunch for all that is remembered: theme, text size, pace, settings (a box and
    a combo), Open Recent (at most its number); then Ctrl+Q while training, with a settings
    file that cannot be written, stops the engine and the app keeps going."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QCheckBox, QComboBox, QPushButton, QSlider
    path = tmp_path / "settings.json"
    monkeypatch.setenv(launch.SETTINGS_ENV, str(path))
    w = _open_from_the_settings_file(qtbot)
    recent = _opened_recently(w, tmp_path)
    w.dark_action.trigger()
    w.zoom_by(1.3)
    w.findChild(QSlider, "speedSlider").setValue(5)
    w.findChild(QCheckBox, "zeroGradCheck").click()
    w.findChild(QComboBox, "strategyCombo").setCurrentIndex(2)     # in-loop
    qtbot.waitUntil(lambda: not w.engine.session.config.zero_grad
                    and w.engine.session.config.strategy == "in-loop", timeout=WAIT_MS)
    w.close()
    saved = json.loads(path.read_text())
    assert saved["version"] == 2 and saved["theme"] == "dark" and saved["pace_ms"] == PACES_MS[5]
    assert set(saved) == {"version", "config", "theme", "zoom", "pace_ms", "geometry",
                          "window_state", "recent_files"}
    assert saved["recent_files"] == recent
    w2 = _open_from_the_settings_file(qtbot)
    assert w2.theme.name == "dark" and w2.theme.zoom == pytest.approx(1.3)
    assert w2.run_bar.speed.value() == 5
    for config in (w2.controls.config(), w2.model.confirmed, w2.engine.session.config):
        # the last settings file opened, then the box and the combo changed
        assert (config.steps, config.zero_grad, config.strategy) == (MAX_RECENT + 2, False,
                                                                     "in-loop")
    assert w2.file_menu.recent.paths == recent
    assert warnings(capsys.readouterr().err) == []
    w2.settings = AppSettings(tmp_path / "a-folder")
    (tmp_path / "a-folder").mkdir()                 # os.replace onto a folder fails
    qtbot.mouseClick(w2.findChild(QPushButton, "playButton"), Qt.LeftButton)
    qtbot.waitUntil(lambda: len(w2.history) > 3, timeout=WAIT_MS)
    qtbot.keyClick(w2, Qt.Key_Q, Qt.ControlModifier)
    qtbot.waitUntil(lambda: not w2.isVisible(), timeout=WAIT_MS)
    assert w2.engine.stopped and w2.render_thread.isFinished()
    assert len(warnings(capsys.readouterr().err)) == 1


# ---- (d) a failed write keeps the old file ---------------------------------------------
def test_a_failed_write_keeps_the_old_file_and_warns_once(tmp_path, monkeypatch, capsys):
    path = tmp_path / "settings.json"
    settings = AppSettings(path)
    assert settings.save(Remembered(Config(heads=2), theme="dark"))
    before = path.read_bytes()

    def full_disk(src, dst):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(os, "replace", full_disk)
    assert not settings.save(Remembered(Config(heads=5), theme="light", zoom=2.0))
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["settings.json"]  # no temp left
    lines = warnings(capsys.readouterr().err)
    assert len(lines) == 1 and "No space left on device" in lines[0]
    monkeypatch.undo()
    assert AppSettings(path).load(Config()).config.heads == 2


def test_a_settings_folder_that_does_not_exist_yet_is_made(tmp_path):
    path = tmp_path / "new" / "folder" / "settings.json"
    assert AppSettings(path).save(Remembered(Config(), theme="dark"))
    assert AppSettings(path).load(Config()).theme == "dark"


# ---- any JSON at all: tests/plain/test_settings_values.py (the values are checked there,
# without Qt or a file; AppSettings.load above only reads the file and wraps the layouts)
