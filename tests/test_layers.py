"""The layer rules in pyproject.toml's import-linter contracts hold: plain reaches for no
torch, core for no GUI, renderer or command line, render for no Qt, and the window for
no torch and no core (indirect imports count too)."""
import logging
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
    assert "0 broken" in out and "4 kept" in out


@pytest.mark.parametrize(("package", "forbidden"), [
    ("core", "gradviz.render.dot"),       # core importing the renderer, as a report once could
    ("plain", "torch"),                   # plain data that the window imports reaching for torch
    ("qt", "gradviz.core.session"),       # the window reaching past the pipe for a tensor
])
def test_a_forbidden_import_breaks_a_contract(tmp_path, monkeypatch, capsys, package, forbidden):
    """The contracts can fail."""
    bad = ROOT / "gradviz" / package / "_layer_probe.py"
    bad.write_text(f"import {forbidden}  # deliberately forbidden\n")
    try:
        monkeypatch.chdir(ROOT)
        rc = importlinter_cli.lint_imports(config_filename=str(ROOT / "pyproject.toml"),
                                           cache_dir=str(tmp_path), no_logo=True)
    finally:
        bad.unlink()
    assert rc != 0
    assert f"gradviz.{package}._layer_probe -> {forbidden}" in capsys.readouterr().out
