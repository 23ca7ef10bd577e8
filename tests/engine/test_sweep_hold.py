"""Played phase by phase with a slide's sweep pace, `separate`'s three backward calls are
swept one after another, each its own pass down the shared trunk, and the engine holds
each backward phase until its sweep has been drawn."""
import time

from gradviz.engine import protocol as p
from gradviz.engine.loop import EngineLoop
from gradviz.plain.config.config import Config
from gradviz.plain.graph.module_graph import module_graph
from gradviz.plain.graph.sweep_pace import DRAW_MS, HOLD_MS

TURN_MS = 20   # a fast turn per box: the rule is the same at 500 ms
# autograd's order for head k's loss on the built-in model (3 trunk layers, 3-layer
# heads): the loss (its box is named for its head), the head from its last layer down,
# the junction z, the trunk from its last layer down
TRUNK = ["z", "trunk.2", "trunk.1", "trunk.0"]


def _head(k):
    return [f"head{k}", f"heads.{k}.2", f"heads.{k}.1", f"heads.{k}.0"]


def _label(node):
    return "z" if node.kind == "junction" else node.label.split(" ")[0]


def test_separates_calls_are_three_sweeps_each_held_for_its_boxes():
    loop = EngineLoop(Config(device="cpu", heads=3, strategy="separate"))
    loop.handle(p.Settings(p.EngineSettings(delay_ms=0, animate_phases=True,
                                            sweep_box_ms=TURN_MS)))
    loop.handle(p.Play())
    sweeps, holds = [], []
    while len(sweeps) < 3:
        loop.train_batch(lambda: False)
        wait = loop.player.next_due - time.monotonic()
        out = loop.take_outbox()
        done = [m.phase for m in out if isinstance(m, p.PhaseDone)]
        if done and done[-1].name == "backward":
            graph, = [m.graph for m in out if isinstance(m, p.Graph)]
            boxes = module_graph(graph)
            by_id = {n.id: n for n in boxes.nodes}
            sweeps.append([_label(by_id[b]) for b in boxes.sweeps[-1]])
            holds.append(wait)
    assert sweeps == [_head(k) + TRUNK for k in range(3)]
    for sweep, wait in zip(sweeps, holds):   # without a sweep pace: MIN_PHASE_MS, 0.05 s
        assert wait >= (len(sweep) * TURN_MS + HOLD_MS + DRAW_MS) / 1000 - 0.05
