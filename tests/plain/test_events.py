"""What one line says about an exception: the status bar, notices and stderr use it."""
from __future__ import annotations

import pytest

from gradviz.plain.records.events import first_line


@pytest.mark.parametrize("exc, line", [
    (RuntimeError("Trying to backward\nthrough the graph"), "Trying to backward"),
    (ValueError("\n\nafter blank lines\nsecond"), "after blank lines"),
    (MemoryError(), "MemoryError"),
    (RuntimeError("x" * 500), "x" * 200),
])
def test_an_exception_is_told_in_its_first_line(exc, line):
    assert first_line(exc) == line


def _raised_in(module: str, exc: BaseException) -> BaseException:
    """exc, raised from a function of a module named `module`."""
    namespace = {"__name__": module}
    exec("def go(exc):\n    raise exc\n", namespace)
    try:
        namespace["go"](exc)
    except BaseException as caught:
        return caught
    raise AssertionError("not raised")


def test_each_event_names_who_raised_it():
    """A QP solver's import failure is the solver's, not "PyTorch refused"; an error of
    torch's (or of a torch op gradviz called) is PyTorch's."""
    from gradviz.plain.records.events import from_exception
    solver = from_exception(_raised_in("qpsolvers.solvers", AttributeError(
        "module 'highspy' has no attribute 'HighsModel'")), 0, "backward", "mtl_backward")
    assert solver.source == "qpsolvers" and "PyTorch refused" not in solver.explanation
    assert solver.one_line().startswith("qpsolvers raised AttributeError at step 0")
    torch_error = from_exception(_raised_in("torch.autograd", RuntimeError("no")), 0, "b", "c")
    assert torch_error.source == "PyTorch" and torch_error.one_line().startswith("RuntimeError")
    ours = from_exception(_raised_in("gradviz.core.session", RuntimeError("op")), 0, "b", "c")
    assert ours.source == "PyTorch"
    bug = from_exception(_raised_in("gradviz.core.session", KeyError("k")), 0, "b", "c")
    assert bug.source == "gradviz"
