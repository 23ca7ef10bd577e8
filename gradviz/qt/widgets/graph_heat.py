"""A gradient norm's place on the graph's heat scale: on a log10 scale (norms span
orders of magnitude), from the graph's smallest non-zero norm (0) to its largest (1).
One scale for the boxes' colour, the edges' thickness (graph_canvas) and the legend."""
from __future__ import annotations

import math


def heat_range(graph) -> tuple[float, float] | None:
    """log10 of the smallest and largest non-zero gradient norm in graph."""
    norms = [n.grad_norm for n in graph.nodes if n.grad_norm]
    if not norms:
        return None
    lo, hi = math.log10(min(norms)), math.log10(max(norms))
    return (lo, hi if hi > lo else lo + 1.0)


def heat_fraction(value: float | None, rng: tuple[float, float] | None) -> float | None:
    if value is None or rng is None:
        return None
    if value <= 0:
        return 0.0
    lo, hi = rng
    return (math.log10(value) - lo) / (hi - lo)
