"""The module view of model files (issue 22), checked against the plain model: a box per
leaf module call holding exactly the autograd nodes that call made (told apart by their
creation order between markers hooks place), every parameter folded into its own
module's box, a run of identical blocks as one box with the states and gradient its
blocks have in plain PyTorch, and the blocks again once the run is opened."""
import itertools
import runpy
from pathlib import Path

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from gradviz.core.model_file import ModelFile
from gradviz.core.session import Session
from gradviz.plain.config.config import Config
from gradviz.plain.graph.graph_data import CUT, FREED, MODULE, OP, PARAM, STALE, ModuleCall
from gradviz.plain.graph.module_graph import JUNCTION_ID, module_graph
from gradviz.plain.graph.module_runs import RUN_PREFIX, CallTree

from core_reference import made_nodes, sequence_marker

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "resources" / "models"
RESNET = ROOT / "resources" / "bench" / "resnet18.py"
FILES = {"cnn_two_heads": MODELS / "cnn_two_heads.py",
         "tiny_transformer": MODELS / "tiny_transformer.py",
         "deep_supervision": MODELS / "deep_supervision.py", "resnet18": RESNET}
BATCH = 8


def _session(name: str, cfg: Config = Config()) -> Session:
    plain = _plain(name)
    cfg = cfg.replace(device="cpu", heads=len(plain["heads"]), batch_size=BATCH)
    s = Session(cfg, ModelFile(str(FILES[name])))
    s.track_node_grads = True
    assert s.step() is not None, s.error
    return s


def _plain(name: str) -> dict:
    """The file's build(0), run as a plain PyTorch program would."""
    return runpy.run_path(str(FILES[name]))["build"](0)


class PlainRun:
    """One forward and the losses of the plain model on step 0's batch, every module
    call's span of autograd sequence numbers noted by a pre-hook and a hook."""

    def __init__(self, name: str):
        built = self.built = _plain(name)
        self.x, self.targets = built["batch"](0, BATCH, torch.Generator().manual_seed(0))
        self.spans: list[list] = []      # [path, start, end], in the order calls began
        self.inputs: dict[str, torch.Tensor] = {}
        named = [(f"trunk.{n}".rstrip("."), m) for n, m in built["trunk"].named_modules()]
        for k, head in enumerate(built["heads"]):
            named += [(f"heads.{k}.{n}".rstrip("."), m) for n, m in head.named_modules()]
        handles = []
        for path, module in named:
            handles.append(module.register_forward_pre_hook(
                lambda mod, args, path=path: self._begin(path, args)))
            handles.append(module.register_forward_hook(
                lambda mod, args, out, path=path: self._end(path)))
        try:
            out = built["trunk"](self.x)
            self.zs = out if isinstance(out, tuple) else (out,)
            taps = built.get("taps") or [0] * len(built["heads"])
            self.losses = [built["losses"][k](head(self.zs[taps[k]]), self.targets[k])
                           for k, head in enumerate(built["heads"])]
        finally:
            for h in handles:
                h.remove()

    def _begin(self, path, args):
        self.spans.append([path, sequence_marker(), None])
        self.inputs.setdefault(path, args[0])

    def _end(self, path):
        span = next(s for s in reversed(self.spans) if s[0] == path and s[2] is None)
        span[2] = sequence_marker()

    def ops(self) -> list:
        return made_nodes(self.losses)

    def leaf_calls(self) -> list[tuple[str, tuple[str, ...]]]:
        """(path, sorted names of the nodes it made) per call with no call inside it that
        made any node: the module view's boxes."""
        ops = self.ops()
        out = []
        for path, lo, hi in self.spans:
            if any(lo < a and b < hi for _, a, b in self.spans if (a, b) != (lo, hi)):
                continue   # a block: its calls are the boxes
            made = sorted(type(fn).__name__ for fn in ops if lo < fn._sequence_nr() < hi)
            if made:
                out.append((path, tuple(made)))
        return sorted(out)

    def made_between(self, first: str, last: str) -> list[str]:
        """Names of the nodes made from first's call's start to last's end."""
        lo = next(s[1] for s in self.spans if s[0] == first)
        hi = next(s[2] for s in self.spans if s[0] == last)
        return sorted(type(fn).__name__ for fn in self.ops() if lo < fn._sequence_nr() < hi)


