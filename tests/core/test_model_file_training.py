"""A model file trained by the session under the toggles: its losses, gradients and
each head's push at its tap against the same model and batches in a plain loop
written here (the file is run by the test itself with runpy, not through gradviz)."""
import math
import runpy
import textwrap

import pytest
import torch

from gradviz.core.model_file import ModelFile
from gradviz.core.session import Session
from gradviz.plain.config.config import Config

TIGHT = dict(rtol=1e-5, atol=1e-6)

# three heads: 0 and 1 read the deep output, 2 reads the shallow one (taps)
MODEL = """
import torch
import torch.nn.functional as F
from torch import nn

class Trunk(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = nn.Linear(5, 12)
        self.second = nn.Linear(12, 12)

    def forward(self, x):
        shallow = torch.tanh(self.first(x))
        return shallow, self.second(shallow)

def build(seed):
    torch.manual_seed(seed)
    heads = [nn.Sequential(nn.Linear(12, 6), nn.Tanh(), nn.Linear(6, 3)),
             nn.Linear(12, 1), nn.Linear(12, 1)]
    def batch(step, batch_size, generator):
        x = torch.randn(batch_size, 5, generator=generator)
        return x, [x[:, 0].gt(0).long(), x[:, 1:2] * 2, x[:, 2:3] - x[:, 3:4]]
    return {"trunk": Trunk(), "heads": heads, "batch": batch, "taps": [1, 1, 0],
            "losses": [F.cross_entropy, F.mse_loss, F.mse_loss]}
"""
BASE = Config(device="cpu", heads=3, batch_size=8, sample_every=1)


@pytest.fixture
def model_path(tmp_path):
    path = tmp_path / "three_heads.py"
    path.write_text(textwrap.dedent(MODEL))
    return path


def plain_loop(path, cfg: Config, steps: int):
    """The loop a user writes: per step, the batch from a generator seeded as docs/model-files.md
    says, losses, backward as the strategy does, the optimizer step. Returns each step's
    losses, gradients (by gradviz's parameter names) and each head's gradient at its tap."""
    built = runpy.run_path(str(path))["build"](cfg.seed)
    trunk, heads, losses_of = built["trunk"], built["heads"], built["losses"]
    taps = built["taps"]
    named = [(f"trunk.{n}", p) for n, p in trunk.named_parameters()] + \
        [(f"heads.{k}.{n}", p) for k, h in enumerate(heads) for n, p in h.named_parameters()]
    params = [p for _, p in named]
    opt = torch.optim.SGD(params, lr=cfg.lr) if cfg.optimizer == "sgd" else \
        torch.optim.Adam(params, lr=cfg.lr)
    weights = cfg.weights()
    out = []
    for step in range(steps):
        generator = torch.Generator().manual_seed(cfg.seed * 1_000_003 + step)
        x, targets = built["batch"](step, cfg.batch_size, generator)
        if cfg.zero_grad:
            opt.zero_grad()
        n = cfg.accumulate
        step_losses, pushes = [], [0.0] * 3
        for xm, *tm in zip(x.chunk(n), *[t.chunk(n) for t in targets]):
            zs = trunk(xm)
            inputs = []
            for k in range(3):
                z = zs[taps[k]]
                inputs.append(z.detach() if k in cfg.detach else z)
            terms = [losses_of[k](heads[k](inputs[k]), tm[k]) for k in range(3)]
            step_losses.append([t.item() for t in terms])
            scale = 1 / n if cfg.scale else 1.0
            weighted = [w * scale * t for w, t in zip(weights, terms)]
            for k in range(3):   # each head's push into the output it reads
                if inputs[k].requires_grad:
                    g = torch.autograd.grad(weighted[k], inputs[k], retain_graph=True)[0]
                    pushes[k] = pushes[k] + g.square().sum().item()
            if cfg.strategy == "sum":
                sum(weighted).backward()
            elif cfg.strategy == "separate":
                for t in weighted:
                    t.backward(retain_graph=True)
            else:   # in-loop: total += L_k; total.backward() inside the loop
                total = 0
                for t in weighted:
                    total = total + t
                    total.backward(retain_graph=True)
        grads = {name: p.grad.clone() if p.grad is not None else torch.zeros_like(p)
                 for name, p in named}
        opt.step()
        mean_losses = [sum(m[k] for m in step_losses) / n for k in range(3)]
        out.append((mean_losses, grads, [math.sqrt(p) for p in pushes]))
    return out


