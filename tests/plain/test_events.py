"""What one line says about an exception: the status bar, notices and stderr use it."""
from __future__ import annotations

import pytest

from gradviz.plain.events import first_line


@pytest.mark.parametrize("exc, line", [
    (RuntimeError("Trying to backward\nthrough the graph"), "Trying to backward"),
    (ValueError("\n\nafter blank lines\nsecond"), "after blank lines"),
    (MemoryError(), "MemoryError"),
    (RuntimeError("x" * 500), "x" * 200),
])
def test_an_exception_is_told_in_its_first_line(exc, line):
    assert first_line(exc) == line
