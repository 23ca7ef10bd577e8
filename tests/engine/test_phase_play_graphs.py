"""Played phase by phase, zero_grad draws nothing (the step's forward has not run): it is
played at once with the forward pass after it, so the graph sent is the forward's, never
an empty one between two steps; every phase is still reported, in order."""
from gradviz.engine import protocol as p
from gradviz.engine.loop import EngineLoop
from gradviz.plain.config.config import Config


def test_zero_grad_goes_with_the_forward_pass_and_no_empty_graph_is_sent():
    loop = EngineLoop(Config(device="cpu", heads=2))
    loop.handle(p.Settings(p.EngineSettings(animate_phases=True, stop_at=2)))
    loop.handle(p.Play())
    loop.take_outbox()
    batches = []
    while loop.player.running:
        loop.train_batch(lambda: False)
        batches.append(loop.take_outbox())
    names = [[m.phase.name for m in batch if isinstance(m, p.PhaseDone)]
             for batch in batches]
    one_step = [["zero_grad", "forward"], ["backward"], ["optimizer step"]]
    assert names == one_step + one_step
    graphs = [m.graph for batch in batches for m in batch if isinstance(m, p.Graph)]
    assert len(graphs) == 6 and all(graph.nodes for graph in graphs)
