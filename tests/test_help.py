"""`gradviz --help` and each command's --help: at once (no torch imported), every option
explained, and each option's default shown."""
import argparse
import json
import subprocess
import sys

import pytest

from gradviz.app import build_parser
from gradviz.commands.options import RUN_DEFAULTS
from gradviz.plain.config.config import Config

COMMANDS = ("run", "compare", "lessons", "bench", "report", "open")
# prints the help and, after it, whether torch (or Qt) was imported to give it
HELP_PROBE = """
import json, sys
from gradviz.app import main
try:
    main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
print(json.dumps({"code": code, "loaded": sorted(m for m in ("torch", "PySide6")
                                                 if m in sys.modules)}))
"""


def _help(*argv: str) -> tuple[str, dict]:
    """The help text and what the process loaded, from a fresh isolated interpreter."""
    proc = subprocess.run([sys.executable, "-I", "-c", HELP_PROBE, *argv, "--help"],
                          capture_output=True, text=True, timeout=600)
    assert proc.stderr == "", proc.stderr
    text, _, last = proc.stdout.rstrip("\n").rpartition("\n")
    return text, json.loads(last)


@pytest.mark.parametrize("argv", [(), *[(c,) for c in COMMANDS]])
def test_help_imports_no_torch_and_shows_defaults(argv):
    text, probe = _help(*argv)
    assert probe == {"code": 0, "loaded": []}
    assert text.startswith("usage: gradviz")
    if argv in ((), ("run",), ("compare",), ("bench",)):
        flat = " ".join(text.split())
        defaults = Config()
        assert f"--heads K number of task heads, 1-8 (default: {defaults.heads})" in flat
        assert f"(default: {defaults.lr})" in flat and f"(default: {defaults.strategy})" in flat
        assert "accumulate-sum-first" in flat    # the presets --config takes are listed


def test_compare_help_shows_the_tolerance_compare_uses():
    from gradviz.core.compare import DEFAULT_RTOL
    text, _ = _help("compare")
    assert f"(default: {DEFAULT_RTOL})" in " ".join(text.split())


def test_the_help_module_keeps_compare_s_tolerance():
    from gradviz.commands.parsers import DEFAULT_RTOL as shown
    from gradviz.core.compare import DEFAULT_RTOL
    assert shown == DEFAULT_RTOL


def _parsers() -> list[argparse.ArgumentParser]:
    top = build_parser()
    subs = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    assert set(subs.choices) == set(COMMANDS)
    return [top, *subs.choices.values()]


def test_every_option_of_every_command_has_a_help_text():
    unexplained = [(p.prog, a.option_strings or a.dest) for p in _parsers() for a in p._actions
                   if not (a.help and a.help.strip()) or a.help is argparse.SUPPRESS]
    assert unexplained == []


def test_every_option_that_takes_a_value_names_its_default():
    """A value-taking option either has a default argparse shows, or says it in words
    (the training options keep SUPPRESS as their parser default, so that only the flags
    given override a config file)."""
    silent = []
    for parser in _parsers():
        # gradviz run and bench start from run's defaults (it samples every 20th step)
        fields = (RUN_DEFAULTS if parser.prog.split()[-1] in ("run", "bench")
                  else Config()).to_dict()
        formatter = parser._get_formatter()
        for action in parser._actions:
            if not action.option_strings or action.nargs == 0 or action.dest in ("help",):
                continue
            shown = formatter._expand_help(action) if action.help else ""
            names_default = "default:" in shown
            optional_key = action.dest in fields and fields[action.dest] is None
            no_default = action.dest in ("config", "out", "script", "lesson", "deck",
                                         "screenshot", "check", "misplace_head",
                                         "edit_detached", "print_completion")
            if not names_default and not (optional_key or no_default):
                silent.append((parser.prog, action.option_strings[0]))
            if action.dest in fields and isinstance(fields[action.dest], (int, float, str)) \
                    and not isinstance(fields[action.dest], bool):
                assert f"(default: {fields[action.dest]})" in shown, (parser.prog, shown)
    assert silent == []


def test_each_command_still_runs_what_its_module_says(capsys):
    """The commands' modules are imported only when they run: `gradviz lessons` lists the
    bundled lessons as its module does."""
    from gradviz.app import main
    from gradviz.plain.lessons.lessons import bundled_names
    assert main(["lessons"]) == 0
    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert listed == bundled_names()
