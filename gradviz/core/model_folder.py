"""A model file's own folder, importable by the model file alone: its helpers beside it
import (as under `python FILE`), but no installed library's import ever resolves there.

The folder is never put on sys.path. A finder placed after every other one serves an
import from it only when the code asking is the model file or a module it served: a
library probing for an optional module (the QP solvers' `highspy`, torch's `triton`)
never finds a stranger's `highspy.py` beside the model, whenever it probes."""
from __future__ import annotations

import importlib
import importlib.machinery
import os
import sys
from importlib.abc import MetaPathFinder
from types import FrameType

# frames of the import machinery itself, between the importer and the finder
_FROZEN = "<frozen importlib"
_STDLIB_IMPORTLIB = os.path.dirname(importlib.__file__) + os.sep


class ModelFolderFinder(MetaPathFinder):
    """Finds top-level modules in folder, for an import asked by one of `owners` (the
    model file's module name, and every module this finder served)."""

    def __init__(self, folder: str):
        self.folder = folder
        self.owners: set[str] = set()

    def find_spec(self, fullname, path, target=None):
        if path is not None or not self._asked_by_owner():
            return None   # a package's submodule is found through its own __path__
        spec = importlib.machinery.PathFinder.find_spec(fullname, [self.folder])
        if spec is not None:
            self.owners.add(fullname)
        return spec

    def _asked_by_owner(self) -> bool:
        frame: FrameType | None = sys._getframe(1)
        while frame is not None and _in_machinery(frame):
            frame = frame.f_back
        if frame is None:
            return False
        name = str(frame.f_globals.get("__name__", ""))
        return name.split(".")[0] in self.owners


def _in_machinery(frame: FrameType) -> bool:
    filename = frame.f_code.co_filename
    return frame.f_globals.get("__name__") == __name__ or \
        filename.startswith((_FROZEN, _STDLIB_IMPORTLIB))


def serve_folder(folder: str, owner: str) -> None:
    """Let the module named owner (a loaded model file) import from folder; one finder
    per folder, at the end of sys.meta_path (after the installed packages)."""
    for finder in sys.meta_path:
        if isinstance(finder, ModelFolderFinder) and finder.folder == folder:
            finder.owners.add(owner)
            return
    finder = ModelFolderFinder(folder)
    finder.owners.add(owner)
    sys.meta_path.append(finder)
