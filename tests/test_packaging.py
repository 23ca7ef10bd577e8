"""A wheel holds what pyproject.toml's `packages` lists, and nothing else: every package
of gradviz is listed (a wheel without gradviz.qt.bindings could not open the window,
while an editable install, which reads the source folder, hid it)."""
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_of_gradviz_is_in_the_wheel():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())
                 ["tool"]["setuptools"]["packages"])
    found = {".".join(init.parent.relative_to(ROOT).parts)
             for init in (ROOT / "gradviz").rglob("__init__.py")}
    assert found - listed == set()
    assert listed - found == {"gradviz.resources"}   # the resources folder, mapped in
