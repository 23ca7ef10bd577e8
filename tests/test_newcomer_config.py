"""`--config` as a newcomer types it: a bundled preset by name (found in the installed
package, from any folder), a lesson file by mistake (pointed to --lesson), a typo (told
the presets there are)."""
import json
import os
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradviz.app import main
from gradviz.plain.config.config import ConfigError
from gradviz.plain.config.presets import load_config_file, preset_names

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = sorted(p.stem for p in (ROOT / "resources" / "presets").glob("*.toml"))
LESSON = ROOT / "resources" / "lessons" / "01-add-or-separate.toml"


def exit_code(argv, capsys) -> tuple[int, str]:
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    return code, capsys.readouterr().err


def test_the_installed_package_finds_every_shipped_preset(tmp_path):
    """From a folder outside the clone, in an isolated interpreter: what a wheel's user
    gets."""
    code = "import json; from gradviz.plain.config.presets import preset_names; " \
           "print(json.dumps(preset_names()))"
    proc = subprocess.run([sys.executable, "-I", "-c", code], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    assert json.loads(proc.stdout) == SHIPPED
    assert SHIPPED and preset_names() == SHIPPED


@pytest.mark.parametrize("name", SHIPPED)
def test_a_preset_by_name_has_the_keys_of_its_file(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    want = tomllib.loads((ROOT / "resources" / "presets" / f"{name}.toml").read_text())
    assert load_config_file(name) == want
    assert load_config_file(f"{name}.toml") == want


def test_run_with_a_preset_name_trains_what_the_preset_says(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    preset = tomllib.loads((ROOT / "resources" / "presets" / "in-loop-overcount.toml").read_text())
    code, err = exit_code(["run", "--config", "in-loop-overcount", "--steps", "2", "--quiet",
                           "--out", "out"], capsys)
    assert code == 0, err
    config = json.loads((tmp_path / "out" / "report.json").read_text())["config"]
    assert config["strategy"] == preset["strategy"] == "in-loop"
    assert config["retain_graph"] == preset["retain-graph"]


def test_a_file_of_the_same_name_wins_over_the_preset(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "accumulate").write_text('strategy = "separate"\n')
    assert load_config_file("accumulate") == {"strategy": "separate"}


def test_an_unknown_name_lists_the_presets_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, err = exit_code(["run", "--config", "acumulate"], capsys)
    assert code == 2
    assert err.count("\n") == 1 and "'acumulate'" in err
    assert all(name in err for name in SHIPPED)


@pytest.mark.parametrize("where", ["run", "app"])
def test_a_lesson_file_as_config_points_to_lesson(where, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "lesson.toml").write_text(LESSON.read_text())
    argv = ["--config", "lesson.toml"]
    argv = ["run", *argv] if where == "run" else [*argv, "--screenshot", "x.png"]
    code, err = exit_code(argv, capsys)
    assert code == 2
    assert err.splitlines()[-1] == \
        "gradviz: 'lesson.toml' looks like a lesson file: open it with gradviz --lesson lesson.toml"
    assert "unknown setting" not in err
    assert not (tmp_path / "x.png").exists()


@settings(max_examples=60, deadline=None)
@given(st.text(min_size=1, max_size=300))
def test_any_name_is_a_preset_a_file_or_one_line(name):
    """Whatever is typed after --config, in an empty folder: a preset's keys, or a
    one-line ConfigError; never a crash."""
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as empty:
        os.chdir(empty)
        try:
            data = load_config_file(name)
        except ConfigError as exc:
            assert "\n" not in str(exc)
        else:
            assert isinstance(data, dict) and name.removesuffix(".toml") in SHIPPED
        finally:
            os.chdir(here)
