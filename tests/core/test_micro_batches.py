"""When accumulation is not the full batch: unequal micro-batches scaled by 1/N or by
n_i/B, a BatchNorm1d in the trunk, and gradient clipping once per step or after each
micro-batch. Every expected gradient comes from a plain-PyTorch loop written here; the
engine's gradient must equal that loop's, and the loops' own facts (which one is the
full batch's gradient, which is not) are asserted on plain PyTorch alone."""
import pytest
import torch
from torch import nn

from gradviz.core.compare import compare
from gradviz.core.session import Session
from gradviz.plain.config.config import Config

from core_reference import (
    HEAD_HIDDEN,
    TIGHT,
    assert_grads,
    loss_k,
    out_dim,
    snapshot,
    weighted_sum,
    weights,
)

BASE = Config(device="cpu", heads=3, batch_size=64, probes="default", sample_every=1)
SIZES = (40, 8, 8, 8)


class BatchNormNet(nn.Module):
    """The engine's layout written again, with or without a BatchNorm1d after the first
    Linear: trunk.0 Linear, trunk.1 BatchNorm1d, trunk.2 Tanh, trunk.3 Linear."""

    def __init__(self, heads: int, width: int, batch_norm: bool):
        super().__init__()
        layers: list[nn.Module] = [nn.Linear(8, width)]
        layers += [nn.BatchNorm1d(width)] if batch_norm else []
        self.trunk = nn.Sequential(*layers, nn.Tanh(), nn.Linear(width, width))
        self.heads = nn.ModuleList(
            nn.Sequential(nn.Linear(width, HEAD_HIDDEN), nn.Tanh(),
                          nn.Linear(HEAD_HIDDEN, out_dim(k))) for k in range(heads))


def plain_net(cfg: Config, state) -> BatchNormNet:
    net = BatchNormNet(cfg.heads, cfg.trunk_width, cfg.batch_norm)
    net.load_state_dict(state)   # strict: the engine's names and shapes, BN's buffers too
    return net


def parts(session, sizes):
    """Step 0's examples in consecutive parts of these sizes, each its own tensors."""
    idx = session.data.batch_indices(0, sum(sizes)).cpu()
    x, targets = session.data.x.cpu(), [t.cpu() for t in session.data.targets]
    return [(x[p], [t[p] for t in targets]) for p in idx.split(list(sizes))]


def plain_step_grads(cfg: Config, state, session, sizes, factors, clip=None,
                     clip_each=False) -> dict[str, torch.Tensor]:
    """A plain accumulation loop's .grad: per part, forward, (factor * total).backward(),
    optionally clip_grad_norm_ after each part or once at the end."""
    net = plain_net(cfg, state)
    for (x, targets), factor in zip(parts(session, sizes), factors):
        z = net.trunk(x)
        losses = [loss_k(k, head(z), targets[k]) for k, head in enumerate(net.heads)]
        (factor * weighted_sum(weights(cfg), losses)).backward()
        if clip is not None and clip_each:
            torch.nn.utils.clip_grad_norm_(net.parameters(), clip)
    if clip is not None and not clip_each:
        torch.nn.utils.clip_grad_norm_(net.parameters(), clip)
    return {n: p.grad.clone() for n, p in net.named_parameters()}


def engine_step(cfg: Config):
    session = Session(cfg)
    state = snapshot(session)
    assert session.step() is not None, session.error
    return session, state


def close(a: dict, b: dict) -> bool:
    return all(torch.allclose(a[n], b[n], **TIGHT) for n in a)


def test_unequal_parts_scaled_by_size_are_the_full_batch_and_by_mean_are_not():
    full_cfg = BASE
    s_full, state = engine_step(full_cfg)
    full = plain_step_grads(full_cfg, state, s_full, (64,), (1.0,))
    by_size = plain_step_grads(full_cfg, state, s_full, SIZES, [n / 64 for n in SIZES])
    by_mean = plain_step_grads(full_cfg, state, s_full, SIZES, [1 / 4] * 4)
    assert close(by_size, full)          # plain PyTorch: n_i/B gives the batch's mean
    assert not close(by_mean, full)      # ...1/N over unequal parts does not
    assert_grads(s_full, full)
    for scale_by, expected in (("size", by_size), ("mean", by_mean)):
        s, _ = engine_step(BASE.replace(micro_batch_sizes=SIZES, accumulate=4,
                                        scale_by=scale_by))
        assert_grads(s, expected)


def test_equal_parts_scaled_by_size_or_mean_are_the_same_factors():
    cfg = BASE.replace(accumulate=4)
    assert [cfg.micro_scale(16)] * 4 == [n / 64 for n in (16,) * 4] == [1 / 4] * 4
    s, state = engine_step(cfg.replace(scale_by="size"))
    assert_grads(s, plain_step_grads(cfg, state, s, (16,) * 4, [1 / 4] * 4))


def test_the_reported_loss_of_unequal_parts_is_the_batch_mean():
    s, state = engine_step(BASE.replace(micro_batch_sizes=SIZES, accumulate=4))
    net = plain_net(BASE, state)
    (x, targets), = parts(s, (64,))
    z = net.trunk(x)
    for k, head in enumerate(net.heads):
        expected = loss_k(k, head(z), targets[k]).item()
        assert s.last_record.losses[f"head{k}"] == pytest.approx(expected, rel=1e-5)


