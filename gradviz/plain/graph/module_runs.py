"""The calls as the forward pass nested them, and which of them fold into one box: a
run of identical blocks side by side (one box where each block feeds the next alone), or
a block of layers where the whole model does not fit. Plain data in, plain data out."""
from __future__ import annotations

from .graph_data import OP, GraphData, ModuleCall

RUN_PREFIX = "r:"   # a run of repeated blocks drawn as one box: "r:" + its first call's id
# a block of layers folded into one box where the whole model did not fit the panel at a
# legible size (a CNN's Conv2d, ReLU, MaxPool2d): "f:" + the block's call id
FOLD_PREFIX = "f:"


class CallTree:
    """The calls as the forward pass nested them (model files record every module call,
    each with the call it ran inside): which calls are leaves, and runs of identical
    blocks side by side (transformer layers, ResNet blocks of one shape)."""

    def __init__(self, modules: list[ModuleCall]):
        self.calls = {c.id: c for c in modules}
        self.children: dict[str, list[ModuleCall]] = {}
        for c in modules:   # recorded after their children: siblings in forward order
            if c.parent in self.calls:
                self.children.setdefault(c.parent, []).append(c)
        self.run_of: dict[str, list[ModuleCall]] = {}   # block's call id -> its run
        for siblings in self.children.values():
            self._find_runs(siblings)

    def _signature(self, call: ModuleCall) -> tuple:
        """Equal for blocks that compute alike: kind, sizes and nested calls by their
        names inside the block (so layers.0 and layers.1 match)."""
        inner = tuple((child.path.removeprefix(call.path), self._signature(child))
                      for child in self.children.get(call.id, ()))
        return (call.kind, call.detail, call.out_shape, inner)

    def _find_runs(self, siblings: list[ModuleCall]) -> None:
        start = 0
        while start < len(siblings):
            first = siblings[start]
            end = start + 1
            if first.id in self.children:   # only blocks (calls with calls inside) repeat
                sig = self._signature(first)
                while end < len(siblings) and self._signature(siblings[end]) == sig:
                    end += 1
            if end - start > 1:
                run = siblings[start:end]   # one list per run: its blocks share it
                for call in run:
                    self.run_of[call.id] = run
            start = end

    def chain(self, call_id: str) -> list[str]:
        """call_id and the calls it ran inside, outermost first."""
        out: list[str] = []
        while call_id in self.calls and call_id not in out:
            out.append(call_id)
            call_id = self.calls[call_id].parent
        return out[::-1]


def split_runs(tree: CallTree, graph: GraphData) -> None:
    """A run is one box only where each block feeds the next alone: a block whose output
    is read past the run (a head at that depth, the junction) ends a run there."""
    if not tree.run_of:
        return
    block_of: dict[str, tuple[int, int]] = {}   # op id -> (id of its run, block index)
    for node in graph.nodes:
        for call_id in tree.chain(node.module) if node.kind == OP else ():
            run = tree.run_of.get(call_id)
            if run is not None:
                block_of[node.id] = (id(run), run.index(tree.calls[call_id]))
                break
    runs = {id(r): r for r in tree.run_of.values()}
    ends: dict[int, set[int]] = {}
    for node in graph.nodes:   # the junction: its op's output is read by every head
        if node.tensor and node.id in block_of:
            ends.setdefault(block_of[node.id][0], set()).add(block_of[node.id][1])
    for e in graph.edges:
        src, dst = block_of.get(e.src), block_of.get(e.dst)
        if src is not None and (dst is None or dst[0] != src[0]):
            ends.setdefault(src[0], set()).add(src[1])
    for key, cut_after in ends.items():
        run = runs[key]
        pieces, start = [], 0
        for i in sorted(cut_after | {len(run) - 1}):
            pieces.append(run[start:i + 1])
            start = i + 1
        for piece in pieces:
            for call in piece:
                if len(piece) > 1:
                    tree.run_of[call.id] = piece
                else:
                    tree.run_of.pop(call.id, None)


def foldable_blocks(tree: CallTree) -> list[str]:
    """The blocks that fold into one box each where the whole model does not fit: calls
    inside the trunk or a head (not those themselves) whose calls are all layers (no
    blocks inside), and not part of a run (already one box). A CNN's three Conv2d, ReLU,
    MaxPool2d blocks: 9 rows of its trunk become 3."""
    out = []
    for call_id, children in tree.children.items():
        call = tree.calls[call_id]
        if call.parent in tree.calls and call_id not in tree.run_of and \
                all(c.id not in tree.children for c in children):
            out.append(call_id)
    return out


def run_key(run: list[ModuleCall]) -> str:
    """What module_graph's expanded holds for a run opened block by block."""
    return RUN_PREFIX + run[0].id
