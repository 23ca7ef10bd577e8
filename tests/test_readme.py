"""The README's two commands are the ones CI and a newcomer run; what the README and the
reference in docs/ show runs as written."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```sh\n(.*?)```", text, re.S)
    return [line for b in blocks for line in b.splitlines()
            if line.startswith("python3 -m venv")]


def test_readme_has_an_app_command_and_a_test_command():
    commands = _commands()
    assert any(c.endswith(".venv/bin/gradviz") for c in commands)
    assert any(c.endswith("-m pytest") for c in commands)


def test_ci_runs_the_readme_test_command_word_for_word():
    test_command = next(c for c in _commands() if c.endswith("-m pytest"))
    ci_lines = (ROOT / ".ci" / "run").read_text().splitlines()
    assert test_command in ci_lines


def test_top_level_is_what_the_project_promises():
    """The package, its resources and tests, and the files a newcomer looks for at the top
    of any project; dotfiles (.ci, .gitignore, .pre-commit-config.yaml) are tooling's, and
    so are pyproject.toml and MANIFEST.in (what the sdist holds)."""
    allowed = {"gradviz", "resources", "tests", "docs", "pyproject.toml", "MANIFEST.in",
               "README.md", "LICENSE", "CONTRIBUTING.md", "CHANGELOG.md"}
    tracked = {p.name for p in ROOT.iterdir()
               if not p.name.startswith(".") and p.name not in {"build", "dist"}
               and not p.name.endswith(".egg-info")}
    assert tracked <= allowed, tracked - allowed


def test_nothing_points_at_a_design_document_users_never_have():
    """Reasons live where they are needed, in a sentence, not in a file outside the repo."""
    root = Path(__file__).resolve().parents[1]
    folders = ("gradviz", "tests", "resources", "docs")
    files = [p for folder in folders for p in (root / folder).rglob("*")
             if p.suffix in (".py", ".toml", ".md")] + [root / "pyproject.toml"]
    word = "DESIGN" + ".md"    # split, so that this test does not find itself
    assert [str(p.relative_to(root)) for p in files if word in p.read_text(errors="replace")] == []


# ---- what a newcomer copies from the README runs as written ------------------------------
def _readme() -> str:
    return (ROOT / "README.md").read_text()


def _doc(name: str) -> str:
    return (ROOT / "docs" / name).read_text()


def _everything() -> str:
    """The README and every page of docs/: what a reader can copy from."""
    return _readme() + "".join(p.read_text() for p in sorted((ROOT / "docs").glob("*.md")))


def _sh_lines(text: str | None = None) -> list[str]:
    return [line for b in re.findall(r"```sh\n(.*?)```", _readme() if text is None else text,
                                     re.S)
            for line in b.splitlines()]


def test_the_install_choice_comes_first_and_pip_shows_its_progress():
    """Run as written, the commands must not download a 5 GB CUDA torch in silence: the
    CPU-only line stands before them, and neither quiets pip."""
    commands = _commands()
    cpu = next(i for i, c in enumerate(commands) if "--index-url" in c)
    app = next(i for i, c in enumerate(commands) if c.endswith(".venv/bin/gradviz"))
    tests = next(i for i, c in enumerate(commands) if c.endswith("-m pytest"))
    assert cpu < app and cpu < tests
    assert [c for c in commands if re.search(r"pip install (.* )?-q\b", c)] == []
    text = _readme()
    assert text.index("CPU-only") < text.index("# start the app")


def test_the_cpu_only_torch_line_asks_for_the_torch_gradviz_requires():
    """Installed first, it must satisfy gradviz's own requirement, or the next pip
    install would replace it with PyPI's CUDA build."""
    import tomllib
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    required = next(d for d in pyproject["project"]["dependencies"] if d.startswith("torch"))
    line = next(c for c in _commands() if "--index-url" in c)
    assert f'install "{required}" --index-url https://download.pytorch.org/whl/cpu' in line
    assert not line.endswith(("-m pytest", ".venv/bin/gradviz"))   # not one of the two


