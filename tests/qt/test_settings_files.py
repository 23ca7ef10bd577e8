"""The settings file is the user's: one gradviz cannot read as its own (someone else's,
a newer version's, corrupt) is never written over, keys a newer version added survive a
save, two instances sharing a file keep each other's changes, and the quit signals are
handled (a kill or a closed terminal saving as closing the window does, launched:
test_closing.py)."""
import json
import signal
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from gradviz.plain.config.config import Config
from gradviz.plain.window.window_model import PACES_MS
from gradviz.qt import launch
from gradviz.qt.settings import AppSettings, Remembered
from gradviz.qt.settings_file import beside, read_document


def warnings(captured: str) -> list[str]:
    return [line for line in captured.splitlines() if line.startswith("gradviz: settings:")]


FOREIGN = {
    "not JSON": b"[section]\nkey = value\n",
    "a JSON list": b"[1, 2, 3]\n",
    "no version": b'{"editor.fontSize": 14, "theme": "dark"}\n',
    "a newer version": b'{"version": 3, "theme": "dark", "zoom": 2.0, "panels": {"x": 1}}\n',
    "version as text": b'{"version": "2", "theme": "dark"}',
    "not UTF-8": b"\xff\xfe\x00settings",
}


@pytest.mark.parametrize("content", FOREIGN.values(), ids=FOREIGN.keys())
def test_a_file_that_is_not_ours_is_left_byte_for_byte(tmp_path, capsys, content):
    path = tmp_path / "settings.json"
    path.write_bytes(content)
    settings = AppSettings(path)
    remembered = settings.load(Config())
    start = warnings(capsys.readouterr().err)
    assert len(start) == 1 and "left as it is" in start[0]
    assert "settings.gradviz-v2.json" in start[0]
    remembered.zoom, remembered.theme = 1.7, "dark"
    assert settings.save(remembered)
    quit_ = warnings(capsys.readouterr().err)
    assert len(quit_) == 1 and "saved to" in quit_[0] and "settings.gradviz-v2.json" in quit_[0]
    assert path.read_bytes() == content                     # untouched
    again = AppSettings(path).load(Config())               # the next launch finds ours
    assert again.zoom == 1.7 and again.theme == "dark"
    assert path.read_bytes() == content


def test_when_the_file_beside_is_not_ours_either_nothing_is_saved(tmp_path, capsys):
    path = tmp_path / "settings.json"
    path.write_bytes(FOREIGN["a newer version"])
    beside(path).write_bytes(b"someone's notes")
    settings = AppSettings(path)
    r = settings.load(Config())
    assert len(warnings(capsys.readouterr().err)) == 1
    r.zoom = 2.0
    assert not settings.save(r)
    quit_ = warnings(capsys.readouterr().err)
    assert len(quit_) == 1 and quit_[0].startswith("gradviz: settings: not saved")
    assert path.read_bytes() == FOREIGN["a newer version"]
    assert beside(path).read_bytes() == b"someone's notes"


def test_a_file_replaced_by_someone_else_while_running_is_not_overwritten(tmp_path, capsys):
    path = tmp_path / "settings.json"
    AppSettings(path).save(Remembered(Config(), theme="dark"))
    settings = AppSettings(path)
    r = settings.load(Config())
    path.write_bytes(b"# another program's file now\n")
    assert settings.save(r)
    assert path.read_bytes() == b"# another program's file now\n"
    assert json.loads(beside(path).read_text())["theme"] == "dark"


