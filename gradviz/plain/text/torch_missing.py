"""PyTorch not installed: told in one line, with the command that installs it into the
Python gradviz runs in (the README's CPU-only build), by the commands and the engine."""
from __future__ import annotations

import sys

# the README's install line, run by this interpreter's own pip
CPU_TORCH = '"torch>=2.3" --index-url https://download.pytorch.org/whl/cpu'


def torch_missing(exc: BaseException) -> bool:
    """Whether exc is the import of torch failing because it is not installed."""
    name = getattr(exc, "name", None) or ""
    return isinstance(exc, ModuleNotFoundError) and name.split(".")[0] == "torch"


def torch_missing_words() -> str:
    return (f"PyTorch (torch) is not installed in this Python ({sys.executable}); install "
            f"it with: {sys.executable} -m pip install {CPU_TORCH}")
