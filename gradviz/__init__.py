"""gradviz: see what autograd does when a network has several losses."""
from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # `gradviz.watch` loads torch on first use only (PEP 562): `import gradviz` stays
    # cheap, and the window's process, which imports gradviz, never loads torch by it
    if name == "watch":
        return importlib.import_module("gradviz.core.watch").watch
    if name == "WatchError":   # torch-free: what strict=True raises
        return importlib.import_module("gradviz.plain.watch.watch_complaints").WatchError
    if name == "open_run":   # torch-free and Qt-free: the window is a process of its own
        return importlib.import_module("gradviz.plain.runs.open_run").open_run
    if name == "show":   # torch-free and Qt-free: HTML in a notebook's cell
        return importlib.import_module("gradviz.notebook").show
    if name == "lightning":   # gradviz.lightning.WatchCallback: the lightning extra
        return importlib.import_module("gradviz.lightning")
    raise AttributeError(f"module 'gradviz' has no attribute {name!r}")
