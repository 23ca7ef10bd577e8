"""A watched step's autograd graph, read without hooks while it is alive (before the
user's backward): the bytes it holds for backward and the graph as plain data."""
from __future__ import annotations

from collections.abc import Sequence

import torch

from ..plain.graph.graph_data import LOSS, GraphData
from .autograd_walk import held_saved_memory, reachable_nodes, storage_key
from .graph import Root, capture


def saved_memory(losses: Sequence[torch.Tensor], params: Sequence[torch.Tensor],
                 features: Sequence[torch.Tensor]) -> tuple[int, int, int, tuple]:
    """(bytes of the distinct storages the graph below losses keeps alive for backward;
    bytes of the saved tensors themselves, what backward needs (autograd_walk's
    held_saved_memory: a saved slice of a dataset counts the whole dataset in the
    first, its own rows in the second); number of autograd nodes; a fingerprint of the
    graph's structure), the parameters not counted: read from the nodes' saved tensors,
    as gradviz's own memory probe does (no saved-tensor hooks). The fingerprint, each
    node's type and inputs in a fixed walk order and the features' shapes, tells when
    the graph must be captured again (a capture costs several walks)."""
    nodes = reachable_nodes([loss.grad_fn for loss in losses])
    held, tensors = held_saved_memory(nodes, {storage_key(p) for p in params})
    fingerprint = (tuple((type(fn), len(fn.next_functions)) for fn in nodes),
                   tuple(f.shape for f in features))
    return held, tensors, len(nodes), fingerprint


def step_graph(losses: dict[str, torch.Tensor], params: Sequence[tuple[str, torch.Tensor]],
               features: list[torch.Tensor]) -> GraphData:
    """The graph below the named losses, the parameters by the model's names, the
    features' node marked as the junction where there is one feature tensor."""
    roots = [Root(name, loss, LOSS, head=i) for i, (name, loss) in enumerate(losses.items())
             if loss.grad_fn is not None]
    junction = (features[0].grad_fn, features[0]) if len(features) == 1 else None
    return capture(roots, params, junction=junction)