def _boxes(view) -> list:
    return [n for n in view.nodes if n.kind == MODULE]


def _members(graph, box) -> list[str]:
    by_id = {n.id: n for n in graph.nodes}
    return sorted(by_id[m].label for m in box.members if by_id[m].kind == OP)


def _all_runs_open(graph) -> frozenset:
    return frozenset(RUN_PREFIX + c.id for c in graph.modules)


@pytest.mark.parametrize("name", ["cnn_two_heads", "tiny_transformer", "resnet18"])
def test_one_box_per_leaf_module_call_holding_exactly_the_ops_it_made(name):
    graph = _session(name).graph(show_saved=False)
    view = module_graph(graph, _all_runs_open(graph))
    leaf_boxes = [b for b in _boxes(view) if "/" not in b.id]   # not a block's own ops
    got = sorted((b.label, tuple(_members(graph, b))) for b in leaf_boxes)
    assert got == PlainRun(name).leaf_calls()


@pytest.mark.parametrize("name", ["cnn_two_heads", "tiny_transformer", "resnet18"])
@pytest.mark.parametrize("runs_open", [False, True])
def test_every_parameter_folds_into_its_own_modules_box(name, runs_open):
    graph = _session(name).graph(show_saved=False)
    view = module_graph(graph, _all_runs_open(graph) if runs_open else frozenset())
    assert not view.by_kind(PARAM)                # no stray leaf boxes
    built = _plain(name)
    names = [f"trunk.{n}" for n, _ in built["trunk"].named_parameters()]
    names += [f"heads.{k}.{n}" for k, h in enumerate(built["heads"])
              for n, _ in h.named_parameters()]
    by_id = {n.id: n for n in graph.nodes}
    holder = {by_id[m].label: box for box in _boxes(view) for m in box.members
              if by_id[m].kind == PARAM}
    assert sorted(holder) == sorted(names)
    if runs_open:   # each in the box of its module or of a module around it
        for param, box in holder.items():
            assert param.startswith(box.label + "."), (param, box.label)


def test_a_run_of_transformer_layers_is_one_box_that_opens_into_its_layers():
    s = _session("tiny_transformer")
    graph = s.graph(show_saved=False)
    view = module_graph(graph)
    layers = _plain("tiny_transformer")["trunk"].layers.layers
    n, kind = len(layers), type(layers[0]).__name__
    (run,) = [b for b in _boxes(view) if b.id.startswith(RUN_PREFIX)]
    assert run.label == f"trunk.layers.layers.0–{n - 1} ×{n}" and run.detail == kind
    assert not [b for b in _boxes(view) if b.label.startswith("trunk.layers.layers.")
                and b is not run]
    plain = PlainRun("tiny_transformer")
    want = plain.made_between("trunk.layers.layers.0", f"trunk.layers.layers.{n - 1}")
    assert _members(graph, run) == want
    opened = module_graph(graph, {run.id})
    labels = {b.label for b in _boxes(opened)}
    assert {f"trunk.layers.layers.{i}.{part}" for i in range(n)
            for part in ("self_attn", "linear1", "linear2", "norm1", "norm2")} <= labels
    assert not [b for b in _boxes(opened) if b.id.startswith(RUN_PREFIX)]
    inside = [b for b in _boxes(opened) if b.label.startswith("trunk.layers.layers.")]
    assert sorted(m for b in inside for m in _members(graph, b)) == want


def test_only_identical_consecutive_blocks_collapse_in_a_resnet():
    graph = _session("resnet18").graph(show_saved=False)
    labels = {b.label for b in _boxes(module_graph(graph))}
    trunk = _plain("resnet18")["trunk"]
    for i in range(1, 5):
        stage: nn.Sequential = getattr(trunk, f"layer{i}")
        # plain: blocks alike when they print alike (kinds, sizes, a shortcut conv)
        if repr(stage[0]) == repr(stage[1]):
            assert f"trunk.layer{i}.0–1 ×2" in labels
            assert f"trunk.layer{i}.0.conv1" not in labels
        else:
            assert {f"trunk.layer{i}.0.conv1", f"trunk.layer{i}.1.conv1",
                    f"trunk.layer{i}.0.downsample.0"} <= labels
    assert "trunk.layer1.0–1 ×2" in labels   # the stage without a shortcut conv


