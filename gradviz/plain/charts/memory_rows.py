"""How the memory chart shares its height between its two plots, one above the other: the
saved bytes above, the graph's node count below, on one step axis.

The bytes take the larger part (32 KiB against 8 KiB is the point of most slides that
show the chart), unless the slide's point is the node count: lesson 03's kept graphs
climb in nodes while their saved bytes stay flat, and in the fifth of the height the
nodes plot had, that line was not read from the back of a hall (1024x768 after Ctrl+=
twice). A slide names its point in its promises and figures (`Slide.named_metrics`).
"""
from __future__ import annotations

from collections.abc import Iterable

BYTES = frozenset({"saved_bytes", "saved_bytes_peak", "saved_tensor_bytes",
                   "saved_tensor_bytes_peak"})
NODES = "graph_nodes"
# the larger part and the smaller, of the two plots' room: the bytes' and the nodes' where
# the slide names no node count, the other way round where it names only that
BYTES_SHARE = (3, 2)


def nodes_share(named: Iterable[str]) -> float | None:
    """The nodes plot's part of the height the two plots draw in (their axes' aside),
    for a slide that names these metrics. None: the chart's own split, the bytes the
    larger (where the slide names no node count, or it is no slide: free mode). Both
    named: half each; only the node count: the larger part."""
    names = set(named)
    if NODES not in names:
        return None
    if names & BYTES:
        return 0.5
    return max(BYTES_SHARE) / sum(BYTES_SHARE)
