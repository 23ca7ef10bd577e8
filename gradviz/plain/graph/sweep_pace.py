"""How slowly a backward call's sweep over the graph is drawn: each box's turn (a
slide's own sweep pace, or the phase pace's share), and how long the engine holds a
played backward phase so that its sweep is seen whole before the next graph comes."""
from __future__ import annotations

from .graph_data import GraphData
from .module_graph import module_graph

# a slide's sweep pace, in boxes per second: 1 (a second a box, to follow one call's
# walk box by box) up to 25 (the fastest turn the window draws)
LEAST_SWEEP_PACE, MOST_SWEEP_PACE = 1, 25
# one box's turn where no sweep pace is set: the pace's share over the boxes, bounded
LEAST_TICK_MS, MOST_TICK_MS = 40, 400
HOLD_MS = 500         # the last box stays ringed this long before the graph is restored
# the backward phase's graph is laid out and delivered before its sweep starts: the
# engine waits this much more, so the next phase's graph does not cut the sweep short
DRAW_MS = 300


def box_ms(sweep_pace: float) -> int:
    """One box's turn at a sweep pace in boxes per second (0: none set)."""
    return round(1000 / sweep_pace) if sweep_pace > 0 else 0


def tick_ms(boxes: int, total_ms: int, box_turn_ms: int = 0) -> int:
    """One box's turn in a sweep of this many boxes: the slide's own turn where it has
    one, never past total_ms for the whole sweep; else total_ms spread over the boxes,
    within LEAST_TICK_MS..MOST_TICK_MS."""
    spread = total_ms // max(1, boxes)
    if box_turn_ms > 0:
        return max(1, min(box_turn_ms, spread))
    return max(LEAST_TICK_MS, min(MOST_TICK_MS, spread))


def swept_boxes(graph: GraphData) -> int:
    """The boxes the last backward call reached, as the module view draws them (every
    run folded): what a slide's sweep pace is counted in."""
    if not graph.sweeps or not graph.sweeps[-1]:
        return 0
    folded = module_graph(graph)
    return len(folded.sweeps[-1]) if folded.sweeps else 0


def paced_sweep_ms(graph: GraphData, box_turn_ms: int) -> int:
    """How long the last backward call's sweep takes at this turn per box (0: no turn
    set, nothing to hold for)."""
    return swept_boxes(graph) * box_turn_ms if box_turn_ms > 0 else 0


def backward_hold_s(graph: GraphData, box_turn_ms: int) -> float:
    """How long the engine holds a played backward phase before the next one: the
    sweep, the last box's ring and the drawing before it (0.0: no sweep pace)."""
    swept = paced_sweep_ms(graph, box_turn_ms)
    return (swept + HOLD_MS + DRAW_MS) / 1000 if swept else 0.0
