"""A watched step's autograd graph, read without hooks while it is alive (before the
user's backward): the saved-tensor bytes it holds and the graph as plain data."""
from __future__ import annotations

from collections.abc import Sequence

import torch

from ..plain.graph_data import LOSS, GraphData
from .autograd_walk import held_saved_bytes, reachable_nodes, storage_key
from .graph import Root, capture


def saved_bytes(losses: Sequence[torch.Tensor], params: Sequence[torch.Tensor],
                features: Sequence[torch.Tensor]) -> tuple[int, int, tuple]:
    """(bytes of the distinct storages the graph below losses holds for backward, not
    counting the parameters'; number of autograd nodes; a fingerprint of the graph's
    structure): read from the nodes' saved tensors, as gradviz's own memory probe does
    (no saved-tensor hooks). The fingerprint, each node's type and inputs in a fixed
    walk order and the features' shapes, tells when the graph must be captured again
    (a capture costs several walks)."""
    nodes = reachable_nodes([loss.grad_fn for loss in losses])
    held = held_saved_bytes(nodes, {storage_key(p) for p in params})
    fingerprint = (tuple((type(fn), len(fn.next_functions)) for fn in nodes),
                   tuple(f.shape for f in features))
    return held, len(nodes), fingerprint


def step_graph(losses: dict[str, torch.Tensor], params: Sequence[tuple[str, torch.Tensor]],
               features: list[torch.Tensor]) -> GraphData:
    """The graph below the named losses, the parameters by the model's names, the
    features' node marked as the junction where there is one feature tensor."""
    roots = [Root(name, loss, LOSS, head=i) for i, (name, loss) in enumerate(losses.items())
             if loss.grad_fn is not None]
    junction = (features[0].grad_fn, features[0]) if len(features) == 1 else None
    return capture(roots, params, junction=junction)
