"""The items of the native graph view: one per node and per edge, laid out by Graphviz
(render.layout) and styled from the step's GraphData, so each can be restyled in place
between steps and inspected (tooltips, hover highlight, clicks)."""
from __future__ import annotations

import html
import math
from collections.abc import Callable

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import (
    QGraphicsPathItem,
    QGraphicsPolygonItem,
    QGraphicsSceneHoverEvent,
    QGraphicsSceneMouseEvent,
    QGraphicsSimpleTextItem,
)

from ...plain.graph.graph_data import CUT, GRAD, INPUT, LOSS, OP, SAVED, TOTAL
from ...plain.graph.graph_room import Rect, label_spot, segment_hits
from ...render import style
from ...render.dot import box_badge, node_label, tensor_text
from ...render.layout import EdgePath, NodeBox

FONT_PT = 13.0
HEAT = pg.colormap.get("inferno")       # gradient magnitude: dark (small) to bright (large)
HEAT_RANGE = (0.15, 0.9)                 # the part of the map that reads on white and grey
STRIP_GAP = 6.0      # scene px more between a module box's heat strip and its name
BADGE_PAD_X, BADGE_PAD_Y = 9.0, 3.0      # scene px around a state badge's letters
BADGE_DARKER = 125   # a badge's fill, of its state's colour (QColor.darker's percent)


# the colour map looked up once: mapping a value through pyqtgraph each time cost most of
# a live graph's restyle (every node, every 1.5 s while training)
_HEAT_LEVELS = 256
_HEAT_TABLE = [HEAT.map(HEAT_RANGE[0] + (HEAT_RANGE[1] - HEAT_RANGE[0]) * i / (_HEAT_LEVELS - 1),
                        mode="qcolor") for i in range(_HEAT_LEVELS)]


def heat_colour(fraction: float | None) -> QColor:
    """Colour of a gradient magnitude already scaled to 0..1 (None: not measured)."""
    if fraction is None:
        return QColor("#BDBDBD")
    level = round(min(1.0, max(0.0, fraction)) * (_HEAT_LEVELS - 1))
    return QColor(_HEAT_TABLE[level])


# how render.style's dash kinds are drawn
DASHES = {style.SOLID: Qt.PenStyle.SolidLine, style.DASHED: Qt.PenStyle.DashLine,
          style.DOTTED: Qt.PenStyle.DotLine}


def stroke_pen(stroke: style.Stroke, width: float | None = None) -> QPen:
    """A QPen for a style.Stroke (width: instead of the stroke's own, e.g. the heat's)."""
    return QPen(QColor(stroke.colour), stroke.width if width is None else width,
                DASHES[stroke.dash])


def e(value) -> str:
    """Any value as text that rich text shows literally."""
    return html.escape(str(value))


def tooltip(node, head_names: dict[int, str]) -> str:
    """The node's facts as rich text (a tooltip renders anything that looks like HTML);
    every name PyTorch or the model gave is escaped."""
    size = style.format_bytes(node.saved_bytes)
    reached = (", ".join(head_names.get(k, f"head{k}") for k in node.heads_reaching)
               or "no loss (dead)")
    rows = [f"<b>{e(node.label)}</b> — {e(style.KIND_NAMES.get(node.kind, node.kind))}",
            f"shape: {tuple(node.shape) if node.shape is not None else 'unknown (freed)'}",
            f"dtype: {e(node.dtype or '—')} · device: {e(node.device or '—')}",
            "gradient norm (last backward): "
            + ("not measured" if node.grad_norm is None else f"{node.grad_norm:.4g}"),
            # storages: a saved slice keeps the whole tensor it was cut from alive
            (f"holds {size}: the storages its saved tensors keep alive (each counted "
             "once, at the first op that saved it; parameters not counted)" if node.kind == OP
             else f"storage kept alive: {size}" if node.kind in (SAVED, INPUT) else ""),
            f"state: {e(node.state)}" if node.kind in (OP, SAVED, INPUT) else "",
            f"gradient from: {e(reached)}",
            (f"{e(node.tensor or 'its output')}: " if node.kind == OP else "")
            + e(tensor_text(node)) if tensor_text(node) else "",
            f"<i>PyTorch: {e(node.grad_note)}</i>" if node.grad_note else ""]
    return "<br>".join(r for r in rows if r)


