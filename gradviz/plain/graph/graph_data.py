"""The autograd graph as plain data (nodes, edges, kinds, states): no torch, so the
window's process can draw a graph the engine's process captured."""
from __future__ import annotations

from dataclasses import dataclass, field

# what a saved tensor (and an op through its saved tensors) can be
ALIVE, FREED, DETACHED, STALE = "alive", "freed", "detached in place", "changed in place"

PARAM, INPUT, OP, SAVED, LOSS, TOTAL = "param", "input", "op", "saved", "loss", "total"
# the module view's boxes (plain.graph.module_graph): a module call, the junction z, the ops
# of the steps before that a carried rnn state reaches back into
MODULE, JUNCTION, EARLIER = "module", "junction", "earlier"
GRAD, SAVED_EDGE, CUT = "grad", "saved", "cut"


@dataclass
class GraphNode:
    id: str
    kind: str                       # param, input, op, saved, loss, total
    label: str
    shape: tuple[int, ...] | None = None
    dtype: str = ""
    device: str = ""
    heads_reaching: tuple[int, ...] = ()   # heads whose gradient flows through this node
    state: str = ALIVE              # saved tensors: alive, freed, detached in place
    saved_bytes: int = 0
    grad_norm: float | None = None  # gradient that flowed through it in the last backward
    # the tensor this node stands for (param, input, loss) or makes (op): None = unknown
    tensor: str = ""                # its name where it has one: "z" at the junction
    requires_grad: bool | None = None
    is_leaf: bool | None = None
    has_grad: bool | None = None    # holds a .grad after backward
    grad_note: str = ""             # why not: PyTorch's own warning for a non-leaf's .grad
    module: str = ""                # op/param: the module call (ModuleCall.id) it belongs to
    detail: str = ""                # a module box: its kind and sizes, "Linear 8→32"
    members: tuple[str, ...] = ()   # a module box: the op-view node ids folded into it

    @property
    def freed(self) -> bool:
        return self.state != ALIVE


@dataclass
class GraphEdge:
    src: str
    dst: str
    kind: str = GRAD                # grad, saved, cut
    label: str = ""                 # "detach()" / "detach_()" on cuts
    grad_norm: float | None = None  # gradient sent along it (dst -> src) in the last backward


@dataclass
class ModuleCall:
    """One call of a module in the forward pass, as the module view names it."""
    id: str                         # unique per call: "trunk.0", "trunk.hh@2" (time step 2)
    path: str                       # the module's name, as its parameters are prefixed
    kind: str                       # its class: "Linear", "Tanh"
    detail: str = ""                # "Linear 8→32"
    out_shape: tuple[int, ...] | None = None
    step: int | None = None         # the rnn's time step of this call
    parent: str = ""                # the id of the call it ran inside ("": none recorded)


@dataclass
class GraphData:
    nodes: list[GraphNode] = field(default_factory=list)
    edges: list[GraphEdge] = field(default_factory=list)
    modules: list[ModuleCall] = field(default_factory=list)   # in forward order
    # node ids in the order the autograd engine computed their gradients, one list per
    # backward call of the step so far (a node fires once its gradient is computed)
    sweeps: list[list[str]] = field(default_factory=list)

    def node(self, node_id: str) -> GraphNode:
        return next(n for n in self.nodes if n.id == node_id)

    def by_kind(self, kind: str) -> list[GraphNode]:
        return [n for n in self.nodes if n.kind == kind]

    def structure_key(self) -> tuple:
        """Equal for graphs that lay out the same (ids, kinds, labels, shapes, edges)."""
        # a saved tensor's shape is unknown once freed: not part of the structure
        return (tuple((n.id, n.kind, n.label, None if n.kind == SAVED else n.shape)
                      for n in self.nodes),
                tuple((e.src, e.dst, e.kind, e.label) for e in self.edges))

    def to_dict(self) -> dict:
        return {"nodes": [dict(vars(n), freed=n.freed) for n in self.nodes],
                "edges": [vars(e) for e in self.edges],
                "modules": [vars(m) for m in self.modules],
                "sweeps": [list(sweep) for sweep in self.sweeps]}
