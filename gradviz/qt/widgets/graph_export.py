"""The graph as drawn, written to an SVG or a PNG file: rendered to a temporary file
beside the target, then renamed into place, so that a failed export leaves an older
file of that name as it was and no half-written one."""
from __future__ import annotations

import os
import tempfile

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QImage, QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QGraphicsScene


def write_scene(scene: QGraphicsScene, kind: str, path: str) -> bool:
    """The scene as kind ("svg" or "png") at path; False where it could not be drawn
    (an OSError from the file system goes to the caller)."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".gradviz-export.", suffix=f".{kind}", dir=folder)
    os.close(fd)
    try:
        if not _render(scene, kind, tmp):
            return False
        os.replace(tmp, path)
        return True
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _render(scene: QGraphicsScene, kind: str, path: str) -> bool:
    rect = scene.sceneRect()
    if kind == "svg":
        gen = QSvgGenerator()
        gen.setFileName(path)
        gen.setSize(QSize(int(rect.width()), int(rect.height())))
        gen.setViewBox(QRectF(0, 0, rect.width(), rect.height()))
        gen.setTitle("gradviz autograd graph")
        painter = QPainter()
        if not painter.begin(gen):
            return False
        scene.render(painter, QRectF(), rect)
        return painter.end()
    # at twice the scene's size, as drawn at 200%
    image = QImage(int(rect.width() * 2), int(rect.height() * 2), QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.white)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    scene.render(painter, QRectF(), rect)
    painter.end()
    # PySide6's stub types the format (a char*) as bytes; at run time it takes str
    # only (b"PNG" raises ValueError)
    return image.save(path, "PNG")  # type: ignore[call-overload]
