"""`gradviz --config F --steps N --screenshot PNG` and `gradviz FILE`, as a user runs them:
a fresh process each."""
import base64
import os
import subprocess
import sys

from PySide6.QtGui import QImage

from gradviz.qt import launch


def _gradviz(*argv, tmp_path=None, settings=None):
    """gradviz run on argv; its settings file `settings`, else settings.json in tmp_path."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen",
               GRADVIZ_SETTINGS=str(settings or tmp_path / "settings.json"))
    return subprocess.run([sys.executable, "-m", "gradviz", *argv], capture_output=True,
                          text=True, timeout=240, env=env)


def test_screenshot_mode_writes_a_non_blank_png(tmp_path, qapp):
    cfg = tmp_path / "lesson.toml"
    cfg.write_text('strategy = "separate"\ndetach = [1]\n')
    png = tmp_path / "shot.png"
    assert not (tmp_path / "settings.json").exists()     # a first launch: no settings yet
    proc = _gradviz("--config", str(cfg), "--steps", "30", "--screenshot", str(png),
                    tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip() == ""     # no noise from the offscreen plugin either
    image = QImage(str(png))
    assert (image.width(), image.height()) == (1920, 1080)
    colours = {image.pixel(x, y) for x in range(0, 1920, 37) for y in range(0, 1080, 23)}
    assert len(colours) > 40   # curves, text, graph: not a blank or single-colour window


def test_screenshot_mode_bad_input_is_one_line(tmp_path, qapp):
    proc = _gradviz("--heads", "0", "--screenshot", str(tmp_path / "x.png"), tmp_path=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip() == "gradviz: heads must be between 1 and 8 (got 0)"
    proc = _gradviz("--steps", "1", "--screenshot", str(tmp_path / "no" / "x.png"),
                    tmp_path=tmp_path)
    assert proc.returncode == 2 and "does not exist" in proc.stderr
    proc = _gradviz("--steps", "1", "--screenshot", "", tmp_path=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("gradviz: --screenshot needs a file name, "
                                   "e.g. --screenshot shot.png")
    zero = tmp_path / "zero.toml"                  # `gradviz FILE`: a bare settings file
    zero.write_text("heads = 0\n")
    proc = _gradviz(str(zero), "--screenshot", str(tmp_path / "x.png"), tmp_path=tmp_path)
    assert (proc.returncode, proc.stderr) == (2, "gradviz: heads must be between 1 and 8 "
                                                 "(got 0)\n")


def test_screenshot_mode_exits_cleanly_every_time(tmp_path, qapp):
    """The window used to be left for interpreter exit to destroy, which segfaulted
    (rc 139) in about one launch in ten, after the picture was saved. Three launches on
    settings files no gradviz wrote (no settings file at all is
    test_screenshot_mode_writes_a_non_blank_png's launch), each also a fact of its own:
    `gradviz FILE` reads a bare TOML as settings; the default settings folder holding a
    poisoned old gradviz.ini and settings.json runs nothing; bad values fall back."""
    deep = tmp_path / "deep.json"
    deep.write_bytes(b"[" * 10_000)
    three, png = tmp_path / "three.toml", tmp_path / "shot.png"
    three.write_text("heads = 3\n")
    proc = _gradviz(str(three), "--steps", "3", "--screenshot", str(png), settings=deep)
    assert proc.returncode == 0, ("deep.json", proc.returncode, proc.stderr)
    assert png.stat().st_size > 10_000
    _poisoned_config_folder_runs_nothing(tmp_path)
    bad = tmp_path / "bad-values.json"
    bad.write_bytes(b'{"version": 2, "zoom": "abc", "pace_ms": 99999999999999999999,'
                    b' "geometry": "AAAA", "window_state": "!!"}')
    proc = _gradviz("--steps", "20", "--screenshot", str(png), settings=bad)
    assert proc.returncode == 0, ("bad-values.json", proc.returncode, proc.stderr)


def _poisoned_config_folder_runs_nothing(tmp_path) -> None:
    """End to end, as a user runs it: the default settings folder holds a poisoned
    gradviz.ini (the old file name) and a poisoned settings.json."""
    from test_settings_security import pickles, warnings, write_json, write_poisoned_ini
    marker = tmp_path / "MARKER"
    folder = tmp_path / "config" / "gradviz" / "gradviz"
    folder.mkdir(parents=True)
    write_poisoned_ini(folder / "gradviz.ini", marker)
    raw = pickles(marker)[2]
    write_json(folder / "settings.json",
               {"version": 2, "geometry": base64.b64encode(raw).decode("ascii"),
                "theme": raw.decode("latin-1")})
    env = {k: v for k, v in os.environ.items() if k != launch.SETTINGS_ENV}
    env.update(QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path / "config"))
    proc = subprocess.run([sys.executable, "-m", "gradviz", "--steps", "1", "--screenshot",
                           str(tmp_path / "shot.png")], capture_output=True, text=True,
                          timeout=240, env=env)
    assert proc.returncode == 0, ("poisoned", proc.returncode, proc.stderr)
    # theme refused by its type; geometry is valid base64 that Qt then refuses
    assert len(warnings(proc.stderr)) == 2, proc.stderr
    assert not marker.exists()
