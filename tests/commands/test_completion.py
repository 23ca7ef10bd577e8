"""`gradviz --print-completion bash|zsh`: shtab's script, written from the parsers, that
a shell sources. Bash is asked what it completes, as a user's Tab would."""
import shutil
import subprocess
import sys

import pytest

from gradviz.app import build_parser

COMMANDS = ("run", "compare", "lessons", "bench", "report", "open")


def _script(shell: str) -> str:
    done = subprocess.run([sys.executable, "-I", "-m", "gradviz", "--print-completion",
                           shell], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def bash_script(tmp_path_factory) -> str:
    if shutil.which("bash") is None:
        pytest.skip("no bash")
    path = tmp_path_factory.mktemp("completion") / "gradviz.bash"
    path.write_text(_script("bash"))
    return str(path)


def _tab(script: str, line: str, cwd) -> list[str]:
    """What bash offers for Tab at the end of line, after sourcing script."""
    words = line.split(" ")
    probe = (f'source "{script}"\n'
             f'COMP_WORDS=({" ".join(repr(w) for w in words)})\n'
             f"COMP_CWORD={len(words) - 1}\n"
             f"COMP_LINE={line!r}\nCOMP_POINT={len(line)}\n"
             f"_shtab_gradviz gradviz {words[-1]!r} {words[-2]!r}\n"
             'printf "%s\\n" "${COMPREPLY[@]}"\n')
    done = subprocess.run(["bash", "--norc", "--noprofile", "-c", probe], cwd=cwd,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return [w.strip() for w in done.stdout.splitlines() if w.strip()]


def test_bash_completes_the_commands_options_and_choices(bash_script, tmp_path):
    assert set(_tab(bash_script, "gradviz ", tmp_path)) >= set(COMMANDS)
    assert _tab(bash_script, "gradviz ru", tmp_path) == ["run"]
    assert _tab(bash_script, "gradviz run --opt", tmp_path) == ["--optimizer"]
    assert sorted(_tab(bash_script, "gradviz run --optimizer ", tmp_path)) == ["adam", "sgd"]
    assert "--rtol" in _tab(bash_script, "gradviz compare --", tmp_path)
    assert _tab(bash_script, "gradviz --print-completion z", tmp_path) == ["zsh"]


def test_bash_completes_paths_where_an_option_takes_a_file_or_a_folder(bash_script,
                                                                       tmp_path):
    (tmp_path / "a-settings.toml").write_text("")
    (tmp_path / "a-run").mkdir()
    assert sorted(_tab(bash_script, "gradviz compare a-", tmp_path)) == [
        "a-run", "a-settings.toml"]
    assert _tab(bash_script, "gradviz run --out a-", tmp_path) == ["a-run"]
    assert _tab(bash_script, "gradviz open a-", tmp_path) == ["a-run"]


def test_the_zsh_script_names_every_command_and_option():
    script = _script("zsh")
    assert script.startswith("#compdef gradviz")
    options = {s for a in build_parser()._actions for s in a.option_strings}
    assert {"--print-completion", "--lesson", "--config"} <= options
    assert all(option in script for option in options)
    assert all(f"\n    {command}:'" in script for command in COMMANDS)   # zsh's commands
    if shutil.which("zsh"):
        done = subprocess.run(["zsh", "-n"], input=script, text=True, capture_output=True,
                              timeout=60)
        assert done.returncode == 0, done.stderr
