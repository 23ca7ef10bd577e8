"""File > Open Recent: the files last opened (lessons, settings, model files), newest
first, kept in the settings file as plain paths. An entry whose file is gone is dropped
with one line in the status bar. Opening one goes through the File menu, so a model
file that was edited since it was trusted is asked about again before it runs."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QMenu

from .plain_text import plain_tip
from .settings import MAX_RECENT


def _exists(path: str) -> bool:
    try:
        return Path(path).is_file()
    except (OSError, ValueError):   # too long, or a NUL: no file
        return False


class RecentFiles(QObject):
    """The list and its submenu; open_path(path) opens an entry the user picks."""

    notice = Signal(str)   # one line for the status bar

    def __init__(self, menu: QMenu, paths: Iterable[str], open_path: Callable[[str], object]):
        super().__init__(menu)
        self.paths: list[str] = list(paths)[:MAX_RECENT]
        self.open_path = open_path
        self.menu = menu.addMenu("Open Recent")
        self.menu.setObjectName("recentMenu")
        self.menu.aboutToShow.connect(self.refresh)
        self.refresh()

    def add(self, path: str) -> None:
        """path, opened just now, first in the list (once)."""
        resolved = str(Path(path).resolve())
        self.paths = [resolved] + [p for p in self.paths if p != resolved]
        del self.paths[MAX_RECENT:]
        self.refresh()

    def refresh(self) -> None:
        """The submenu lists the entries whose file is still there."""
        gone = [p for p in self.paths if not _exists(p)]
        if gone:
            self.paths = [p for p in self.paths if p not in gone]
            more = f" and {len(gone) - 1} more" if len(gone) > 1 else ""
            self.notice.emit(f"Open Recent: dropped {gone[0]}{more}: the file is gone")
        self.menu.clear()
        for i, path in enumerate(self.paths):
            # &1..&8: the number picks the entry from the keyboard; && shows a literal &
            action = self.menu.addAction(f"&{i + 1} {path.replace('&', '&&')}")
            action.setObjectName(f"recentFile{i + 1}")
            action.setToolTip(plain_tip(path))   # a path may look like HTML
            action.triggered.connect(lambda _checked=False, p=path: self.open_path(p))
        self.menu.setEnabled(bool(self.paths))
