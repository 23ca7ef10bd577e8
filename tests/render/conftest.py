"""Fixtures for the render tests: a real session graph (3 heads, head 1 detached)."""
from __future__ import annotations

import pytest

from gradviz.core.session import Session
from gradviz.plain.config.config import Config


@pytest.fixture(scope="session")
def detach_session() -> Session:
    """Three heads, head 1 reads z.detach(), after one whole step (sum, not retained)."""
    session = Session(Config(detach=(1,)))
    assert session.step() is not None
    return session


@pytest.fixture(scope="session")
def detach_graph(detach_session):
    return detach_session.graph()


@pytest.fixture
def empty_path(monkeypatch, tmp_path):
    """PATH with nothing on it, so no system `dot` can be found (nor asked for by
    GRADVIZ_GRAPHVIZ, as when the graph's tests are run with each program)."""
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.delenv("GRADVIZ_GRAPHVIZ", raising=False)
    return empty