class NodeItem(QGraphicsPathItem):
    """A node's box: shape by kind, border by which losses reach it, a heat strip for
    the gradient that flowed through it."""

    def __init__(self, node_id: str, box: NodeBox):
        super().__init__()
        self.node_id = node_id
        self.node = None
        self.box = box
        self.setAcceptHoverEvents(True)
        self.setZValue(2)
        self.text = QGraphicsSimpleTextItem(self)
        self.heat = QGraphicsPathItem(self)
        self.badge = QGraphicsPathItem(self)          # "z.grad kept" on the junction
        self.badge_text = QGraphicsSimpleTextItem(self.badge)
        self.badge.setVisible(False)
        # set by the canvas: hover(node_id, entering), click(node_id), double click(node_id)
        self.on_hover: Callable[[str, bool], None] | None = None
        self.on_click: Callable[[str], None] | None = None
        self.on_double_click: Callable[[str], None] | None = None

    def rect(self) -> QRectF:
        b = self.box
        return QRectF(b.x - b.width / 2, b.y - b.height / 2, b.width, b.height)

    def restyle(self, node, heat: float | None, head_names: dict[int, str],
                boxes: bool = False) -> None:
        """boxes: node is one of a module view's (losses and inputs there too): its text
        as large as its box allows, its state a badge."""
        self.node = node
        r = self.rect()
        path = QPainterPath()
        if node.kind == SAVED:
            path.addEllipse(r)
        elif node.kind in (OP, LOSS, TOTAL) + style.BOX_KINDS:
            path.addRoundedRect(r, 10, 10)
        else:
            path.addRect(r)
        self.setPath(path)
        self.setBrush(QBrush(QColor(style.node_fill(node.kind, node.freed))))
        border = style.state_border(node.state) if node.kind in style.BOX_KINDS else None
        self.setPen(stroke_pen(border or style.node_border(node.kind, node.heads_reaching)))
        if boxes:
            self._style_box_text(node, r)
        else:
            self._style_text(node, r)
            self.badge.setVisible(False)
        self._style_heat(node, r, heat)
        self.setToolTip(box_tooltip(node, head_names) if node.kind in style.BOX_KINDS
                        else tooltip(node, head_names))

    def _style_text(self, node, r: QRectF) -> None:
        font = QFont()
        font.setPointSizeF(FONT_PT * (0.85 if node.kind == SAVED else 1.0))
        font.setBold(node.kind in (LOSS, TOTAL))
        self.text.setFont(font)
        self.text.setText(node_label(node))  # the text Graphviz sized the box for
        colour = style.FREED_TEXT if node.freed else "#111111"
        if node.freed and node.state != "freed":
            colour = style.CUT_COLOUR
        if not node.heads_reaching and not node.freed:
            colour = style.DEAD_COLOUR
        self.text.setBrush(QBrush(QColor(colour)))
        t = self.text.boundingRect()
        # as large as the box Graphviz sized allows (it measured a bigger font), never
        # spilling out of it when a state line such as "(freed)" is added later
        scale = min(1.7, (r.width() - 18) / max(t.width(), 1),
                    (r.height() - 6) / max(t.height(), 1))
        self.text.setScale(scale)
        self.text.setPos(r.center().x() - t.width() * scale / 2 + 4,
                         r.center().y() - t.height() * scale / 2)

    def _style_box_text(self, node, r: QRectF) -> None:
        """A module box's name and kind, as large as the box allows; its state a badge."""
        font = QFont()
        font.setPointSizeF(FONT_PT)
        font.setBold(True)
        self.text.setFont(font)
        self.text.setText(node_label(node))
        t = self.text.boundingRect()
        # clear of the heat strip on the left by half a letter's width more than a stem:
        # a stem apart, a reader (tesseract too) still took the dark strip for a letter
        # of a bold "heads.0.0" ("(neads.1.2"), and read about a third of the names
        scale = min(2.2, (r.width() - 30 - STRIP_GAP) / max(t.width(), 1),
                    (r.height() - 6) / max(t.height(), 1))
        self.text.setScale(scale)
        # dark whatever the state: the fill and the badge say "freed", the name must
        # still read from the back row
        self.text.setBrush(QBrush(QColor("#111111")))
        self.text.setPos(r.center().x() - t.width() * scale / 2 + 8 + STRIP_GAP / 2,
                         r.center().y() - t.height() * scale / 2)
        self._style_badge(r, scale, box_badge(node) if node.kind in style.BOX_KINDS else None)

    def _style_badge(self, r: QRectF, scale: float, badge: tuple[str, str] | None) -> None:
        """The state on the box's lower border, white on its colour, as large as the box's
        own text: "freed", "changed in place", the junction's "z.grad kept"."""
        self.badge.setVisible(badge is not None)
        if badge is None:
            return
        text, colour = badge
        self.badge_text.setFont(self.text.font())
        self.badge_text.setText(text)
        self.badge_text.setBrush(QBrush(QColor("#FFFFFF")))
        self.badge_text.setScale(scale)
        t = self.badge_text.boundingRect()
        # room around the letters: a pill as tight as the text's box let a reader run
        # the white letters into the page around it ("changed in place" went unread)
        w, h = t.width() * scale + 2 * BADGE_PAD_X, t.height() * scale + 2 * BADGE_PAD_Y
        # hung below the box, over the edge leaving it: the box's own lines stay clear
        pill = QRectF(r.center().x() - w / 2, r.bottom() - 3, w, h)
        path = QPainterPath()
        path.addRoundedRect(pill, h / 2, h / 2)
        self.badge.setPath(path)
        # darker than the state's own colour: white on the border's red is 5.9:1, on
        # this 8:1 and more, which a washed-out projector (and OCR) still reads
        self.badge.setBrush(QBrush(QColor(colour).darker(BADGE_DARKER)))
        self.badge.setPen(QPen(Qt.PenStyle.NoPen))
        self.badge_text.setPos(pill.left() + BADGE_PAD_X, pill.top() + BADGE_PAD_Y)

    def _style_heat(self, node, r: QRectF, heat: float | None) -> None:
        """A strip on the left edge: the gradient magnitude, on the colour bar's scale."""
        if node.kind == SAVED or (heat is None and node.grad_norm is None):
            self.heat.setVisible(False)
            return
        strip = QPainterPath()
        strip.addRoundedRect(QRectF(r.left() + 3, r.top() + 4, 8, r.height() - 8), 3, 3)
        self.heat.setPath(strip)
        self.heat.setPen(QPen(Qt.PenStyle.NoPen))
        dead = node.grad_norm == 0.0
        brush = Qt.BrushStyle
        self.heat.setBrush(QBrush(QColor("#FFFFFF") if dead else heat_colour(heat),
                                  brush.Dense4Pattern if dead else brush.SolidPattern))
        self.heat.setVisible(True)

    def hoverEnterEvent(self, event: QGraphicsSceneHoverEvent) -> None:
        if self.on_hover:
            self.on_hover(self.node_id, True)
        super().hoverEnterEvent(event)

    def hoverLeaveEvent(self, event: QGraphicsSceneHoverEvent) -> None:
        if self.on_hover:
            self.on_hover(self.node_id, False)
        super().hoverLeaveEvent(event)

    def mouseDoubleClickEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        if self.on_double_click and event.button() == Qt.MouseButton.LeftButton:
            self.on_double_click(self.node_id)
            event.accept()
            return
        super().mouseDoubleClickEvent(event)

    def mousePressEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        if self.on_click and event.button() == Qt.MouseButton.LeftButton:
            self.on_click(self.node_id)
            event.accept()
            return
        super().mousePressEvent(event)


