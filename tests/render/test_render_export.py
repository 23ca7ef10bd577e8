"""Export: our DOT, its SVG and torchviz's DOT on disk; PNG on request."""
from __future__ import annotations

import struct
import xml.etree.ElementTree as ET

import pytest

from gradviz.plain.graph.graph_data import GraphData, GraphEdge, GraphNode
from gradviz.render import graphviz_program
from gradviz.render.export import ExportError, export_graph, write_png
from gradviz.render.graphviz_program import RenderError

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
TINY = GraphData([GraphNode("n0", "param", "w", shape=(2, 3), heads_reaching=(0,)),
                  GraphNode("n1", "loss", "head0", shape=(), heads_reaching=(0,))],
                 [GraphEdge("n0", "n1")])


def _png_size(data: bytes) -> tuple[int, int]:
    return struct.unpack(">II", data[16:24])   # IHDR: width, height


def test_export_writes_dot_svg_and_torchviz_dot(tmp_path, detach_session, detach_graph):
    s = detach_session
    written = export_graph(detach_graph, tmp_path / "out", roots=s._live.roots,
                           params=zip(s.param_names, s.params), title="detach head 1")
    names = sorted(p.name for p in written)
    assert names == ["graph.dot", "graph.svg", "graph_torchviz.dot"]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == names
    root = ET.parse(tmp_path / "out" / "graph.svg").getroot()
    assert root.tag.rsplit("}", 1)[-1] == "svg"
    assert (tmp_path / "out" / "graph.dot").read_text().startswith("digraph")
    assert "AccumulateGrad" in (tmp_path / "out" / "graph_torchviz.dot").read_text()


def test_export_without_roots_writes_no_torchviz_file(tmp_path):
    written = export_graph(TINY, tmp_path, basename="step7")
    assert sorted(p.name for p in written) == ["step7.dot", "step7.svg"]


def test_export_without_any_engine_keeps_the_dot_files(tmp_path, monkeypatch):
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setattr(graphviz_program, "_script_dirs", lambda: [empty])
    monkeypatch.delenv(graphviz_program.CHOICE_VARIABLE, raising=False)
    with pytest.raises(ExportError) as caught:
        export_graph(TINY, tmp_path / "out")
    assert isinstance(caught.value, RenderError)
    assert "\n" not in str(caught.value) and "no Graphviz found" in str(caught.value)
    assert [p.name for p in caught.value.written] == ["graph.dot"]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["graph.dot"]


def test_png_starts_with_the_png_magic_and_scales_with_dpi(tmp_path):
    small = write_png(TINY, tmp_path / "small.png", dpi=48).read_bytes()
    big = write_png(TINY, tmp_path / "big.png", dpi=144).read_bytes()
    assert small.startswith(PNG_MAGIC) and big.startswith(PNG_MAGIC)
    (w1, h1), (w3, h3) = _png_size(small), _png_size(big)
    assert 2.7 < w3 / w1 < 3.3 and 2.7 < h3 / h1 < 3.3


def test_png_of_dot_text(tmp_path):
    data = write_png('digraph { a -> b }', tmp_path / "ab.png").read_bytes()
    assert data.startswith(PNG_MAGIC)
