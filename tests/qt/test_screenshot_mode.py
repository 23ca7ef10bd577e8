"""`gradviz --config F --steps N --screenshot PNG` and `gradviz FILE`, as a user runs them:
a fresh process each. The launches of a test are independent: they are started together
and each awaited, not one after another."""
import base64
import os
import subprocess
import sys

from PySide6.QtGui import QImage

from gradviz.qt import launch


def _gradviz(*argv, tmp_path=None, settings=None, env=None) -> subprocess.Popen:
    """gradviz started on argv (not awaited); its settings file `settings`, else
    settings.json in tmp_path; env: the whole environment instead."""
    if env is None:
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen",
                   GRADVIZ_SETTINGS=str(settings or tmp_path / "settings.json"))
    return subprocess.Popen([sys.executable, "-m", "gradviz", *argv], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _ended(started: dict[str, subprocess.Popen]) -> dict[str, tuple[int, str]]:
    """Each launch's exit status and stderr, all awaited (and any left ended) even when
    one of them fails."""
    ended = {}
    try:
        for name, proc in started.items():
            stderr = proc.communicate(timeout=240)[1]
            ended[name] = (proc.returncode, stderr)
    finally:
        for proc in started.values():
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    return ended


def test_screenshot_mode_writes_a_non_blank_png_and_exits_cleanly_every_time(tmp_path, qapp):
    """The window used to be left for interpreter exit to destroy, which segfaulted
    (rc 139) in about one launch in ten, after the picture was saved. Four launches: a
    first launch (no settings file yet), whose picture is looked at; and three on
    settings files no gradviz wrote, each also a fact of its own: `gradviz FILE` reads a
    bare TOML as settings; the default settings folder holding a poisoned old gradviz.ini
    and settings.json runs nothing; bad values fall back."""
    cfg = tmp_path / "lesson.toml"
    cfg.write_text('strategy = "separate"\ndetach = [1]\n')
    png = tmp_path / "shot.png"
    assert not (tmp_path / "settings.json").exists()     # a first launch: no settings yet
    deep = tmp_path / "deep.json"
    deep.write_bytes(b"[" * 10_000)
    three = tmp_path / "three.toml"
    three.write_text("heads = 3\n")
    bad = tmp_path / "bad-values.json"
    bad.write_bytes(b'{"version": 2, "zoom": "abc", "pace_ms": 99999999999999999999,'
                    b' "geometry": "AAAA", "window_state": "!!"}')
    marker = tmp_path / "MARKER"
    ended = _ended({
        "first": _gradviz("--config", str(cfg), "--steps", "30", "--screenshot", str(png),
                          tmp_path=tmp_path),
        "deep.json": _gradviz(str(three), "--steps", "3", "--screenshot",
                              str(tmp_path / "three.png"), settings=deep),
        "poisoned": _gradviz("--steps", "1", "--screenshot", str(tmp_path / "poisoned.png"),
                             env=_poisoned_config_folder(tmp_path, marker)),
        "bad-values.json": _gradviz("--steps", "20", "--screenshot",
                                    str(tmp_path / "bad.png"), settings=bad),
    })
    for name, (returncode, stderr) in ended.items():
        assert returncode == 0, (name, returncode, stderr)
    assert ended["first"][1].strip() == ""     # no noise from the offscreen plugin either
    image = QImage(str(png))
    assert (image.width(), image.height()) == (1920, 1080)
    colours = {image.pixel(x, y) for x in range(0, 1920, 37) for y in range(0, 1080, 23)}
    assert len(colours) > 40   # curves, text, graph: not a blank or single-colour window
    assert (tmp_path / "three.png").stat().st_size > 10_000
    # the poisoned folder: theme refused by its type; geometry is valid base64 that Qt
    # then refuses; and nothing ran
    from test_settings_security import warnings
    assert len(warnings(ended["poisoned"][1])) == 2, ended["poisoned"][1]
    assert not marker.exists()


def _poisoned_config_folder(tmp_path, marker) -> dict[str, str]:
    """End to end, as a user runs it: the default settings folder holds a poisoned
    gradviz.ini (the old file name) and a poisoned settings.json. The environment of a
    launch that finds that folder its default."""
    from test_settings_security import pickles, write_json, write_poisoned_ini
    folder = tmp_path / "config" / "gradviz" / "gradviz"
    folder.mkdir(parents=True)
    write_poisoned_ini(folder / "gradviz.ini", marker)
    raw = pickles(marker)[2]
    write_json(folder / "settings.json",
               {"version": 2, "geometry": base64.b64encode(raw).decode("ascii"),
                "theme": raw.decode("latin-1")})
    env = {k: v for k, v in os.environ.items() if k != launch.SETTINGS_ENV}
    env.update(QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path / "config"))
    return env


def test_screenshot_mode_bad_input_is_one_line(tmp_path, qapp):
    zero = tmp_path / "zero.toml"                  # `gradviz FILE`: a bare settings file
    zero.write_text("heads = 0\n")
    ended = _ended({
        "heads": _gradviz("--heads", "0", "--screenshot", str(tmp_path / "x.png"),
                          tmp_path=tmp_path),
        "folder": _gradviz("--steps", "1", "--screenshot", str(tmp_path / "no" / "x.png"),
                           tmp_path=tmp_path),
        "empty": _gradviz("--steps", "1", "--screenshot", "", tmp_path=tmp_path),
        "file": _gradviz(str(zero), "--screenshot", str(tmp_path / "x.png"),
                         tmp_path=tmp_path),
    })
    returncode, stderr = ended["heads"]
    assert returncode == 2
    assert stderr.strip() == "gradviz: heads must be between 1 and 8 (got 0)"
    returncode, stderr = ended["folder"]
    assert returncode == 2 and "does not exist" in stderr
    returncode, stderr = ended["empty"]
    assert returncode == 2
    assert stderr.strip() == ("gradviz: --screenshot needs a file name, "
                              "e.g. --screenshot shot.png")
    assert ended["file"] == (2, "gradviz: heads must be between 1 and 8 (got 0)\n")
