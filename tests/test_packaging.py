"""A wheel holds what pyproject.toml's `packages` lists, and nothing else: every package
of gradviz is listed (a wheel without gradviz.qt.bindings could not open the window,
while an editable install, which reads the source folder, hid it). The sdist is the
whole project, built without a warning; the wheel carries what the program reads, not
the README's screenshots."""
import os
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCREENSHOTS = "resources/screenshots/"
# what setuptools writes into an sdist beside the project's own files
SDIST_METADATA = ("PKG-INFO", "setup.cfg")


def test_every_package_of_gradviz_is_in_the_wheel():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())
                 ["tool"]["setuptools"]["packages"])
    found = {".".join(init.parent.relative_to(ROOT).parts)
             for init in (ROOT / "gradviz").rglob("__init__.py")}
    assert found - listed == set()
    assert listed - found == {"gradviz.resources"}   # the resources folder, mapped in


def _tracked() -> list[str]:
    """The files git tracks (as they are in the working tree); skips outside a checkout,
    as in an unpacked sdist."""
    if shutil.which("git") is None:
        pytest.skip("no git")
    done = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True)
    if done.returncode != 0 or not done.stdout:
        pytest.skip("not a git checkout")
    return [name for name in done.stdout.decode().split("\0")
            if name and (ROOT / name).is_file()]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """python -m build (sdist, then the wheel from it) on a copy of the tracked files,
    as a release is built from a clean checkout: no egg-info, no __pycache__ of a test
    run. Its output, and the sdist's and the wheel's file names."""
    tracked = _tracked()
    src, out = tmp_path_factory.mktemp("src"), tmp_path_factory.mktemp("dist")
    for name in tracked:
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, src / name)
    # as a user's shell has it (a test run's "byte-compiling is disabled" is no warning
    # of the project's)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(src)],
                          capture_output=True, text=True, env=env, timeout=600)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-3000:]
    (sdist,) = out.glob("*.tar.gz")
    (wheel,) = out.glob("*.whl")
    with tarfile.open(sdist) as tar:
        # each name under the sdist's one top folder
        in_sdist = {m.name.split("/", 1)[1] for m in tar.getmembers() if m.isfile()}
    with zipfile.ZipFile(wheel) as whl:
        in_wheel = set(whl.namelist())
    return tracked, output, in_sdist, in_wheel


def test_the_sdist_builds_without_a_warning(built):
    _tracked_files, output, _sdist, _wheel = built
    assert [line for line in output.splitlines() if "warning" in line.lower()] == []


def test_the_sdist_is_the_whole_project_and_nothing_else(built):
    tracked, _output, in_sdist, _wheel = built
    assert set(tracked) - in_sdist == set()
    assert {"CHANGELOG.md", "CONTRIBUTING.md", "LICENSE", ".ci/run", "docs/README.md",
            "tests/conftest.py", SCREENSHOTS + "compare-live.png"} <= in_sdist
    extra = {name for name in in_sdist - set(tracked)
             if name not in SDIST_METADATA and ".egg-info/" not in name}
    assert extra == set()
    assert not [name for name in in_sdist if "__pycache__" in name or name.endswith(".pyc")]


def test_the_wheel_carries_what_the_program_reads_and_not_the_screenshots(built):
    tracked, _output, _sdist, in_wheel = built
    code = {name for name in tracked if name.startswith("gradviz/")}
    read = {"gradviz/resources/" + name.removeprefix("resources/") for name in tracked
            if name.startswith("resources/") and not name.startswith(SCREENSHOTS)}
    assert any(name.startswith(SCREENSHOTS) for name in tracked)
    shipped = {name for name in in_wheel if ".dist-info/" not in name}
    assert shipped == code | read
    assert not [name for name in in_wheel if name.endswith(".png")]