def test_batch_norm_micro_batches_are_not_the_full_batch():
    cfg = BASE.replace(batch_norm=True)
    s_full, state = engine_step(cfg)
    full = plain_step_grads(cfg, state, s_full, (64,), (1.0,))
    micro = plain_step_grads(cfg, state, s_full, (16,) * 4, [1 / 4] * 4)
    sized = plain_step_grads(cfg, state, s_full, (16,) * 4, [16 / 64] * 4)
    assert not close(micro, full) and not close(sized, full)   # no scaling puts it back
    assert_grads(s_full, full)
    s, _ = engine_step(cfg.replace(accumulate=4))
    assert_grads(s, micro)
    assert "trunk.1.weight" in dict(s.model.named_parameters())   # BN's own parameters


@pytest.mark.parametrize("mode", ["backward-each", "sum-first"])
def test_clipping_per_micro_batch_is_not_clipping_the_step(mode):
    cfg = BASE.replace(clip=0.5)
    s_full, state = engine_step(cfg)
    once = plain_step_grads(cfg, state, s_full, (16,) * 4, [1 / 4] * 4, clip=0.5)
    full = plain_step_grads(cfg, state, s_full, (64,), (1.0,), clip=0.5)
    each = plain_step_grads(cfg, state, s_full, (16,) * 4, [1 / 4] * 4, clip=0.5,
                            clip_each=True)
    assert close(once, full) and not close(each, full)
    assert_grads(s_full, full)
    s, _ = engine_step(cfg.replace(accumulate=4, clip_at="step", accumulate_mode=mode))
    assert_grads(s, once)
    s, _ = engine_step(cfg.replace(accumulate=4, clip_at="micro-batch", accumulate_mode=mode))
    if mode == "sum-first":   # one backward: clipping after it is clipping the step
        assert_grads(s, once)
    else:
        assert_grads(s, each)


def test_the_clip_bites_and_the_report_shows_the_clipped_norm():
    s, _ = engine_step(BASE.replace(clip=0.5))
    norms = torch.tensor(list(s.last_record.grad_norms.values()))
    assert float(norms.norm()) == pytest.approx(0.5, rel=1e-4)
    unclipped, _ = engine_step(BASE)
    assert float(torch.tensor(list(unclipped.last_record.grad_norms.values())).norm()) > 1.0


@pytest.mark.parametrize("b, same", [
    (dict(accumulate=4), True),
    (dict(micro_batch_sizes=SIZES, accumulate=4, scale_by="size"), True),
    (dict(micro_batch_sizes=SIZES, accumulate=4, scale_by="mean"), False),
    (dict(accumulate=4, clip=0.5, clip_at="step"), None),          # vs the clipped full
    (dict(accumulate=4, clip=0.5, clip_at="micro-batch"), None),
])
def test_compare_tells_same_and_different_from_the_full_batch(b, same):
    a = BASE.replace(clip=b.get("clip"))
    result = compare(a, BASE.replace(**b), 5)
    expected = same if same is not None else b["clip_at"] == "step"
    assert result.same is expected, result.verdict()
    assert result.verdict().startswith("same gradients" if expected else "different: ")


def test_compare_tells_batch_norm_micro_batches_different_in_words():
    a = BASE.replace(batch_norm=True)
    result = compare(a, a.replace(accumulate=4), 5)
    assert not result.same
    assert "1.00×" not in result.verdict()   # different, never told in words of same


def plain_update_cosines(cfg: Config, state, session, sizes, shares,
                         factors=None) -> list[float]:
    """Each head's cosine with the trunk update, by a plain accumulation loop: per part,
    each head's trunk gradient of its own loss (added with the part's share of the
    step's loss) and the trunk gradient of the weighted total (added with the part's
    factor in the backward: its share where not given)."""
    net = plain_net(cfg, state)
    trunk = list(net.trunk.parameters())
    rows, update = [0.0] * cfg.heads, 0.0
    for (x, targets), share, factor in zip(parts(session, sizes), shares, factors or shares):
        z = net.trunk(x)
        losses = [loss_k(k, head(z), targets[k]) for k, head in enumerate(net.heads)]
        flat = [torch.cat([g.reshape(-1) for g in torch.autograd.grad(
            loss, trunk, retain_graph=True)]) for loss in losses]
        total = torch.cat([g.reshape(-1) for g in torch.autograd.grad(
            weighted_sum(weights(cfg), losses), trunk)])
        rows = [r + share * g for r, g in zip(rows, flat)]
        update = update + factor * total
    return [torch.nn.functional.cosine_similarity(r, update, dim=0).item() for r in rows]


@pytest.mark.parametrize("scale_by", ["size", "mean"])
def test_update_cosine_weighs_each_micro_batch_as_its_loss_is_weighted(scale_by):
    """40, 8, 8, 8 scaled by size reported 0.679 / 0.170 / 0.672 (each part's gradient
    counted alike) where the full batch's are 0.695 / 0.176 / 0.685. Each head's row is
    the gradient of the step's loss (the parts' n_i/B); scaled by 1/N, the update is not
    that loss's gradient, and the cosine says so."""
    cfg = BASE.replace(micro_batch_sizes=SIZES, accumulate=4, scale_by=scale_by,
                       probes="all")
    s, state = engine_step(cfg)
    factors = [n / 64 for n in SIZES] if scale_by == "size" else [1 / 4] * 4
    expected = plain_update_cosines(BASE, state, s, SIZES, [n / 64 for n in SIZES], factors)
    got = [s.last_record.update_cosine[f"head{k}"] for k in range(3)]
    assert got == pytest.approx(expected, abs=1e-5)
    if scale_by == "size":   # the full batch's gradient, so the full batch's cosines
        full = plain_update_cosines(BASE, state, s, (64,), (1.0,))
        assert got == pytest.approx(full, abs=1e-5)
