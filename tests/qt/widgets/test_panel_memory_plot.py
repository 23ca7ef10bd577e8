"""MemoryPlot: saved-tensor bytes (held and peak) in a readable unit, and graph nodes."""
import numpy as np
from panel_data import make_history, make_records

from gradviz.core.history import History
from gradviz.core.records import StepRecord
from gradviz.qt.widgets.memory_plot import HELD, NODES, PEAK, MemoryPlot


def test_bytes_in_kib_and_nodes_on_their_own_plot(show):
    records = make_records(steps=50, sample_every=5)  # peaks 50,000-90,000 bytes
    panel = show(MemoryPlot)
    assert panel.objectName() == "memoryPlot"
    panel.update_from(make_history(records))
    sampled = [r for r in records if r.saved_bytes is not None]
    steps = [r.step for r in sampled]
    assert panel.unit() == ("KiB", 1024)
    assert "KiB" in panel.plot.getAxis("left").labelText
    data = panel.data()
    np.testing.assert_allclose(data[HELD][0], steps)
    np.testing.assert_allclose(data[HELD][1], [r.saved_bytes / 1024 for r in sampled])
    np.testing.assert_allclose(data[PEAK][1], [r.saved_bytes_peak / 1024 for r in sampled])
    np.testing.assert_allclose(data[NODES][1], [r.graph_nodes for r in sampled])
    panel.grab()
    np.testing.assert_allclose(panel.nodes_curve.getData()[1], [r.graph_nodes for r in sampled])
    assert panel.nodes_plot.getAxis("left").labelText == "graph nodes"


def leak(steps: int, per_step: int, base: int = 30_000) -> History:
    h = History(["head0"], [])
    for t in range(steps):
        h.append(StepRecord(step=t, losses={"head0": 1.0}, total=1.0,
                            saved_bytes=t * per_step, saved_bytes_peak=t * per_step + base,
                            graph_nodes=40 * t))
    return h


def test_unit_follows_the_data(show):
    panel = show(MemoryPlot, heads=1)
    panel.update_from(leak(100, 100 * 1024))  # up to ~10 MiB
    assert panel.unit() == ("MiB", 2 ** 20)
    assert panel.plot.getAxis("left").labelText == "saved tensors (MiB)"
    np.testing.assert_allclose(panel.data()[HELD][1][-1], 99 * 100 / 1024)
    panel.set_model(["head0"], [])
    panel.update_from(leak(10, 10, base=100))  # at most 190 bytes
    assert panel.unit() == ("B", 1)
    assert panel.plot.getAxis("left").labelText == "saved tensors (B)"


def test_nothing_measured_draws_nothing(show):
    panel = show(MemoryPlot, heads=1)
    records = make_records(heads=1, steps=5, sample_every=100)[1:]  # none sampled
    panel.update_from(make_history(records))
    assert all(len(x) == 0 for x, _ in panel.data().values())
    panel.grab()


def test_fifty_thousand_steps(show):
    panel = show(MemoryPlot, heads=1)
    history = leak(50_000, 64)
    panel.update_from(history)
    panel.grab()
    assert len(panel.data()[HELD][0]) == 50_000
    assert np.isfinite(panel.data()[NODES][1]).all()
