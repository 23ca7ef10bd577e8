"""Finding and running a Graphviz layout program."""
from __future__ import annotations

import json
import os
import shutil
import stat
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from gradviz.render import graphviz_program
from gradviz.render.graphviz_program import RenderError, find_graphviz, layout

SMALL = 'digraph { a [label="alpha"]; b [label="beta"]; a -> b; }'
posix_only = pytest.mark.skipif(os.name == "nt", reason="fake programs are shell scripts")


@pytest.fixture(autouse=True)
def no_program_chosen(monkeypatch):
    """Each test here sets PATH (and GRADVIZ_GRAPHVIZ) itself: the choice of a run of the
    graph's tests with one program does not reach them."""
    monkeypatch.delenv(graphviz_program.CHOICE_VARIABLE, raising=False)


def _fake_program(directory: Path, name: str, body: str) -> Path:
    path = directory / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def test_graphviz_pure_is_found_next_to_python_when_no_dot_on_path(empty_path):
    beside = Path(sys.executable).parent / "graphviz-pure"
    if not beside.exists() and not beside.with_suffix(".exe").exists():
        pytest.skip("graphviz-pure is not installed next to this Python")
    found = find_graphviz()
    assert found.name == "graphviz-pure"
    assert Path(found.path).parent == Path(sys.executable).parent


def test_svg_layout_is_xml_with_an_svg_root(empty_path):
    root = ET.fromstring(layout(SMALL, "svg"))
    assert root.tag.rsplit("}", 1)[-1] == "svg"
    texts = {t.text for t in root.iter() if t.tag.endswith("text")}
    assert {"alpha", "beta"} <= texts


def test_json_layout_has_the_node_names(empty_path):
    data = json.loads(layout(SMALL, "json"))
    assert {o["name"] for o in data["objects"]} == {"a", "b"}
    assert len(data["edges"]) == 1


@posix_only
def test_system_dot_on_path_is_preferred(monkeypatch, tmp_path):
    fake = _fake_program(tmp_path, "dot", f'{shutil.which("cat")} >/dev/null; echo "fake dot $1"')
    monkeypatch.setenv("PATH", str(tmp_path))
    found = find_graphviz()
    assert (found.name, found.path) == ("Graphviz dot", str(fake))
    assert layout(SMALL, "svg") == b"fake dot -Tsvg\n"


@posix_only
def test_gradviz_graphviz_picks_the_bundled_program_over_a_system_dot(monkeypatch, tmp_path):
    beside = Path(sys.executable).parent / "graphviz-pure"
    if not beside.exists():
        pytest.skip("graphviz-pure is not installed next to this Python")
    _fake_program(tmp_path, "dot", "echo fake dot")
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("GRADVIZ_GRAPHVIZ", "graphviz-pure")
    assert find_graphviz() == graphviz_program.GraphvizProgram(str(beside), "graphviz-pure")
    assert b"alpha" in layout(SMALL, "svg")
    monkeypatch.setenv("GRADVIZ_GRAPHVIZ", "dot")
    assert find_graphviz().path == str(tmp_path / "dot")


def test_gradviz_graphviz_naming_a_missing_or_unknown_program_is_a_render_error(
        monkeypatch, empty_path):
    monkeypatch.setenv("GRADVIZ_GRAPHVIZ", "dot")      # graphviz-pure is there, not taken
    with pytest.raises(RenderError, match="GRADVIZ_GRAPHVIZ=dot, but no Graphviz dot"):
        find_graphviz()
    monkeypatch.setenv("GRADVIZ_GRAPHVIZ", "neato")
    with pytest.raises(RenderError, match="use one of dot, graphviz-pure"):
        find_graphviz()


def test_no_engine_at_all_is_a_one_line_render_error(monkeypatch, empty_path):
    monkeypatch.setattr(graphviz_program, "_script_dirs", lambda: [empty_path])
    with pytest.raises(RenderError) as caught:
        find_graphviz()
    message = str(caught.value)
    assert "\n" not in message and "graphviz-pure" in message and "dot" in message
    with pytest.raises(RenderError):
        layout(SMALL, "svg")


def test_bad_dot_text_is_a_one_line_render_error(empty_path):
    with pytest.raises(RenderError) as caught:
        layout("digraph { a -> ", "svg")
    assert "\n" not in str(caught.value)
    assert str(caught.value).startswith("graphviz-pure failed")


@posix_only
def test_engine_stderr_first_line_is_the_message(monkeypatch, tmp_path):
    _fake_program(tmp_path, "dot", 'echo "Error: <stdin>: syntax error in line 3" >&2\n'
                                   'echo "second line" >&2\nexit 2')
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(RenderError) as caught:
        layout(SMALL, "svg")
    assert str(caught.value) == ("Graphviz dot failed (exit code 2): "
                                 "Error: <stdin>: syntax error in line 3")


@posix_only
def test_a_hanging_engine_times_out(monkeypatch, tmp_path):
    _fake_program(tmp_path, "dot", f"exec {shutil.which('sleep')} 10")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(RenderError, match="took longer than 0.3 s"):
        layout(SMALL, "svg", timeout=0.3)


def test_unknown_format_is_refused():
    with pytest.raises(RenderError, match="unknown output format"):
        layout(SMALL, "bmp")
