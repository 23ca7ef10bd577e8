"""The layer rules in pyproject.toml's import-linter contracts hold: plain reaches for no
torch, core for no GUI, renderer or command line, render for no Qt, and the window for
no torch and no core (indirect imports count too); and no modules, nor packages, import
each other in a circle (imports inside functions count too)."""
import logging
import tomllib
from pathlib import Path

import pytest

importlinter_cli = pytest.importorskip("importlinter.cli")

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _loggers_left_as_they_were():
    """import-linter's command configures logging with dictConfig, which disables every
    logger already made (gradviz.protocol's, say): later tests would see no log line."""
    loggers = [lg for lg in logging.root.manager.loggerDict.values()
               if isinstance(lg, logging.Logger)]
    disabled = {id(lg): lg.disabled for lg in loggers}
    yield
    for lg in loggers:
        lg.disabled = disabled[id(lg)]


def test_import_linter_contracts_are_kept(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    rc = importlinter_cli.lint_imports(config_filename=str(ROOT / "pyproject.toml"),
                                       cache_dir=str(tmp_path), no_logo=True)
    out = capsys.readouterr().out
    assert rc == 0, out
    # every contract pyproject.toml lists was checked (a count written here went stale
    # with each contract added)
    listed = len(tomllib.loads((ROOT / "pyproject.toml").read_text())
                 ["tool"]["importlinter"]["contracts"])
    assert "0 broken" in out and f"{listed} kept" in out


@pytest.mark.parametrize(("package", "forbidden"), [
    ("core", "gradviz.render.dot"),       # core importing the renderer, as a report once could
    ("plain", "torch"),                   # plain data that the window imports reaching for torch
    ("qt", "gradviz.core.session"),       # the window reaching past the pipe for a tensor
])
def test_a_forbidden_import_breaks_a_contract(tmp_path, monkeypatch, capsys, package, forbidden):
    """The contracts can fail."""
    probe = f"import {forbidden}  # deliberately forbidden\n"
    rc = _lint_with(tmp_path, monkeypatch, {f"{package}/_layer_probe.py": probe})
    assert rc != 0
    assert f"gradviz.{package}._layer_probe -> {forbidden}" in capsys.readouterr().out


def test_a_lesson_reaching_for_the_window_breaks_plains_layers(tmp_path, monkeypatch, capsys):
    """Inside plain too: a lesson file's code importing the window's model fails."""
    probe = "from ..window import window_model  # deliberately forbidden\n"
    rc = _lint_with(tmp_path, monkeypatch, {"plain/lessons/_layer_probe.py": probe})
    assert rc != 0
    out = capsys.readouterr().out
    assert "gradviz.plain.lessons._layer_probe -> gradviz.plain.window.window_model" in out


def _lint_with(tmp_path, monkeypatch, probes: dict[str, str]) -> int:
    """lint-imports' result with the probe modules {path under gradviz: source} added."""
    made = []
    try:
        for name, source in probes.items():
            path = ROOT / "gradviz" / name
            path.write_text(source)
            made.append(path)
        monkeypatch.chdir(ROOT)
        rc = importlinter_cli.lint_imports(config_filename=str(ROOT / "pyproject.toml"),
                                           cache_dir=str(tmp_path), no_logo=True)
    finally:
        for path in made:
            path.unlink()
    return rc


@pytest.mark.parametrize(("probes", "named"), [
    # two modules of one package, one import hidden inside a function
    ({"engine/_circle_a.py": "from . import _circle_b\n",
      "engine/_circle_b.py": "def f():\n    from . import _circle_a\n"},
     ["gradviz.engine", "._circle_"]),
    # two packages through a module each, as commands and qt once did
    ({"qt/_circle_c.py": "def f():\n    from ..commands import _circle_d\n",
      "commands/_circle_d.py": "from ..qt import _circle_c\n"},
     ["No cycles are allowed in gradviz.", ".commands", ".qt"]),
])
def test_an_import_circle_breaks_a_contract(tmp_path, monkeypatch, capsys, probes, named):
    """The no-circles contract can fail, and says where the circle is."""
    rc = _lint_with(tmp_path, monkeypatch, probes)
    out = capsys.readouterr().out
    assert rc != 0
    assert "no import circles" in out and "BROKEN" in out
    for words in named:
        assert words in out, out[-2000:]
