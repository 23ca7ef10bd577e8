"""`gradviz --config F --steps N --screenshot PNG`, as a user runs it: a fresh process."""
import os
import subprocess
import sys

from PySide6.QtGui import QImage


def _gradviz(*argv, tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen",
               GRADVIZ_SETTINGS=str(tmp_path / "settings.json"))
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


def test_screenshot_mode_exits_cleanly_every_time(tmp_path, qapp):
    """The window used to be left for interpreter exit to destroy, which segfaulted
    (rc 139) in about one launch in ten, after the picture was saved. (No settings file
    at all is test_screenshot_mode_writes_a_non_blank_png's launch.)"""
    odd = {"garbage.json": b"\x00\xff[[[ not json",
           "bad-values.json": b'{"version": 2, "zoom": "abc", "pace_ms": 99999999999999999999,'
                              b' "geometry": "AAAA", "window_state": "!!"}',
           "deep.json": b"[" * 10_000}
    for name, content in odd.items():
        path = tmp_path / name
        path.write_bytes(content)
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", GRADVIZ_SETTINGS=str(path))
        proc = subprocess.run([sys.executable, "-m", "gradviz", "--steps", "20", "--screenshot",
                               str(tmp_path / "shot.png")], capture_output=True, text=True,
                              timeout=240, env=env)
        assert proc.returncode == 0, (name, proc.returncode, proc.stderr)
