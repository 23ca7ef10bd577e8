"""Checks a saved dock layout (the bytes QMainWindow.saveState made) before Qt sees it.

QMainWindow.restoreState trusts its input: a dock-area index read from the bytes is used
unchecked, and a few flipped bytes crash the process (found by fuzzing Qt 6.11). The
settings file can hold anything, so gradviz parses the layout itself first and hands Qt
only what this strict reading of Qt's format accepts: known markers, its own dock names,
small counts, sane sizes, nothing left over. Anything else is refused (the window then
uses its first-launch layout).
"""
from __future__ import annotations

import struct

VERSION_MARKER = 0xFF
DOCK_STATE_MARKER = 0xFD
TOOLBAR_STATE_MARKER_EX = 0xFC   # followed by the number of toolbar lines (gradviz: 0)
SEQUENCE_MARKER = 0xFC
TAB_MARKER = 0xFA
WIDGET_MARKER = 0xFB
ORIENTATIONS = (1, 2)            # Qt::Horizontal, Qt::Vertical
DOCK_AREAS = (1, 2, 4, 8)        # Qt::Left/Right/Top/BottomDockWidgetArea, for the corners
MAX_ITEMS = 32                   # per dock area or nested group; gradviz has six docks
MAX_DEPTH = 8                    # groups nested in groups
MAX_NAME_CHARS = 64
# sizes: QWIDGETSIZE_MAX (2^24 - 1) is the largest widget size, but Qt 6.12 writes a
# little more for a dock whose maximum is that plus its margins (16777245, seen)
MAX_COORDINATE = 1 << 26


class BadLayout(ValueError):
    """The bytes are not a layout gradviz would have saved."""


class _Reader:
    def __init__(self, data: bytes):
        self.data, self.at = data, 0

    def take(self, n: int) -> bytes:
        if self.at + n > len(self.data):
            raise BadLayout("ends early")
        chunk = self.data[self.at:self.at + n]
        self.at += n
        return chunk

    def uchar(self) -> int:
        return self.take(1)[0]

    def int32(self, low: int = -MAX_COORDINATE, high: int = MAX_COORDINATE) -> int:
        value = struct.unpack(">i", self.take(4))[0]
        if not low <= value <= high:
            raise BadLayout(f"value {value} out of range")
        return value

    def string(self) -> str:
        """QString: byte length (big-endian), then UTF-16BE."""
        length = struct.unpack(">I", self.take(4))[0]
        if length % 2 or length > 2 * MAX_NAME_CHARS:
            raise BadLayout("bad name")
        try:
            return self.take(length).decode("utf-16-be")
        except UnicodeDecodeError:
            raise BadLayout("bad name") from None


def check_window_state(data: bytes, dock_names: set[str], version: int = 0) -> None:
    """Raise BadLayout unless data is a layout of these docks, as saveState(version)
    writes it for a window without toolbars."""
    r = _Reader(bytes(data))
    if r.int32() != VERSION_MARKER or r.int32() != version:
        raise BadLayout("not a window layout")
    if r.uchar() != DOCK_STATE_MARKER:
        raise BadLayout("no dock layout")
    seen: set[str] = set()
    areas = r.int32(0, 4)
    used: set[int] = set()
    for _ in range(areas):
        area = r.int32(0, 3)            # the index Qt uses unchecked
        if area in used:
            raise BadLayout("a dock area twice")
        used.add(area)
        r.int32(-1), r.int32(-1)        # the area's size
        _check_group(r, dock_names, seen, depth=0)
    r.int32(-1), r.int32(-1)            # the central widget's size
    for _ in range(4):
        if r.int32() not in DOCK_AREAS:
            raise BadLayout("bad corner")
    if r.uchar() != TOOLBAR_STATE_MARKER_EX or r.int32() != 0:
        raise BadLayout("toolbars gradviz does not have")
    if r.at != len(r.data):
        raise BadLayout("data after the layout")


def _check_group(r: _Reader, dock_names: set[str], seen: set[str], depth: int) -> None:
    if depth > MAX_DEPTH:
        raise BadLayout("nested too deeply")
    marker = r.uchar()
    if marker not in (TAB_MARKER, SEQUENCE_MARKER):
        raise BadLayout("bad group")
    current_tab = r.int32(-1, MAX_ITEMS) if marker == TAB_MARKER else -1
    if r.uchar() not in ORIENTATIONS:
        raise BadLayout("bad orientation")
    count = r.int32(0, MAX_ITEMS)
    if current_tab >= count:
        raise BadLayout("bad current tab")
    for _ in range(count):
        kind = r.uchar()
        if kind == WIDGET_MARKER:
            name = r.string()
            if name not in dock_names or name in seen:
                raise BadLayout("an unknown or repeated dock")
            seen.add(name)
            if r.uchar() > 3:            # visible, floating
                raise BadLayout("bad dock flags")
            for _ in range(4):           # position and size, docked or floating
                r.int32()
        elif kind == SEQUENCE_MARKER:
            for _ in range(4):
                r.int32()
            _check_group(r, dock_names, seen, depth + 1)
        else:
            raise BadLayout("bad item")