def trained(path, cfg: Config, steps: int):
    session = Session(cfg, ModelFile(path))
    got = []
    for _ in range(steps):
        record = session.step()
        assert record is not None, session.error
        got.append((record, {n: p.grad.clone() for n, p in
                             zip(session.param_names, session.params)}))
    return session, got


@pytest.mark.parametrize("changes", [
    dict(strategy="sum"), dict(strategy="separate"), dict(strategy="in-loop"),
    dict(strategy="separate", retain_graph="always", loss_weights=(0.5, 2.0, 1.0)),
    dict(accumulate=2), dict(accumulate=4, accumulate_mode="sum-first", scale=False),
    dict(optimizer="adam", lr=0.01), dict(zero_grad=False), dict(detach=(0,)),
])
def test_losses_gradients_and_pushes_are_the_plain_loops(model_path, changes):
    cfg = BASE.replace(**changes)
    expected = plain_loop(model_path, cfg, 3)
    session, got = trained(model_path, cfg, 3)
    assert session.param_names[:2] == ["trunk.first.weight", "trunk.first.bias"]
    for (losses, grads, pushes), (record, session_grads) in zip(expected, got):
        for k in range(3):
            assert record.losses[f"head{k}"] == pytest.approx(losses[k], rel=1e-5)
        assert set(session_grads) == set(grads)
        for name, g in grads.items():
            torch.testing.assert_close(session_grads[name], g, **TIGHT)
            assert record.grad_norms[name] == pytest.approx(g.norm().item(), rel=1e-4,
                                                            abs=1e-7)
        if changes.get("strategy") != "in-loop":   # in-loop pushes again: tested below
            for k in range(3):
                assert record.junction_grad_norms[f"head{k}"] == \
                    pytest.approx(pushes[k], rel=1e-4, abs=1e-9)


def test_in_loop_counts_head_0_three_times_and_head_1_twice(model_path):
    _, (sum_step, *_) = trained(model_path, BASE, 1)
    _, (loop_step, *_) = trained(model_path, BASE.replace(strategy="in-loop"), 1)
    pushes = [loop_step[0].junction_grad_norms[f"head{k}"] /
              sum_step[0].junction_grad_norms[f"head{k}"] for k in range(3)]
    assert pushes == pytest.approx([3.0, 2.0, 1.0], rel=1e-5)


def test_detaching_one_head_zeroes_its_push_at_its_tap_and_only_its(model_path):
    _, got = trained(model_path, BASE.replace(detach=(1,)), 2)
    for record, _ in got:
        assert record.junction_grad_norms["head1"] == 0.0
        assert record.junction_grad_norms["head0"] > 0 and record.junction_grad_norms["head2"] > 0
        assert math.isnan(record.cosine[1][0])   # no push: no direction


def test_cosines_compare_heads_at_the_same_tap_only(model_path):
    cfg = BASE
    _, ((record, _),) = trained(model_path, cfg, 1)
    built = runpy.run_path(str(model_path))["build"](cfg.seed)
    x, targets = built["batch"](0, cfg.batch_size,
                                torch.Generator().manual_seed(cfg.seed * 1_000_003))
    zs = built["trunk"](x)
    g = [torch.autograd.grad(built["losses"][k](built["heads"][k](zs[1]), targets[k]),
                             zs[1])[0].reshape(-1) for k in (0, 1)]
    assert record.cosine[0][1] == pytest.approx(
        torch.nn.functional.cosine_similarity(g[0], g[1], dim=0).item(), rel=1e-5)
    assert math.isnan(record.cosine[0][2]) and math.isnan(record.cosine[2][1])
    assert record.cosine[2][2] == pytest.approx(1.0)


def test_retain_grad_keeps_every_tap_grad(model_path):
    cfg = BASE.replace(retain_grad=True)
    _, ((record, _),) = trained(model_path, cfg, 1)
    built = runpy.run_path(str(model_path))["build"](cfg.seed)
    x, targets = built["batch"](0, cfg.batch_size,
                                torch.Generator().manual_seed(cfg.seed * 1_000_003))
    zs = built["trunk"](x)
    total = sum(built["losses"][k](built["heads"][k](zs[t]), targets[k])
                for k, t in enumerate(built["taps"]))
    grads = torch.autograd.grad(total, zs)
    expected = torch.cat([g.reshape(-1) for g in grads]).norm().item()
    assert record.z_grad_norm == pytest.approx(expected, rel=1e-5)


def test_detach_in_place_after_a_head_saved_z_is_pytorchs_error(model_path):
    session = Session(BASE.replace(detach=(1,), detach_mode="detach_"), ModelFile(model_path))
    assert session.step() is None
    assert session.error is not None and session.error.phase == "backward"
    assert "detached in-place" in session.error.message


