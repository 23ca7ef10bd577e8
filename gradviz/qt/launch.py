"""Open the desktop app (temporary: the full app is built in the desktop-app issue)."""
from __future__ import annotations


def launch(args) -> int:
    import sys
    print("gradviz: the desktop app is not built yet; use `gradviz run --help`",
          file=sys.stderr)
    return 2