def test_blocks_whose_outputs_heads_read_are_not_collapsed():
    """Deep supervision: blocks 1 and 2 are alike, but a head reads each one's output."""
    trunk = _plain("deep_supervision")["trunk"]
    assert repr(trunk.blocks[1]) == repr(trunk.blocks[2])
    view = module_graph(_session("deep_supervision").graph(show_saved=False))
    labels = {b.label for b in _boxes(view)}
    assert not [b for b in _boxes(view) if b.id.startswith(RUN_PREFIX)]
    assert {f"trunk.blocks.{i}.0" for i in range(3)} <= labels


def _plain_layers_state(retain: bool) -> str:
    """What plain PyTorch says of the layers' graph after one training step: a second
    backward through just the layers fails as freed, or as changed in place."""
    plain = PlainRun("tiny_transformer")
    layers = plain.built["trunk"].layers.layers
    start = plain.inputs["trunk.layers.layers.0"]
    z = plain.zs[0]
    params = [p for m in (plain.built["trunk"], *plain.built["heads"]) for p in m.parameters()]
    sum(plain.losses).backward(retain_graph=retain)
    torch.optim.SGD(params, lr=0.05).step()
    assert len(layers) >= 2
    try:
        torch.autograd.grad(z, start, torch.ones_like(z))
    except RuntimeError as exc:
        return STALE if "inplace" in str(exc) else FREED
    return "alive"


@pytest.mark.parametrize("retain", [False, True])
def test_a_collapsed_run_has_its_blocks_state_and_output_gradient(retain):
    cfg = Config(retain_graph="always" if retain else "auto")
    graph = _session("tiny_transformer", cfg).graph(show_saved=False)
    (run,) = [b for b in _boxes(module_graph(graph)) if b.id.startswith(RUN_PREFIX)]
    assert run.state == _plain_layers_state(retain)
    # the gradient that reached the last layer's output: d(sum of losses)/dz, plainly
    plain = PlainRun("tiny_transformer")
    z = plain.zs[0]
    (grad,) = torch.autograd.grad(sum(plain.losses), z)
    assert run.grad_norm == pytest.approx(float(grad.norm()), rel=1e-4)


def test_a_detach_cut_leaves_the_collapsed_trunk_and_reaches_the_head():
    graph = _session("tiny_transformer", Config(detach=(1,))).graph(show_saved=False)
    view = module_graph(graph)
    (run,) = [b for b in _boxes(view) if b.id.startswith(RUN_PREFIX)]
    cuts = [(e.src, e.dst, e.label) for e in view.edges if e.kind == CUT]
    assert cuts == [(JUNCTION_ID, "m:heads.1", "detach()")]
    assert run.heads_reaching == (0,)    # the cut head's gradient never reaches the layers
    assert run.state == FREED


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from("ABC"), max_size=9))
def test_runs_are_the_longest_stretches_of_alike_blocks(kinds):
    """Blocks of kinds side by side in one parent, each with a Linear inside: a run is
    each longest stretch of two or more of one kind, and nothing else."""
    calls = []
    for i, kind in enumerate(kinds):
        calls.append(ModuleCall(f"p.{i}.fc", f"p.{i}.fc", "Linear", "Linear 4→4", (2, 4),
                                parent=f"p.{i}"))
        calls.append(ModuleCall(f"p.{i}", f"p.{i}", kind, kind, (2, 4), parent="p"))
    calls.append(ModuleCall("p", "p", "Sequential", "Sequential", (2, 4)))
    runs = CallTree(calls).run_of
    start = 0
    for _kind, group in itertools.groupby(kinds):
        n = len(list(group))
        for i in range(start, start + n):
            want = [f"p.{j}" for j in range(start, start + n)] if n > 1 else None
            got = runs.get(f"p.{i}")
            assert ([c.id for c in got] if got else None) == want
        start += n
    assert not any(c.id.endswith(".fc") or c.id == "p" for r in runs.values() for c in r)
