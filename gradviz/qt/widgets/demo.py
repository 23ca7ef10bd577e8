"""Made-up training runs so each panel can be opened, screenshotted and tested alone.

The numbers imitate a real 3-head run of gradviz (losses 0.1-1, norms 0.01-1, a
33 KB graph): plausible enough to judge a panel's look, never used as ground truth.
The graph and the error are recorded from a real session (resources/demo, plain JSON),
so that a demo opens without torch, as the window's process does.
"""
from __future__ import annotations

import json
import sys
from importlib import resources

import numpy as np

from gradviz.plain.graph.graph_data import GraphData, GraphEdge, GraphNode, ModuleCall
from gradviz.plain.records.events import Event
from gradviz.plain.records.history import History
from gradviz.plain.records.records import StepRecord

# fields a recording holds as JSON lists that the dataclasses hold as tuples
_TUPLES = ("shape", "heads_reaching", "members", "out_shape")


def _recorded(name: str) -> dict:
    path = resources.files("gradviz.resources") / "demo" / name
    return json.loads(path.read_text(encoding="utf-8"))


def _tupled(fields: dict) -> dict:
    return {k: tuple(v) if k in _TUPLES and v is not None else v for k, v in fields.items()}


def recorded_graph() -> GraphData:
    """One step's graph of a real session (Config(detach=(1,), probes="all"): head 1
    detached, every probe on), as GraphData.to_dict() wrote it."""
    data = _recorded("graph.json")
    nodes = [GraphNode(**_tupled({k: v for k, v in n.items() if k != "freed"}))
             for n in data["nodes"]]
    return GraphData(nodes, [GraphEdge(**e) for e in data["edges"]],
                     [ModuleCall(**_tupled(m)) for m in data["modules"]],
                     [list(sweep) for sweep in data["sweeps"]])


def recorded_event() -> Event:
    """PyTorch's real error for strategy separate with retain graph never, as a real
    session reported it."""
    return Event(**_recorded("event.json"))


def head_names(heads: int) -> list[str]:
    return [f"head{k}" for k in range(heads)]


def param_names(heads: int, depth: int = 2) -> list[str]:
    """The names MultiHeadNet gives its parameters (Linear layers at even indices)."""
    names = [f"trunk.{2 * i}.{p}" for i in range(depth) for p in ("weight", "bias")]
    names += [f"heads.{k}.{i}.{p}" for k in range(heads) for i in (0, 2)
              for p in ("weight", "bias")]
    return names


def demo_records(heads: int = 3, steps: int = 1500, sample_every: int = 5,
                 keep_graphs_from: int | None = 900, seed: int = 0):
    """Yield StepRecords of a plausible run; from `keep_graphs_from` on the graph leaks."""
    rng = np.random.default_rng(seed)
    names, params = head_names(heads), param_names(heads)
    start = rng.uniform(0.6, 1.2, heads)
    floor = rng.uniform(0.05, 0.5, heads)
    pace = rng.uniform(150, 600, heads)
    scale = {p: rng.uniform(0.02, 0.7) for p in params}
    cos = _cosines(heads, rng)
    for t in range(steps):
        noise = rng.lognormal(0.0, 0.15, heads)
        losses = (floor + (start - floor) * np.exp(-t / pace)) * noise
        decay = 0.4 + 0.6 * np.exp(-t / 400)
        norms = {p: s * decay * rng.lognormal(0.0, 0.3) for p, s in scale.items()}
        sampled = t % sample_every == 0
        kept = (t - keep_graphs_from + 1
                if keep_graphs_from is not None and t >= keep_graphs_from else 0)
        leaking = kept > 0
        yield StepRecord(
            step=t, losses=dict(zip(names, losses.tolist())), total=float(losses.sum()),
            grad_norms=norms, global_grad_norm=float(np.sqrt(sum(v * v for v in norms.values()))),
            junction_grad_norms=(dict(zip(names, (0.07 * decay * noise).tolist()))
                                 if sampled else None),
            cosine=_jitter(cos, rng).tolist() if sampled else None,
            # a retained, kept graph holds every step's saved tensors
            saved_bytes=(kept * 9_000 if leaking else 0) if sampled or leaking else None,
            saved_bytes_peak=(33_028 + kept * 9_000) if sampled or leaking else None,
            graph_nodes=(42 + 45 * kept) if sampled or leaking else None)


def _cosines(heads: int, rng) -> np.ndarray:
    """Symmetric, 1 on the diagonal, and heads 0 and 1 in clear conflict (the lesson)."""
    c = rng.uniform(-0.3, 0.7, (heads, heads))
    c = (c + c.T) / 2
    if heads > 1:
        c[0, 1] = c[1, 0] = -0.45
    np.fill_diagonal(c, 1.0)
    return c


def _jitter(c: np.ndarray, rng) -> np.ndarray:
    noise = rng.normal(0, 0.03, c.shape)
    noise = (noise + noise.T) / 2
    np.fill_diagonal(noise, 0.0)
    return (c + noise).clip(-1, 1)


def demo_history(heads: int = 3, steps: int = 1500, **kw) -> History:
    h = History(head_names(heads), param_names(heads))
    h.extend(demo_records(heads, steps, **kw))
    return h


def show_alone(*panel_types, heads: int = 3, steps: int = 3000) -> int:
    """Open panels (side by side) on a run that grows live, as in the app: records are
    appended as they come, a 25 Hz timer repaints. `--dark` for the dark theme."""
    from PySide6 import QtCore, QtWidgets

    from gradviz.qt.theme import DARK, LIGHT

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv)
    window = QtWidgets.QWidget()
    grid = QtWidgets.QGridLayout(window)
    history = History(head_names(heads), param_names(heads))
    panels = [t() for t in panel_types]
    for i, panel in enumerate(panels):
        panel.apply_theme(DARK if "--dark" in sys.argv else LIGHT)
        panel.set_model(history.head_names, history.param_names)
        grid.addWidget(panel, i // 2, i % 2)
    records = demo_records(heads, steps)

    def tick() -> None:
        for r in records:
            history.append(r)
            if r.step % 10 == 9:  # 250 steps/s: faster than the repaint, as in the app
                break
        for panel in panels:
            panel.update_from(history)

    timer = QtCore.QTimer(window, interval=40)
    timer.timeout.connect(tick)
    timer.start()
    window.resize(900 if len(panels) == 1 else 1500, 560 if len(panels) < 3 else 950)
    window.show()
    return app.exec()
