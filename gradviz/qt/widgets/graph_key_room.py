"""Where the graph panel's key goes: beside the graph in a wide panel, in rows below it
otherwise, sized so that its lines are whole; and the room a graph about to be laid out
is given beside or above it. The panel's splitter is sized again only when that changes
(so a divider the user dragged stays where it was put)."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractButton, QScrollArea, QSplitter, QWidget

from ...plain.graph.graph_key_fold import key_folds
from .graph_legend import GraphLegend

KEY_BELOW_SHARE = 0.4      # the most of the panel's height the key takes below the graph
KEY_BESIDE_SHARE = 0.35    # ... and of its width beside it
BELOW_CANVAS_LEAST = 60    # px: the graph's least height with the key below it


class KeyRoom:
    """The key's place in split, between the canvas and side (scrolled in side_scroll)."""

    def __init__(self, split: QSplitter, canvas: QWidget, side: QWidget,
                 side_scroll: QScrollArea, legend: GraphLegend,
                 unfold: QAbstractButton) -> None:
        """unfold: a checkable button, shown where the key folds away; checked, the key
        is shown all the same."""
        self.split, self.canvas, self.side = split, canvas, side
        self.side_scroll, self.legend, self.unfold = side_scroll, legend, unfold
        self.placed: tuple | None = None   # (beside?, key size) the split was sized for
        self.zoom = 1.0                    # the text size: the graph's least room grows
        self.folded = False                # the key folded away (plain.graph.graph_key_fold)

    def beside(self) -> bool:
        """Whether the key is beside the graph (a wide panel) rather than below it."""
        return self.split.orientation() == Qt.Orientation.Horizontal

    def folds(self) -> bool:
        """Whether the key, below or beside, would leave the graph too little room."""
        width, height = max(1, self.split.width()), max(1, self.split.height())
        return key_folds(width, height, self._height_below(width, height),
                         self._width_beside(width, height), self.zoom)

    def place(self, shown: bool, drawing: tuple[float, float] | None) -> None:
        """The key beside or below the graph (drawing: the module graph's size on
        screen, or None), its splitter sized again only where that or its size changed;
        or folded away, where it would leave the graph too little room either way (the
        unfold button then shows it all the same)."""
        folds = shown and self.folds()
        self.unfold.setVisible(folds)
        self.folded = folds and not self.unfold.isChecked()
        self.side_scroll.setVisible(shown and not self.folded)
        if not shown or self.folded:
            # placed afresh when it comes back: the split's way may have changed since
            self.placed = None
            return
        width, height = max(1, self.split.width()), max(1, self.split.height())
        # beside only where the graph keeps a canvas at least as wide as high: in a
        # square dock the key beside left the graph under 40% of the width
        beside = self._goes_beside(width, height, drawing)
        # beside: the key's width; below: its height as given (its rows alone kept the
        # height of another graph's key of as many rows, or a share of an older height)
        size = (self._width_beside(width, height) if beside
                else self._height_below(width, height))
        if (beside, size) == self.placed:
            return
        self.placed = (beside, size)
        if beside:
            self.split.setOrientation(Qt.Orientation.Horizontal)
            self.canvas.setMinimumHeight(0)        # their size hints'
            self.side_scroll.setMinimumHeight(0)
            self.side.setMaximumWidth(size)
            self.split.setSizes([width - size, size])
        else:
            # stacked, the two minimum heights would add up: the panel would ask as much
            # as it did side by side (a window at 150% text on 1280x720 went past 720)
            self.split.setOrientation(Qt.Orientation.Vertical)
            self.canvas.setMinimumHeight(BELOW_CANVAS_LEAST)
            self.side_scroll.setMinimumHeight(1)
            self.side.setMaximumWidth(16_777_215)
            self.split.setSizes([height - size, size])

    def room_for_layout(self, shown: bool) -> tuple[int, int]:
        """The canvas a graph about to be laid out is given: the panel's, less a key of
        the usual lines placed as before any graph (beside where the canvas stays at
        least as wide as high). Not the canvas as it is: its size follows what the key
        held before (nothing, at first), and so would the layout's direction and, from
        the drawing's shape, where the key goes."""
        width, height = max(1, self.split.width()), max(1, self.split.height())
        if not shown or self.folded:
            return width, height
        if width - self.side_scroll.minimumWidth() >= height:
            return width - self._width_beside(width, height, usual=True), height
        key = min(self.legend.usual_height_for_width(width) + 2, int(KEY_BELOW_SHARE * height))
        return width, height - key - self.split.handleWidth()

    def _height_below(self, width: int, height: int) -> int:
        """The key's height below the graph: its rows (and the history plot, when shown)
        whole, up to KEY_BELOW_SHARE of the height."""
        want = self.side.heightForWidth(width)
        want = want if want > 0 else self.legend.heightForWidth(width)
        return min(want + 2, int(KEY_BELOW_SHARE * height))

    def _goes_beside(self, width: int, height: int,
                     drawing: tuple[float, float] | None) -> bool:
        """Beside where the graph on screen is drawn larger so (a tall module graph in a
        squarish dock); without one, where the canvas stays at least as wide as high."""
        if drawing is None or min(drawing) <= 40:
            return width - self.side_scroll.minimumWidth() >= height
        w, h = drawing
        key_w = self._width_beside(width, height)
        key_h = min(self.legend.heightForWidth(width) + 2, int(KEY_BELOW_SHARE * height))
        beside = min((width - key_w) / w, height / h)
        below = min(width / w, max(1, height - key_h) / h)
        return beside >= below

    def _width_beside(self, width: int, height: int, usual: bool = False) -> int:
        """The narrowest key beside the graph that shows every line without scrolling
        (two columns in a wide, short dock), up to KEY_BESIDE_SHARE of the width; usual:
        for the lines a graph usually brings, not the ones listed now."""
        bar = self.side_scroll.verticalScrollBar().sizeHint().width() + 4
        least = self.side_scroll.minimumWidth()
        most = max(least, int(KEY_BESIDE_SHARE * width))
        key_height = self.legend.usual_height_for_width if usual else self.legend.heightForWidth
        for w in range(least, most + 1, 10):
            if key_height(w - bar) <= height:
                return w
        return most
