"""Write a graph to files: our styled DOT and its SVG, torchviz's DOT for comparison,
and a PNG on request (slow for big graphs: Graphviz rasterises the whole canvas).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import torch

from gradviz.plain.files.atomic_write import write_bytes, write_text
from gradviz.plain.graph.graph_data import GraphData

from .dot import to_dot
from .graphviz_program import RenderError, layout

if TYPE_CHECKING:
    from gradviz.core.graph import Root


class ExportError(RenderError):
    """The DOT files were written but the SVG could not be; `written` lists what was."""

    def __init__(self, message: str, written: list[Path]):
        super().__init__(message)
        self.written = written


def export_graph(graph: GraphData, out_dir: str | Path,
                 roots: Iterable[Root | torch.Tensor] | None = None,
                 params: Mapping[str, torch.Tensor] | Iterable[tuple[str, torch.Tensor]]
                 | None = None, basename: str = "graph", title: str = "") -> list[Path]:
    """Write <basename>.dot, <basename>.svg and, given roots, <basename>_torchviz.dot.

    Returns the paths written. The .dot files are written first, so when no Graphviz
    program is found (or it fails) they are still there: ExportError (a RenderError with
    a one-line message and `.written`) is raised then, and the caller decides whether
    that is a warning or a failure. roots are tensors or core Roots; params a dict or
    (name, tensor) pairs.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    dot_text = to_dot(graph, title)
    written = [write_text(out / f"{basename}.dot", dot_text)]
    if roots is not None:
        from .torchviz_adapter import make_dot_text  # torchviz only when it is asked for
        tv_text = make_dot_text(list(roots), params or {})
        written.append(write_text(out / f"{basename}_torchviz.dot", tv_text))
    try:
        svg = layout(dot_text, "svg")
    except RenderError as exc:
        names = ", ".join(p.name for p in written)
        raise ExportError(f"wrote {names} but no SVG: {exc}", written) from None
    svg_path = out / f"{basename}.svg"
    write_bytes(svg_path, svg)
    written.append(svg_path)
    return written


def write_png(graph: GraphData | str, path: str | Path, title: str = "",
              dpi: int = 96) -> Path:
    """Render graph (GraphData or DOT text) to a PNG file; raises RenderError on failure."""
    dot_text = graph if isinstance(graph, str) else to_dot(graph, title)
    png = layout(dot_text, "png", extra_args=[f"-Gdpi={int(dpi)}"])
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_bytes(path, png)
    return path

