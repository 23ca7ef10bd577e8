"""The command line's desktop habits: `gradviz FILE` opens a file as its flag would (told
by name and content), a misspelt flag, choice or config key gets a did-you-mean in one
line with exit status 2, and `gradviz --install-desktop` writes a desktop entry that
starts this gradviz."""
import os
import subprocess
import sys

import pytest

from gradviz.app import build_parser, main
from gradviz.commands.bare_file import bare_file_argv
from gradviz.commands.desktop_entry import exec_word

LESSON = 'title = "Mine"\n[[slides]]\ntitle = "one"\nnarration = "hi"\n'


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "lesson.toml").write_text(LESSON)
    (tmp_path / "config.toml").write_text("steps = 5\n")
    (tmp_path / "model.py").write_text("raise SystemExit('a model file must not run here')\n")
    (tmp_path / "notes.txt").write_text("hello\n")
    return tmp_path


def _argv(*words):
    return bare_file_argv(build_parser(), list(words))


def _one_line(capsys, *argv):
    with pytest.raises(SystemExit) as exit_:
        main(list(argv))
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1, err
    return err.strip()


@pytest.mark.parametrize("name, flag", [("lesson.toml", "--lesson"),
                                        ("config.toml", "--config"),
                                        ("model.py", "--model")])
def test_a_bare_file_becomes_the_flag_of_its_kind(files, name, flag):
    assert _argv(name) == [flag, name]
    # after options, their values left alone, and before more options
    assert _argv("--steps", "5", name, "--lr", "0.1") == \
        ["--steps", "5", flag, name, "--lr", "0.1"]
    assert _argv("--steps=5", name) == ["--steps=5", flag, name]
    assert _argv("--ste", "5", name) == ["--ste", "5", flag, name]   # an abbreviation


def test_commands_and_their_files_are_left_alone(files):
    assert _argv("run", "--config", "config.toml") == ["run", "--config", "config.toml"]
    assert _argv("lessons") == ["lessons"]
    assert _argv() == []


def test_a_file_of_no_kind_or_no_file_is_refused_in_one_line(files, capsys):
    assert _one_line(capsys, "notes.txt") == ("gradviz: 'notes.txt' is not a lesson or "
                                              "settings file (.toml) or a model file (.py)")
    assert _one_line(capsys, "gone.toml") == "gradviz: no such file: 'gone.toml'"
    (files / "broken.toml").write_text("steps = = 1\n")
    assert _one_line(capsys, "broken.toml").startswith("gradviz: 'broken.toml' is not valid TOML")
    assert _one_line(capsys, "config.toml", "--config", "config.toml") == \
        "gradviz: config.toml and --config both name a file to open; give one of them"


def test_a_bare_model_file_is_not_read_to_tell_its_kind(files, monkeypatch):
    """A model file is code: its name says what it is, and nothing of it runs here."""
    opened = []
    real_open = open
    monkeypatch.setattr("builtins.open", lambda p, *a, **k: opened.append(str(p))
                        or real_open(p, *a, **k))
    assert _argv("model.py") == ["--model", "model.py"]
    assert not any(p.endswith("model.py") for p in opened)


def test_a_misspelt_flag_names_the_closest_one(files, capsys):
    assert _one_line(capsys, "--lesons", "lesson.toml") == \
        "gradviz: unknown option --lesons (did you mean --lesson?) (see gradviz --help)"
    assert _one_line(capsys, "--stesp=3") == \
        "gradviz: unknown option --stesp (did you mean --steps?) (see gradviz --help)"
    assert _one_line(capsys, "--qqqqqq") == "gradviz: unknown option --qqqqqq (see gradviz --help)"
    # after a command, argparse finds it; the hint is added to its words
    assert _one_line(capsys, "run", "--stesp", "3").endswith(
        "unrecognized arguments: --stesp 3 (did you mean --steps?) (see gradviz --help)")


def test_a_misspelt_command_or_choice_names_the_closest_one(capsys):
    assert "invalid choice: 'rn'" in _one_line(capsys, "rn")
    assert _one_line(capsys, "rn").endswith("(did you mean 'run'?) (see gradviz --help)")
    assert "(did you mean 'separate'?)" in _one_line(capsys, "--strategy", "seperate")


def test_a_misspelt_config_key_names_the_closest_one(files, capsys):
    (files / "typo.toml").write_text("stesp = 5\n")
    assert _one_line(capsys, "run", "--config", "typo.toml") == \
        "gradviz: unknown setting 'stesp' (did you mean 'steps'?)"
    (files / "dashes.toml").write_text("trunk-widht = 5\n")   # named as read: underscores
    assert _one_line(capsys, "run", "--config", "dashes.toml") == \
        "gradviz: unknown setting 'trunk_widht' (did you mean 'trunk_width'?)"


def _exec_argv(line: str) -> list[str]:
    """A desktop entry's Exec value split as the Desktop Entry Specification says: the
    string escape first (\\\\ is one backslash), then words split at spaces, where a
    double-quoted word's backslash takes the next character as it is."""
    line = line.replace("\\\\", "\\")
    words, word, quoted, i = [], "", False, 0
    while i < len(line):
        c = line[i]
        if quoted and c == "\\":
            i += 1
            word += line[i]
        elif c == '"':
            quoted = not quoted
        elif c == " " and not quoted:
            words, word = words + [word], ""
        else:
            word += c
        i += 1
    return words + [word]


def test_exec_words_survive_the_desktop_s_quoting():
    for word in ("/usr/bin/python3", "/home/a b/venv/bin/python", 'q"uo`te$\\d'):
        assert _exec_argv(f"{exec_word(word)} -m gradviz") == [word, "-m", "gradviz"]


def test_install_desktop_writes_an_entry_that_starts_this_gradviz(tmp_path):
    env = dict(os.environ, XDG_DATA_HOME=str(tmp_path))
    proc = subprocess.run([sys.executable, "-m", "gradviz", "--install-desktop"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    entry = tmp_path / "applications" / "gradviz.desktop"
    icon = tmp_path / "icons" / "hicolor" / "scalable" / "apps" / "gradviz.svg"
    assert str(entry) in proc.stdout and icon.read_text().lstrip().startswith("<svg")
    keys = dict(line.split("=", 1) for line in entry.read_text().splitlines() if "=" in line)
    assert keys["Type"] == "Application" and keys["Icon"] == "gradviz"
    assert "MimeType" not in keys   # claims no file type: a model file is code
    command = _exec_argv(keys["Exec"])
    assert command[-1] == "%f"
    version = subprocess.run(command[:-1] + ["--version"], capture_output=True, text=True,
                             env=env, timeout=120)
    assert version.returncode == 0 and version.stdout.startswith("gradviz ")


def test_open_recent_is_given_the_files_typed_not_bundled_names(files):
    from gradviz.qt.launch import named_files

    def named(*words):
        return named_files(build_parser().parse_args(_argv(*words)))
    assert named("lesson.toml") == ["lesson.toml"]
    assert named("model.py", "--config", "config.toml") == ["config.toml", "model.py"]
    assert named("--lesson", "detach-vs-detach_", "--config", "rnn-truncated",
                 "--model", "deep_supervision") == []
    (files / "mlp").write_text("")   # --model mlp is the built-in model, whatever is here
    assert named("--model", "mlp") == []
