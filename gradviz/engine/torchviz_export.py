"""The window's "Export torchviz DOT": torchviz.make_dot of the live roots, written by
the engine (only it holds the tensors)."""
from __future__ import annotations

from ..core.session import Session
from ..plain.files.atomic_write import write_text
from ..plain.records import events as ev


def export_torchviz(session: Session, path: str) -> str:
    """Write the session's graph as torchviz draws it to path; the line that says how it
    went (a failed export is a message, never a crash)."""
    from ..render.torchviz_adapter import make_dot_text
    try:
        text = make_dot_text(session.root_tensors(),
                             dict(zip(session.param_names, session.params)))
        # written whole under a temporary name, then renamed: a user's file is never
        # left half-written, and whoever waits for it never reads it empty
        write_text(path, text)
    except Exception as exc:
        return f"torchviz export failed: {ev.first_line(exc)}"
    return f"torchviz DOT exported to {path}"