def test_the_apt_line_installs_every_library_the_app_checks_for():
    from gradviz.qt.display import QT_LIBRARIES, XCB_LIBRARIES
    line = next(c for c in _sh_lines() if c.startswith("sudo apt-get install"))
    assert sorted(line.split()[3:]) == sorted({p for _, p in QT_LIBRARIES + XCB_LIBRARIES})


def test_the_lesson_example_is_a_lesson():
    from gradviz.plain.lessons.lessons import parse_lesson
    block = next(b for b in re.findall(r"```toml\n(.*?)```", _doc("lessons.md"), re.S)
                 if "[[slides]]" in b)
    lesson = parse_lesson("example", block)
    for number, slide in enumerate(lesson.slides, start=1):
        for promise in slide.expect:
            if "same_gradients_as" in promise:      # an earlier slide, never itself
                assert promise["same_gradients_as"] < number


def test_every_preset_and_lesson_the_readme_names_exists():
    from gradviz.plain.config.presets import preset_names
    from gradviz.plain.lessons.lessons import find_lesson
    text = _everything()
    presets = set(re.findall(r"--config ([a-z][a-z0-9-]*)\b(?!\.toml)", text))
    assert presets and presets <= set(preset_names()), presets - set(preset_names())
    for name in set(re.findall(r"--lesson ([a-z0-9][a-z0-9_-]*)", text)):
        find_lesson(name)
    assert "--config resources/" not in text      # works only from a clone


@pytest.mark.parametrize("page", ["README.md", "docs/command-line.md"])
def test_the_compare_example_runs_as_written(page, tmp_path):
    import subprocess
    import sys
    lines = [line.strip() for line in _sh_lines((ROOT / page).read_text())]
    i = next(i for i, line in enumerate(lines) if "gradviz compare" in line)
    block = lines[i - 2:i + 1]
    assert [line.split()[0] for line in block] == ["printf", "printf", ".venv/bin/gradviz"]
    script = "\n".join(block).replace(".venv/bin/gradviz", f"'{sys.executable}' -m gradviz")
    proc = subprocess.run(["sh", "-c", script], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 1, proc.stderr           # 1: different, as the page says
    assert "verdict: different" in proc.stdout
    assert (tmp_path / "cmp" / "compare.json").exists()


def test_the_readme_counts_the_presets_that_ship():
    from gradviz.plain.config.presets import preset_names
    words = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
             "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen"]
    said = re.search(r"(\w+) presets ship with gradviz", _doc("command-line.md"))
    assert said, "the README no longer says how many presets ship"
    assert words.index(said.group(1).lower()) == len(preset_names())


def _project() -> dict:
    import tomllib
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_torch_has_a_floor_and_no_untested_cap():
    """A cap with no recorded break replaced a user's newer torch with an older download."""
    torch = next(d for d in _project()["dependencies"] if d.startswith("torch"))
    assert torch == "torch>=2.3"   # TorchJD's floor, nothing above it


def test_the_distribution_is_ours_and_says_who_and_what():
    """PyPI's `gradviz` is another author's project: pip install of that name installs
    it. The import package and the command keep the name."""
    project = _project()
    assert project["name"] != "gradviz" and project["name"].startswith("gradviz-")
    assert project["scripts"] == {"gradviz": "gradviz.app:entry"}
    assert project["authors"] and project["keywords"]
    assert {"Programming Language :: Python :: 3.11", "Programming Language :: Python :: 3.13",
            "Environment :: X11 Applications :: Qt"} <= set(project["classifiers"])
    assert "pip install gradviz" not in _everything()


def test_the_test_command_shows_pytests_progress_as_it_goes():
    """The suite takes minutes: its progress line must not be silenced by addopts."""
    import tomllib
    options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]
    addopts = options["ini_options"].get("addopts", "").split()
    assert not {"-q", "--quiet", "-qq", "--no-summary"} & set(addopts)
    assert options["ini_options"].get("console_output_style", "progress") == "progress"
