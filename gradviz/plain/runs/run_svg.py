"""Line charts and bars as inline SVG text, for a run shown as HTML (a notebook's cell):
no plotting library, no script, no file beside it, so the output is the same whether
the notebook's server is this machine or another one.

Every name drawn comes from a run folder, anyone's: each goes through html.escape, so
a loss named "<b>" is shown as those three characters, never as markup.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

WIDTH, HEIGHT = 360, 170            # one chart, in CSS pixels
LEFT, RIGHT, TOP, BOTTOM = 52, 8, 22, 22   # the plot's margins (axis numbers, title)
# a colour per curve, in order (distinct in print and for the common colour blindness)
COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf")


@dataclass
class Curve:
    """One line: its label and (x, y) points; y None or not finite is a gap."""
    label: str
    xs: Sequence[float]
    ys: Sequence[float | None]
    dashed: bool = False


def number(value: float | None) -> str:
    """A number as the report writes it: 4 significant digits ("none" for none)."""
    if value is None or not math.isfinite(value):
        return "none" if value is None else str(value)
    return f"{value:.4g}"


def _finite(ys: Sequence[float | None]) -> list[float]:
    return [y for y in ys if y is not None and math.isfinite(y)]


def _span(lo: float, hi: float) -> tuple[float, float]:
    if lo == hi:   # a flat line: a band around it, so it is drawn mid-height
        pad = abs(lo) * 0.05 or 1.0
        return lo - pad, hi + pad
    pad = (hi - lo) * 0.05
    return lo - pad, hi + pad


def line_chart(title: str, curves: Sequence[Curve], y_range: tuple[float, float] | None = None,
               zero_line: bool = False) -> str:
    """An SVG chart of the curves over the steps (x), with the title, the x and y extent
    written at the axes, and a legend of each curve's label and last value."""
    xs = [x for c in curves for x in c.xs]
    ys = [y for c in curves for y in _finite(c.ys)]
    w, h = WIDTH, HEIGHT + 8 + 16 * len(curves)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
             f'viewBox="0 0 {w} {h}" style="background:#fff;font:11px sans-serif">',
             f'<text x="{LEFT}" y="14" font-weight="bold" fill="#222">{escape(title)}</text>']
    x0, x1, y0, y1 = LEFT, WIDTH - RIGHT, HEIGHT - BOTTOM, TOP
    parts.append(f'<rect x="{x0}" y="{y1}" width="{x1 - x0}" height="{y0 - y1}" '
                 'fill="none" stroke="#bbb"/>')
    if not xs or not ys:
        parts.append(f'<text x="{(x0 + x1) // 2}" y="{(y0 + y1) // 2}" text-anchor="middle" '
                     'fill="#777">not measured yet</text>')
    else:
        lo_x, hi_x = min(xs), max(xs)
        lo_y, hi_y = y_range if y_range is not None else _span(min(ys), max(ys))

        def px(x: float) -> float:
            return x0 + (x - lo_x) / (hi_x - lo_x) * (x1 - x0) if hi_x > lo_x \
                else (x0 + x1) / 2

        def py(y: float) -> float:
            return y0 - (min(max(y, lo_y), hi_y) - lo_y) / (hi_y - lo_y) * (y0 - y1)

        for value, at in ((hi_y, y1 + 4), (lo_y, y0)):
            parts.append(f'<text x="{x0 - 4}" y="{at}" text-anchor="end" '
                         f'fill="#555">{escape(number(value))}</text>')
        parts.append(f'<text x="{x0}" y="{y0 + 14}" fill="#555">step {lo_x:g}</text>')
        parts.append(f'<text x="{x1}" y="{y0 + 14}" text-anchor="end" '
                     f'fill="#555">{hi_x:g}</text>')
        if zero_line and lo_y < 0 < hi_y:
            parts.append(f'<line x1="{x0}" x2="{x1}" y1="{py(0.0):.1f}" y2="{py(0.0):.1f}" '
                         'stroke="#ccc" stroke-dasharray="2 2"/>')
        for i, curve in enumerate(curves):
            parts += _polylines(curve, COLOURS[i % len(COLOURS)], px, py)
    for i, curve in enumerate(curves):
        last = next((y for y in reversed(curve.ys) if y is not None), None)
        at = HEIGHT + 16 * i + 12   # under the axis's step numbers
        parts.append(f'<rect x="{LEFT}" y="{at - 8}" width="14" height="3" '
                     f'fill="{COLOURS[i % len(COLOURS)]}"/>')
        parts.append(f'<text x="{LEFT + 20}" y="{at - 3}" fill="#222">'
                     f'{escape(curve.label)} {escape(number(last))}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _polylines(curve: Curve, colour: str, px, py) -> list[str]:
    """The curve's runs of finite points, one polyline each (a single point a dot)."""
    runs: list[list[tuple[float, float]]] = [[]]
    for x, y in zip(curve.xs, curve.ys):
        if y is None or not math.isfinite(y):
            if runs[-1]:
                runs.append([])
            continue
        runs[-1].append((px(x), py(y)))
    dash = ' stroke-dasharray="5 3"' if curve.dashed else ""
    out = []
    for run in runs:
        if len(run) == 1:
            out.append(f'<circle cx="{run[0][0]:.1f}" cy="{run[0][1]:.1f}" r="2" '
                       f'fill="{colour}"/>')
        elif run:
            points = " ".join(f"{x:.1f},{y:.1f}" for x, y in run)
            out.append(f'<polyline points="{points}" fill="none" stroke="{colour}" '
                       f'stroke-width="1.5"{dash}/>')
    return out


def bars(title: str, values: Sequence[tuple[str, float | None]]) -> str:
    """Horizontal bars, one per (label, value), longest first as given; a None value
    (no gradient) is written "none" with no bar, never drawn as a zero."""
    row = 16
    w, h = WIDTH, TOP + row * max(len(values), 1) + 6
    top = max((v for _, v in values if v is not None and math.isfinite(v)), default=0.0)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
             f'viewBox="0 0 {w} {h}" style="background:#fff;font:11px sans-serif">',
             f'<text x="8" y="14" font-weight="bold" fill="#222">{escape(title)}</text>']
    label_w, bar_x = 150, 156
    for i, (label, value) in enumerate(values):
        y = TOP + row * i
        shown = label if len(label) <= 24 else "…" + label[-23:]
        parts.append(f'<text x="{label_w}" y="{y + 11}" text-anchor="end" fill="#222">'
                     f'{escape(shown)}</text>')
        length = 0.0
        if value is not None and math.isfinite(value) and top > 0:
            length = value / top * (WIDTH - bar_x - 60)
            parts.append(f'<rect x="{bar_x}" y="{y + 3}" width="{length:.1f}" height="10" '
                         f'fill="{COLOURS[0]}"/>')
        parts.append(f'<text x="{bar_x + length + 4:.1f}" y="{y + 11}" fill="#555">'
                     f'{escape(number(value))}</text>')
    parts.append("</svg>")
    return "".join(parts)