class EdgeItem(QGraphicsPathItem):
    """An edge's spline with its arrow head; a detach cut is dashed red and labelled."""

    def __init__(self, path: EdgePath):
        super().__init__()
        self.edge_path = path
        self.edge = None
        p = QPainterPath(QPointF(*path.points[0]))
        pts = path.points[1:]
        for i in range(0, len(pts) - 2, 3):
            p.cubicTo(QPointF(*pts[i]), QPointF(*pts[i + 1]), QPointF(*pts[i + 2]))
        self.setPath(p)
        self.setZValue(1)
        self.arrow = QGraphicsPolygonItem(self)
        self.bar = QGraphicsPathItem(self)            # a cut: a thick bar across the edge
        self.bar.setVisible(False)
        self.label = QGraphicsSimpleTextItem(self)
        self.label_scale = 1.0     # larger in the module view, as its box text is
        # scene rectangles a cut's bar must stay clear of: the state badges hung below the
        # boxes (a short edge's middle lay under the step before's "freed")
        self.clear_of: list[QRectF] = []
        # ... and the boxes (a bar over z hid its border), which its label must not hide
        # under, within the drawing (bounds) that a framed view can show
        self.boxes: list[QRectF] = []
        self.bounds = QRectF()

    def restyle(self, edge, heads_along: tuple[int, ...],
                heat_width: float | None = None) -> None:
        """heads_along: whose gradient runs along edge; heat_width: the line's width by the
        gradient measured along it (None: not measured), for grad edges some loss reaches."""
        self.edge = edge
        # a cut above the boxes: where no spot beside its bar is clear, its label is read
        # over a box, never hidden under one
        self.setZValue(3 if edge.kind == CUT else 1)
        stroke = style.edge_stroke(edge.kind, heads_along)
        live = edge.kind == GRAD and bool(heads_along)
        pen = stroke_pen(stroke, heat_width if live else None)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        self.setPen(pen)
        colour, width = pen.color(), pen.widthF()
        self._arrow(colour, width, style.has_arrow(edge.kind))
        self.label.setVisible(bool(edge.label))
        if edge.label:
            font = QFont()
            font.setPointSizeF(FONT_PT)
            font.setBold(True)
            self.label.setFont(font)
            self.label.setText(edge.label)
            self.label.setBrush(QBrush(colour))
            self.label.setScale(self.label_scale)
            at = self.edge_path.label_pos or self.path().pointAtPercent(0.5).toTuple()
            t = self.label.boundingRect()
            k = self.label_scale
            self.label.setPos(at[0] - t.width() * k / 2, at[1] - t.height() * k / 2)
        self._bar(colour, edge.kind == CUT)
        if edge.kind == CUT and edge.label:
            self._place_cut_label()

    def _place_cut_label(self) -> None:
        """The label beside the bar, clear of every box and of the bar, inside the
        drawing (plain.graph.graph_room.label_spot): on a diagonal edge the label put right of
        the bar lay under the next box ("ach()"), or was hidden with the bar over z."""
        bar = self.bar.path()
        ends = [bar.pointAtPercent(t).toTuple() for t in (0.0, 1.0, 0.5)]
        along = [self.path().pointAtPercent(t).toTuple() for t in (0.3, 0.7, 0.15, 0.85)]
        k = self.label_scale
        size = (self.label.boundingRect().width() * k, self.label.boundingRect().height() * k)
        width = self.bar.pen().widthF()
        drawn = bar.boundingRect().adjusted(-width / 2, -width / 2, width / 2, width / 2)
        x, y = label_spot(size, ends + along, [_rect(r) for r in self.boxes + self.clear_of],
                          _rect(self.bounds), [_rect(drawn)])
        self.label.setPos(x, y)

    def _bar(self, colour: QColor, show: bool) -> None:
        """Across the middle of a cut, a bar as wide as a box's text is tall."""
        self.bar.setVisible(show)
        if not show:
            return
        width = style.CUT_BAR_WIDTH * self.label_scale
        # the middle, else the point nearest it whose bar is clear of every badge
        for at in (0.5, 0.6, 0.4, 0.7, 0.3, 0.8, 0.2, 0.9, 0.5):
            bar = self._bar_path(at)
            ends = (bar.pointAtPercent(0.0).toTuple(), bar.pointAtPercent(1.0).toTuple())
            if not any(segment_hits(*ends, _rect(r), width / 2)
                       for r in self.clear_of + self.boxes):
                break
        self.bar.setPath(bar)
        pen = QPen(colour, width)
        pen.setCapStyle(Qt.PenCapStyle.FlatCap)
        self.bar.setPen(pen)

    def _bar_path(self, at: float) -> QPainterPath:
        """A bar across the edge at percent at of its length, normal to it there."""
        path = self.path()
        mid, angle = path.pointAtPercent(at), path.angleAtPercent(at)
        half = 28.0 * self.label_scale
        rad = math.radians(angle)
        # normal to the curve there (Qt's angles run counter-clockwise, y down)
        nx, ny = math.sin(rad), math.cos(rad)
        bar = QPainterPath(QPointF(mid.x() - nx * half, mid.y() - ny * half))
        bar.lineTo(QPointF(mid.x() + nx * half, mid.y() + ny * half))
        return bar

    def _arrow(self, colour: QColor, width: float, show: bool) -> None:
        tip = self.edge_path.arrow_end
        if not show or tip is None:
            self.arrow.setVisible(False)
            return
        end = QPointF(*self.edge_path.points[-1])
        dx, dy = tip[0] - end.x(), tip[1] - end.y()
        length = math.hypot(dx, dy) or 1.0
        ux, uy = dx / length, dy / length
        size = max(9.0, 3 * width)
        base = QPointF(tip[0] - ux * size, tip[1] - uy * size)
        side = QPointF(-uy * size * 0.5, ux * size * 0.5)
        self.arrow.setPolygon(QPolygonF([QPointF(*tip), base + side, base - side]))
        self.arrow.setBrush(QBrush(colour))
        self.arrow.setPen(QPen(Qt.PenStyle.NoPen))
        self.arrow.setVisible(True)


def _rect(r: QRectF) -> Rect:
    return (r.left(), r.top(), r.right(), r.bottom())


def box_tooltip(node, head_names: dict[int, str]) -> str:
    """A module-view box's tooltip: a node's, with its kind, what folded into it and its
    state after the first line."""
    extra = [html.escape(node.detail),
             f"{len(node.members)} autograd nodes folded in (double-click: open in place)"
             if node.members else "",
             f"state: {html.escape(node.state)}"]
    first, _, rest = tooltip(node, head_names).partition("<br>")
    return "<br>".join([first, *(r for r in extra if r), rest])
