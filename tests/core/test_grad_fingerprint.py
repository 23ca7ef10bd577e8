"""A gradient's fingerprint: the dot products of each parameter's gradient with fixed
random unit vectors, checked against the vectors written out whole and a plain dot
product; equal gradients give equal numbers, a sign flip, a scale or another direction
of the same length do not; the global random stream is never drawn from; and ranks
whose gradient norms agree but whose gradients point apart are told apart."""
from __future__ import annotations

import torch
from torch import nn

from gradviz.core.grad_fingerprint import PROJECTIONS, GradFingerprint, matrix_shape
from gradviz.plain.records.records import StepRecord
from gradviz.plain.run_files.watch_read import FolderFollower
from gradviz.plain.run_files.watch_stream import StreamWriter
from gradviz.plain.runs.rank_agreement import AGREE_RTOL, gradient_line


def _model() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(6, 5), nn.ReLU(), nn.Linear(5, 3))


def _grads(model: nn.Module, seed: int = 1) -> list[torch.Tensor]:
    torch.manual_seed(seed)
    loss = model(torch.randn(4, 6)).square().sum()
    return list(torch.autograd.grad(loss, list(model.parameters())))


def _per_param(printer: GradFingerprint, grads) -> dict:
    return printer.named(printer(grads).tolist(), grads)


def _apart(a: list[float], b: list[float], norm: float) -> bool:
    """As rank_agreement tells two fingerprints apart."""
    return any(abs(x - y) > AGREE_RTOL * norm for x, y in zip(a, b))


def _only(model: nn.Module, name: str, grad: torch.Tensor) -> list:
    """Every parameter's gradient None but name's, which is grad."""
    return [grad.reshape(p.shape) if n == name else None
            for n, p in model.named_parameters()]


def test_each_number_is_a_dot_product_with_a_fixed_unit_vector():
    model = _model()
    printer = GradFingerprint(list(model.named_parameters()))
    grads = _grads(model)
    got = _per_param(printer, grads)
    for (name, p), grad in zip(model.named_parameters(), grads):
        # the vectors written out whole: the fingerprint of each basis gradient
        vectors = torch.tensor([_per_param(printer, _only(model, name, e))[name]
                                for e in torch.eye(p.numel())], dtype=torch.float64)
        assert vectors.shape == (p.numel(), PROJECTIONS)
        assert torch.allclose(vectors.norm(dim=0), torch.ones(PROJECTIONS,
                                                              dtype=torch.float64))
        want = grad.reshape(-1).double() @ vectors          # a plain dot product
        assert torch.allclose(torch.tensor(got[name], dtype=torch.float64), want,
                              rtol=1e-5, atol=1e-7)


def test_equal_gradients_agree_and_flipped_scaled_or_turned_ones_do_not():
    model = _model()
    printer = GradFingerprint(list(model.named_parameters()))
    grads = _grads(model)
    base = _per_param(printer, grads)
    norms = {n: g.norm().item() for (n, _), g in zip(model.named_parameters(), grads)}
    assert _per_param(printer, [g.clone() for g in grads]) == base     # bit-equal
    flipped = _per_param(printer, [-g for g in grads])
    scaled = _per_param(printer, [2 * g for g in grads])
    # the same length, another direction: the gradient's entries in another order
    turned = _per_param(printer, [g.reshape(-1).flip(0).reshape(g.shape) for g in grads])
    for name, norm in norms.items():
        assert _apart(flipped[name], base[name], norm)
        assert _apart(scaled[name], base[name], norm)
        assert _apart(turned[name], base[name], norm)


def test_the_global_random_stream_is_untouched():
    model = _model()
    grads = _grads(model)
    torch.manual_seed(123)
    state = torch.random.get_rng_state()
    printer = GradFingerprint(list(model.named_parameters()))
    printer(grads)          # the vectors are made here, at the first call
    printer(grads)
    assert torch.equal(torch.random.get_rng_state(), state)
    torch.manual_seed(123)
    want = torch.rand(3)
    GradFingerprint(list(model.named_parameters()))(grads)
    torch.manual_seed(123)
    GradFingerprint(list(model.named_parameters()))(grads)
    assert torch.equal(torch.rand(3), want)


def test_the_vectors_follow_the_name_not_the_order_nor_the_run():
    model = _model()
    named = list(model.named_parameters())
    grads = _grads(model)
    forward = _per_param(GradFingerprint(named), grads)
    backward = _per_param(GradFingerprint(named[::-1]), grads[::-1])
    assert forward == backward


def test_none_grads_skipped_half_grads_read_in_float32_autocast_left_off():
    model = _model()
    printer = GradFingerprint(list(model.named_parameters()))
    grads = _grads(model)
    some = [grads[0], None, grads[2], None]
    numbers = printer(some)
    assert numbers.shape == (2 * PROJECTIONS,)
    named = printer.named(numbers.tolist(), some)
    assert named["0.bias"] is None and named["2.bias"] is None
    assert named["0.weight"] == _per_param(printer, grads)["0.weight"]
    half = printer([g.half() for g in grads])
    assert half.dtype == torch.float32
    assert torch.allclose(half, printer(grads), rtol=1e-2, atol=1e-3)
    assert printer([None] * 4).numel() == 0
    with torch.autocast("cpu", dtype=torch.bfloat16):   # step() inside the user's autocast
        inside = printer(grads)
    assert inside.dtype == torch.float32 and torch.equal(inside, printer(grads))


def test_matrix_shape_keeps_the_vectors_short():
    assert matrix_shape(30) == (5, 6) and matrix_shape(64 * 576) == (192, 192)
    assert matrix_shape(7) == (1, 7) and matrix_shape(1) == (1, 1)


def test_ranks_with_equal_norms_and_a_flipped_gradient_disagree(tmp_path):
    """Two ranks' streams as a watch writes them on a sampled step: rank 1's gradient
    the negation of rank 0's, so every norm agrees."""
    model = _model()
    names = [n for n, _ in model.named_parameters()]
    grads = _grads(model)
    for rank, sign in ((0, 1.0), (1, -1.0)):
        printer = GradFingerprint(list(model.named_parameters()))
        mine = [sign * g for g in grads]
        writer = StreamWriter(tmp_path / f"rank-{rank}", {"param_names": names}).open()
        norms = {n: g.norm().item() for n, g in zip(names, mine)}
        writer.add_step(StepRecord(
            step=0, losses={"a": 1.0}, total=1.0, grad_norms=norms,
            global_grad_norm=sum(v * v for v in norms.values()) ** 0.5, saved_bytes=0,
            grad_fingerprint=_per_param(printer, mine)), 1)
        writer.close(1)
    follower = FolderFollower(tmp_path)
    follower.read()
    assert gradient_line(follower.histories) == (
        "ranks disagree: rank-1's gradient differs from rank-0's at step 0 "
        "(0.weight): same norm, different direction (after DDP's all-reduce every "
        "rank's gradient would be the same)")
