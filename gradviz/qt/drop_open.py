"""Files dropped on the window open as File > Open Recent's entries do: a lesson, a
settings file or a model file, told by name and content, a model file only after the
user's word that it may run (as File > Open model… asks); a folder, as a recorded run
(File > Open run…). Only files on this computer."""
from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QMimeData, QObject, QTimer
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QWidget


def local_files(mime: QMimeData) -> list[str]:
    """The paths of the local files among the dropped URLs."""
    return [url.toLocalFile() for url in mime.urls() if url.isLocalFile()] \
        if mime.hasUrls() else []


class DropOpen(QObject):
    """Watches the window's drag and drop events; open_path(path) opens a dropped file,
    say(line) tells the status bar what was left."""

    def __init__(self, window: QWidget, open_path: Callable[[str], object],
                 say: Callable[[str], object]):
        super().__init__(window)
        self.open_path, self.say = open_path, say
        window.setAcceptDrops(True)
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:   # noqa: N802 (Qt's)
        kind = event.type()
        # QDragEnterEvent and QDragMoveEvent are QDropEvents
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove) and \
                isinstance(event, QDropEvent):
            if local_files(event.mimeData()):
                event.acceptProposedAction()   # the cursor says: this can be dropped
            return True
        if kind == QEvent.Type.Drop and isinstance(event, QDropEvent):
            paths = local_files(event.mimeData())
            if paths:
                event.acceptProposedAction()
                # after the drop has ended: opening may ask a question, and a modal
                # dialog inside the drop would hold the file manager's drag too
                QTimer.singleShot(0, lambda: self._open(paths))
            return True
        return False

    def _open(self, paths: list[str]) -> None:
        if len(paths) > 1:
            self.say(f"{len(paths)} files dropped: opening the first, {paths[0]}; "
                     "drop one at a time")
        self.open_path(paths[0])
