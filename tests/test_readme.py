"""The README's two commands are the ones CI and a newcomer run."""
import re
from pathlib import Path

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
    allowed = {"gradviz", "resources", "tests", "pyproject.toml", "README.md", "LICENSE"}
    tracked = {p.name for p in ROOT.iterdir()
               if not p.name.startswith(".") and p.name not in {"build", "dist"}
               and not p.name.endswith(".egg-info")}
    assert tracked <= allowed, tracked - allowed


def test_nothing_points_at_a_design_document_users_never_have():
    """Reasons live where they are needed, in a sentence, not in a file outside the repo."""
    root = Path(__file__).resolve().parents[1]
    files = [p for folder in ("gradviz", "tests", "resources") for p in (root / folder).rglob("*")
             if p.suffix in (".py", ".toml", ".md")] + [root / "pyproject.toml"]
    word = "DESIGN" + ".md"    # split, so that this test does not find itself
    assert [str(p.relative_to(root)) for p in files if word in p.read_text(errors="replace")] == []
