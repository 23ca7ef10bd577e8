"""Helpers for the render tests: stop a session after backward, read a JSON layout."""
from __future__ import annotations

import json

from gradviz.core.session import Session
from gradviz.plain.config.config import Config
from gradviz.render.graphviz_program import layout


def after_backward(config: Config) -> Session:
    """A session stopped after its last backward call, before optimizer.step()."""
    session = Session(config)
    backwards = 0
    while True:
        phase = session.advance_phase()
        assert phase.event is None, phase.event
        backwards += phase.name == "backward"
        if phase.name == "backward" and backwards == len(session._live.backward_calls):
            return session


def laid_out(dot_text: str) -> tuple[dict[str, dict], list[tuple[str, str, dict]]]:
    """(node name -> attributes, [(tail, head, attributes)]) from the engine's JSON."""
    data = json.loads(layout(dot_text, "json"))
    objects = data.get("objects", [])
    nodes = {o["name"]: o for o in objects if "nodes" not in o and "edges" not in o}
    names = {o["_gvid"]: o["name"] for o in objects}
    edges = [(names[e["tail"]], names[e["head"]], e) for e in data.get("edges", [])]
    return nodes, edges


def drawn_text(obj: dict) -> list[str]:
    """The text lines Graphviz actually drew for a node or edge label."""
    return [op["text"] for op in obj.get("_ldraw_", []) if op.get("op") == "T"]