def test_keep_graphs_holds_every_steps_graph(model_path):
    session = Session(BASE.replace(keep_graphs=True), ModelFile(model_path))
    nodes = [session.step().graph_nodes for _ in range(3)]
    assert nodes[0] < nodes[1] < nodes[2]


def test_a_batch_that_breaks_later_is_an_event_not_a_crash(model_path, tmp_path):
    session = Session(BASE, ModelFile(model_path))
    assert session.step() is not None
    session.set_config(session.config.replace(batch_size=6))   # fine for this file
    assert session.step() is not None
    session.spec.batch = lambda step, n, g: 1 / 0
    assert session.step() is None
    assert "batch(step, batch_size, generator) raised ZeroDivisionError" in session.error.message


def test_the_graph_of_a_model_file_is_captured(model_path):
    session = Session(BASE.replace(detach=(2,)), ModelFile(model_path))
    session.step()
    graph = session.graph()
    assert len(graph.nodes) > 10


def test_a_config_the_model_file_cannot_build_leaves_the_session_as_it_was(model_path):
    from gradviz.core.model_file import ModelFileError
    session = Session(BASE, ModelFile(model_path))
    session.step()
    with pytest.raises(ModelFileError, match="heads is 2, but the model file builds 3"):
        session.set_config(BASE.replace(heads=2, loss_weights=()))
    assert session.config == BASE and session.step_index == 0   # rebuilt, as reset does
    assert session.step() is not None


def test_a_new_seed_rebuilds_the_model_from_the_file(model_path):
    session = Session(BASE, ModelFile(model_path))
    first = session.params[0].detach().clone()
    assert session.set_config(BASE.replace(seed=5)) is True
    built = runpy.run_path(str(model_path))["build"](5)
    torch.testing.assert_close(session.params[0], built["trunk"].first.weight, rtol=0, atol=0)
    assert not torch.equal(first, session.params[0])


def test_a_model_file_raising_in_backward_is_an_event_and_the_session_goes_on(model_path,
                                                                                tmp_path):
    """A custom autograd function of the user's may raise anything in backward."""
    text = textwrap.dedent(MODEL).replace("import torch\n", '''import torch

class Refuse(torch.autograd.Function):
    refusing = True   # the test lets it through: a probe's own walks may call it too

    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        if Refuse.refusing:
            raise ValueError("my backward refuses")
        return g
''', 1).replace("return shallow, self.second(shallow)",
                "return shallow, Refuse.apply(self.second(shallow))")
    path = tmp_path / "refusing.py"
    path.write_text(text)
    session = Session(BASE, ModelFile(path))
    assert session.step() is None
    assert session.error.phase == "backward" and session.error.type == "ValueError"
    session.model_file.module.Refuse.refusing = False
    assert session.step() is not None   # the same step again, now through


def _plain_trunk_passes(path, cfg: Config) -> int:
    """Trunk passes of step 0 in a plain loop, counted by a pre-hook on the node of the
    trunk's first Linear (every pass into the trunk runs it once)."""
    built = runpy.run_path(str(path))["build"](cfg.seed)
    trunk, heads, losses_of, taps = (built[k] for k in ("trunk", "heads", "losses", "taps"))
    x, targets = built["batch"](0, cfg.batch_size,
                                torch.Generator().manual_seed(cfg.seed * 1_000_003))
    passes = [0]
    first = trunk.first(x)
    first.grad_fn.register_prehook(lambda _: passes.__setitem__(0, passes[0] + 1))
    shallow = torch.tanh(first)
    zs = (shallow, trunk.second(shallow))
    terms = [losses_of[k](heads[k](zs[taps[k]]), targets[k]) for k in range(3)]
    if cfg.strategy == "sum":
        sum(terms).backward()
    else:
        for t in terms:
            t.backward(retain_graph=True)
    return passes[0]


@pytest.mark.parametrize("strategy", ["sum", "separate"])
def test_trunk_walks_of_a_model_file_are_the_plain_loops_with_hooks_added_once(
        model_path, strategy):
    cfg = BASE.replace(strategy=strategy)
    session, got = trained(model_path, cfg, 3)
    expected = _plain_trunk_passes(model_path, cfg)
    assert expected == {"sum": 1, "separate": 3}[strategy]
    assert [record.trunk_walks for record, _ in got] == [expected] * 3
    # one forward hook on each innermost trunk module, however many forwards ran
    trunk = session.model.trunk
    assert [len(m._forward_hooks) for m in (trunk.first, trunk.second)] == [1, 1]