def test_keys_of_a_newer_version_survive_a_save(tmp_path, capsys):
    path = tmp_path / "settings.json"
    newer = {"version": 2, "theme": "dark", "zoom": 1.5, "pace_ms": 20,
             "panel_fonts": {"loss": 18, "graph": [14, 16]}, "recent_files": ["a.toml"],
             "config": {**Config(heads=2).to_dict(), "grad_clip": 1.0}}
    path.write_text(json.dumps(newer))
    settings = AppSettings(path)
    r = settings.load(Config())
    lines = warnings(capsys.readouterr().err)
    assert len(lines) == 1 and "grad_clip" in lines[0] and "kept" in lines[0]
    assert r.config.heads == 2 and r.theme == "dark"        # the rest still used
    r.zoom, r.config = 2.0, r.config.replace(lr=0.01)
    assert settings.save(r)
    saved = json.loads(path.read_text())
    assert saved["panel_fonts"] == newer["panel_fonts"]
    assert saved["recent_files"] == ["a.toml"]
    assert saved["config"]["grad_clip"] == 1.0
    assert saved["zoom"] == 2.0 and saved["config"]["lr"] == 0.01
    assert saved["config"]["heads"] == 2


def test_two_instances_keep_each_others_changes(tmp_path, capsys):
    path = tmp_path / "settings.json"
    AppSettings(path).save(Remembered(Config(), theme="light", zoom=1.0, pace_ms=0))
    a, b = AppSettings(path), AppSettings(path)
    ra, rb = a.load(Config()), b.load(Config())
    ra.zoom, ra.pace_ms = 1.6, 100
    rb.theme, rb.config = "dark", rb.config.replace(lr=0.2)
    assert a.save(ra) and b.save(rb)                      # b quits last
    saved = json.loads(path.read_text())
    assert saved["zoom"] == 1.6 and saved["pace_ms"] == 100 and saved["theme"] == "dark"
    assert saved["config"]["lr"] == 0.2
    assert warnings(capsys.readouterr().err) == []         # nothing clashed


def test_both_changing_one_key_the_later_wins_and_says_so(tmp_path, capsys):
    path = tmp_path / "settings.json"
    AppSettings(path).save(Remembered(Config(), pace_ms=0))
    a, b = AppSettings(path), AppSettings(path)
    ra, rb = a.load(Config()), b.load(Config())
    ra.pace_ms, rb.pace_ms = 50, 200
    # a config is one setting: two half-configs (heads from one, loss weights from the
    # other) could make one neither instance had
    ra.config = ra.config.replace(heads=2, loss_weights=(1.0, 2.0))
    rb.config = rb.config.replace(lr=0.5)
    assert a.save(ra)
    assert warnings(capsys.readouterr().err) == []
    assert b.save(rb)
    lines = warnings(capsys.readouterr().err)
    assert len(lines) == 1 and "another gradviz changed config, pace_ms" in lines[0], lines
    saved = json.loads(path.read_text())
    assert saved["pace_ms"] == 200 and saved["config"] == Config(lr=0.5).to_dict()


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
    | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=4),
    max_leaves=20)
OURS = {"version", "config", "theme", "zoom", "pace_ms", "geometry", "window_state"}


@hsettings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(document=st.one_of(JSON, st.dictionaries(st.text(max_size=8), JSON, max_size=5)
                          .map(lambda d: {**d, "version": 2})))
def test_any_file_is_kept_or_kept_with_its_unknown_keys(tmp_path_factory, document):
    path = tmp_path_factory.mktemp("s") / "settings.json"
    original = json.dumps(document).encode()
    path.write_bytes(original)
    ours, problem = read_document(path)
    settings = AppSettings(path)
    r = settings.load(Config())
    r.zoom = 2.5
    settings.save(r)
    if problem is not None:
        assert path.read_bytes() == original
        assert json.loads(beside(path).read_text())["zoom"] == 2.5
    else:
        saved = json.loads(path.read_text())
        assert saved["zoom"] == 2.5
        for key in set(document) - OURS:
            assert saved[key] == document[key]


# ---- signals: a kill or a closed terminal saves as closing the window does -------------
# (the app launched and sent SIGTERM or SIGHUP: test_closing.py's launches, started
# together with its Ctrl+C one)
def test_the_quit_signals_are_handled_and_given_back():
    # SIGHUP as a terminal leaves it, also in a run under nohup (test_nohup_is_respected)
    sighup = getattr(signal, "SIGHUP", None)
    previous = None if sighup is None else signal.signal(sighup, signal.SIG_DFL)
    handler = launch.CtrlC()
    try:
        for signum in handler.SIGNALS:
            assert signal.getsignal(signum) == handler._handle
        if sighup is not None:
            assert set(handler.SIGNALS) == {signal.SIGINT, signal.SIGTERM, sighup}
        else:   # Windows
            assert set(handler.SIGNALS) == {signal.SIGINT, signal.SIGTERM}
    finally:
        handler.restore()
        if sighup is not None:
            signal.signal(sighup, previous)
    assert all(signal.getsignal(s) != handler._handle for s in handler.SIGNALS)


@pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="SIGHUP is POSIX")
def test_nohup_is_respected(monkeypatch):
    """`nohup gradviz` ignores SIGHUP so that the app outlives the terminal: leave it so."""
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        handler = launch.CtrlC()
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
        handler.restore()
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, previous)


def test_two_windows_on_a_file_not_there_yet_keep_each_others_change(tmp_path, capsys):
    """Neither loaded a file: each saves what it changed, not its defaults over the
    other's first save."""
    path = tmp_path / "new" / "settings.json"
    a, b = AppSettings(path), AppSettings(path)
    ra, rb = a.load(Config()), b.load(Config())
    ra.theme = "dark"
    rb.zoom = 1.7
    assert a.save(ra) and b.save(rb)                      # b quits last
    saved = json.loads(path.read_text())
    assert saved["theme"] == "dark" and saved["zoom"] == 1.7
    assert warnings(capsys.readouterr().err) == []


KILLED_MID_SAVE = """
import os, sys
from gradviz.plain.config.config import Config
from gradviz.qt.settings import AppSettings, Remembered
def stuck(fd):                       # the temporary file is written: stop here
    print("writing", flush=True)
    sys.stdin.read()
os.fsync = stuck
AppSettings(sys.argv[1]).save(Remembered(Config(), theme="dark"))
"""


def test_a_save_killed_mid_write_leaves_nothing_after_the_next_start(tmp_path):
    path = tmp_path / "settings.json"
    AppSettings(path).save(Remembered(Config(), theme="light"))
    child = subprocess.Popen([sys.executable, "-c", KILLED_MID_SAVE, str(path)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline() == "writing\n"
    finally:
        child.kill()
        child.wait(timeout=60)
    parts = [p.name for p in tmp_path.iterdir() if p.name.endswith(".part")]
    assert len(parts) == 1 and parts[0].startswith(".settings.json.")
    assert AppSettings(path).load(Config()).theme == "light"   # the old file, whole
    assert sorted(p.name for p in tmp_path.iterdir()) == ["settings.json"]


def test_a_save_waits_while_another_gradviz_is_saving(tmp_path):
    """Two saves at once would both merge into the same old file, and the later would
    drop the earlier's change: one waits for the other's lock."""
    import threading

    from gradviz.qt.settings_file import one_at_a_time
    path = tmp_path / "settings.json"
    settings = AppSettings(path)
    r = settings.load(Config())
    r.theme = "dark"
    saved = []
    with one_at_a_time(path):
        waiting = threading.Thread(target=lambda: saved.append(settings.save(r)))
        waiting.start()
        waiting.join(0.5)
        assert waiting.is_alive() and not path.exists()
    waiting.join(60)
    assert saved == [True] and json.loads(path.read_text())["theme"] == "dark"


@pytest.mark.parametrize("speed,pace_ms,warned", [(3, PACES_MS[3], 0), (0, 0, 0),
                                                  (len(PACES_MS), 0, 1), ("3", 0, 1)])
def test_a_file_from_before_pace_ms_gives_its_slider_position_as_a_pace(
        tmp_path, capsys, speed, pace_ms, warned):
    """Files written before the pace was saved in ms kept the slider's position as
    "speed": read as the pace at that position; saved back as pace_ms."""
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"version": 2, "speed": speed}))
    settings = AppSettings(path)
    r = settings.load(Config())
    lines = [ln for ln in capsys.readouterr().err.splitlines() if "speed" in ln]
    assert r.pace_ms == pace_ms and len(lines) == warned
    assert settings.save(r) and json.loads(path.read_text())["pace_ms"] == pace_ms
