"""A graph written as plain data (GraphData.to_dict, as a watched run's graphs.jsonl
holds it) read back into a GraphData, the form the graph panel draws."""
from __future__ import annotations

import dataclasses
from typing import Any

from .graph_data import GraphData, GraphEdge, GraphNode, ModuleCall

# fields json turns from tuples into lists: back to tuples (the panel hashes them)
_TUPLES = {"shape", "heads_reaching", "members", "out_shape"}


def _known(cls: type, data: dict[str, Any]) -> dict[str, Any]:
    """The entries cls has a field for (a derived one, a node's "freed", is left out)."""
    names = {f.name for f in dataclasses.fields(cls)}
    return {k: tuple(v) if k in _TUPLES and isinstance(v, list) else v
            for k, v in data.items() if k in names}


def graph_from_dict(data: dict[str, Any]) -> GraphData:
    """The GraphData whose to_dict() gave data. ValueError where it is no such dict."""
    try:
        return GraphData(
            nodes=[GraphNode(**_known(GraphNode, n)) for n in data.get("nodes") or []],
            edges=[GraphEdge(**_known(GraphEdge, e)) for e in data.get("edges") or []],
            modules=[ModuleCall(**_known(ModuleCall, m)) for m in data.get("modules") or []],
            sweeps=[list(s) for s in data.get("sweeps") or []])
    except (TypeError, AttributeError) as exc:
        raise ValueError(f"not a gradviz graph ({exc})") from exc
