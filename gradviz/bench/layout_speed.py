"""How long the graph's layout takes (DOT, Graphviz, parsing its answer) on real
sessions' graphs: the lecture's, a ~1,000-node trunk, and model files' module and op
views up to a ResNet-18. `python -m gradviz.bench.layout_speed [--only TEXT]`.

It lives with the benchmarks, not beside the layout in gradviz.render, because it trains
a step to get each graph, and the renderer (which the window's process imports) never
imports torch."""
from __future__ import annotations

import statistics
import time
from importlib import resources

from ..core.model_file import ModelFile
from ..core.session import Session
from ..plain.config.config import Config
from ..plain.graph.graph_data import GraphData
from ..plain.graph.module_graph import module_graph
from ..plain.graph.module_runs import run_key
from ..render.graphviz_program import find_graphviz
from ..render.layout import layout_graph


def bench_layout(repeats: int = 5, only: str = "") -> list[tuple[str, int, int, float]]:
    """Time layout_graph (DOT, Graphviz, parse) on lecture-size and ~1,000-node graphs,
    and on model files' module views up to a ResNet-18 (only: the cases whose name has
    that text); print and return (case, nodes, edges, median seconds)."""
    # (case, a Config or a model file's path, the view or None for every op, saved shown)
    cases: list[tuple[str, Config | str, str | None, bool]] = [
             ("lecture (default config)", Config(), None, False),
             ("lecture, saved tensors shown", Config(), None, True),
             ("~150 nodes (trunk_depth=22)", Config(trunk_depth=22), None, False),
             ("deep trunk (trunk_depth=193)", Config(trunk_depth=193), None, False),
             ("deep trunk, saved tensors shown", Config(trunk_depth=193), None, True)]
    files = [("cnn_two_heads", _bundled("models", "cnn_two_heads.py")),
             ("tiny_transformer", _bundled("models", "tiny_transformer.py")),
             ("ResNet-18", _bundled("bench", "resnet18.py"))]
    for name, path in files:
        cases += [(f"{name}, module view", path, "modules", False),
                  (f"{name}, op view", path, None, False)]
    cases.append(("ResNet-18, every box opened", files[-1][1], "open", False))
    print(f"layout program: {find_graphviz().name} ({find_graphviz().path}); "
          f"{repeats} runs each")
    results = []
    for name, config, view, saved in cases:
        if only.lower() not in name.lower():
            continue
        graph = _bench_graph(config, saved)
        if view == "open":   # every box and run opened in place: the op view, grouped
            graph = module_graph(graph, {key for c in graph.modules
                                         for key in (c.id, run_key([c]))})
        elif view is not None:   # as the window draws it
            graph = module_graph(graph)
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            layout_graph(graph)
            times.append(time.perf_counter() - start)
        median = statistics.median(times)
        results.append((name, len(graph.nodes), len(graph.edges), median))
        print(f"{name:34} {len(graph.nodes):5} nodes {len(graph.edges):5} edges  "
              f"median {median * 1000:7.1f} ms  worst {max(times) * 1000:7.1f} ms",
              flush=True)
    return results


def _bundled(folder: str, name: str) -> str:
    return str(resources.files("gradviz.resources") / folder / name)


def _bench_graph(config: Config | str, saved: bool) -> GraphData:
    """One step's graph of the built-in model (config a Config) or of a model file (config
    its path), batch 8."""
    if isinstance(config, Config):
        session = Session(config)
    else:
        model_file = ModelFile(str(config))
        heads = len(model_file.build(0, 2).heads)
        session = Session(Config(heads=heads, batch_size=8, device="cpu"), model_file)
    session.step()
    return session.graph(show_saved=saved)


if __name__ == "__main__":
    import argparse
    parser = argparse.ArgumentParser(prog="python -m gradviz.bench.layout_speed",
                                     description=bench_layout.__doc__)
    parser.add_argument("--repeats", type=int, default=5, help="layouts of each case")
    parser.add_argument("--only", default="", help="the cases whose name has this text")
    args = parser.parse_args()
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    bench_layout(args.repeats, args.only)
