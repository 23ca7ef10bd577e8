"""Shared fixtures for the render tests: a real session graph and a JSON layout reader."""
from __future__ import annotations

import json

import pytest

from gradviz.core.config import Config
from gradviz.core.session import Session
from gradviz.render.engine import layout


@pytest.fixture(scope="session")
def detach_session() -> Session:
    """Three heads, head 1 reads z.detach(), after one whole step (sum, not retained)."""
    session = Session(Config(detach=(1,)))
    assert session.step() is not None
    return session


@pytest.fixture(scope="session")
def detach_graph(detach_session):
    return detach_session.graph()


def after_backward(config: Config) -> Session:
    """A session stopped after its last backward call, before optimizer.step()."""
    session = Session(config)
    backwards = 0
    while True:
        phase = session.advance_phase()
        assert phase.event is None, phase.event
        backwards += phase.phase == "backward"
        if phase.phase == "backward" and backwards == len(session._live.backward_calls):
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
