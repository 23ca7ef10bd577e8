"""gradviz compare's truths, each against plain PyTorch written here: which loops compute
the same gradients, by how much the others differ, and what each holds in memory."""
import numpy as np
import pytest
import torch

from gradviz.core.compare import compare
from gradviz.core.session import Session
from gradviz.plain.config.config import Config, ConfigError

from core_reference import (
    batch,
    forward,
    grads_of,
    micro_batches,
    ref_net,
    snapshot,
    weighted_sum,
    weights,
)

BASE = Config(device="cpu", heads=3, trunk_width=16, batch_size=32, steps=4)


def trunk_grads(net, loss_terms_per_call):
    """The trunk's .grad after calling backward on each term in turn (retained)."""
    net.zero_grad(set_to_none=True)
    for term in loss_terms_per_call:
        term.backward(retain_graph=True)
    return torch.cat([p.grad.reshape(-1) for p in net.trunk.parameters()])


def test_sum_and_separate_compute_the_same_gradients():
    result = compare(BASE, BASE.replace(strategy="separate"), steps=4)
    assert result.same and result.verdict().startswith("same gradients")


def test_in_loop_counts_head_k_k_minus_k_times_on_the_trunk():
    result = compare(BASE, BASE.replace(strategy="in-loop"), steps=1)
    assert not result.same
    K = BASE.heads
    assert result.steps[0].junction_ratio == pytest.approx([K - k for k in range(K)], rel=1e-5)
    # plain PyTorch: the trunk gradient of sum vs `total += L_k; total.backward()`
    session = Session(BASE)
    net = ref_net(BASE, snapshot(session))
    x, targets = batch(session, 0, BASE.batch_size)
    _, losses = forward(net, x, targets)
    g_sum = trunk_grads(net, [losses[0] + losses[1] + losses[2]])
    totals, running = [], None
    for loss in losses:
        running = loss if running is None else running + loss
        totals.append(running)
    g_in_loop = trunk_grads(net, totals)
    expected = (g_in_loop - g_sum).abs().max().item()
    assert result.steps[0].groups["trunk"].max_abs == pytest.approx(expected, rel=1e-4)
    assert "B's gradient on the trunk, head 0: 3.00× A's, head 1: 2.00×" in result.verdict()


def test_accumulation_gives_the_full_batch_gradient_with_less_memory():
    n = 4
    result = compare(BASE, BASE.replace(accumulate=n), steps=3)
    assert result.same
    # plain PyTorch: the mean of n micro-batch means is the full batch mean's gradient
    session = Session(BASE)
    net = ref_net(BASE, snapshot(session))
    x, targets = batch(session, 0, BASE.batch_size)
    _, losses = forward(net, x, targets)
    full = trunk_grads(net, [sum(losses)])
    net.zero_grad(set_to_none=True)
    for xm, tm in micro_batches(session, 0, BASE.batch_size, n):
        _, micro = forward(net, xm, tm)
        (sum(micro) / n).backward()
    accumulated = torch.cat([p.grad.reshape(-1) for p in net.trunk.parameters()])
    torch.testing.assert_close(accumulated, full, rtol=1e-5, atol=1e-7)
    assert result.peak_b < result.peak_a


def test_sum_first_accumulation_same_gradients_about_n_times_the_memory():
    n = 4
    each = BASE.replace(accumulate=n)
    result = compare(each, each.replace(accumulate_mode="sum-first"), steps=3)
    assert result.same
    assert 0.8 * n <= result.peak_b / result.peak_a <= 1.2 * n


def test_detaching_head_k_is_weight_zero_on_head_k_for_the_trunk():
    a = BASE.replace(detach=(1,))
    b = BASE.replace(loss_weights=(1.0, 0.0, 1.0))
    result = compare(a, b, steps=3)
    assert all(s.groups["trunk"].max_abs == 0 for s in result.steps)
    assert result.steps[0].groups["head1"].max_abs > 0     # head 1 still trains under A
    # plain PyTorch: the trunk gradient with head 1 cut off, and with its loss weighted 0
    session = Session(BASE)
    net = ref_net(BASE, snapshot(session))
    x, targets = batch(session, 0, BASE.batch_size)
    _, cut = forward(net, x, targets, detach=(1,))
    g_cut = trunk_grads(net, [cut[0] + cut[1] + cut[2]])
    _, weighted = forward(net, x, targets)
    g_zero = trunk_grads(net, [weighted[0] + 0.0 * weighted[1] + weighted[2]])
    torch.testing.assert_close(g_cut, g_zero, rtol=0, atol=0)


def test_a_config_compared_with_itself_is_identical_bit_for_bit():
    result = compare(BASE, BASE, steps=5)
    assert result.same
    assert all(d.max_abs == 0 for s in result.steps for d in s.groups.values())
    assert result.losses_a == result.losses_b


def test_an_autograd_error_in_b_is_named():
    result = compare(BASE, BASE.replace(strategy="separate", retain_graph="never"), steps=3)
    which, event = result.error
    assert which == "B" and "backward through the graph a second time" in event.message
    assert result.verdict().startswith("B stopped at step 0")


def test_different_models_cannot_be_compared():
    with pytest.raises(ConfigError, match="heads is 3 in A, 2 in B"):
        compare(BASE, BASE.replace(heads=2), steps=1)


@pytest.mark.parametrize("change, words", [
    ({"seed": 1}, "seed is 0 in A, 1 in B"),
    ({"trunk_width": 24}, "trunk-width is 16 in A, 24 in B"),
    ({"trunk_depth": 3}, "trunk-depth is 2 in A, 3 in B"),
    ({"model": "rnn"}, "model is mlp in A, rnn in B"),
])
def test_a_b_that_starts_from_other_weights_is_refused_not_compared(change, words):
    """Another seed is another set of initial weights (the same layout): the gradients
    would differ from the first step for that alone, so no verdict is given."""
    b = BASE.replace(**change)
    if "seed" in change:   # plain PyTorch: the two seeds' first layers are not the same
        torch.manual_seed(BASE.seed)
        first_a = torch.nn.Linear(8, BASE.trunk_width).weight
        torch.manual_seed(b.seed)
        assert not torch.equal(first_a, torch.nn.Linear(8, b.trunk_width).weight)
    with pytest.raises(ConfigError, match=f"A and B must build the same model to compare: "
                                          f"{words}$"):
        compare(BASE, b, steps=1)


def _largest_per_group(cfg, grads: dict[str, torch.Tensor]) -> dict[str, float]:
    """The largest |gradient| in the trunk and in each head, from plain PyTorch."""
    groups = {"trunk": [g for n, g in grads.items() if n.startswith("trunk.")]}
    for k in range(cfg.heads):
        groups[f"head{k}"] = [g for n, g in grads.items() if n.startswith(f"heads.{k}.")]
    return {name: max(g.abs().max().item() for g in gs) for name, gs in groups.items()}


def _step0_grads(cfg):
    session = Session(cfg)
    net = ref_net(cfg, snapshot(session))
    x, targets = batch(session, 0, cfg.batch_size)
    return grads_of(net, weighted_sum(weights(cfg), forward(net, x, targets)[1]))


def test_all_zero_gradients_in_a_against_real_ones_in_b_are_different():
    """Loss weights 0 leave A with no gradient at all: its relative difference to B is
    infinite, never 0, whatever tolerance is asked for."""
    zero = BASE.replace(loss_weights=(0.0, 0.0, 0.0))
    result = compare(zero, BASE, steps=2, rtol=0.5)
    assert not result.same
    largest_b = _largest_per_group(BASE, _step0_grads(BASE))
    assert all(v > 0 for v in largest_b.values())
    first = result.steps[0]
    for group, expected in largest_b.items():   # |A - B| is all of B's gradient
        assert first.groups[group].max_abs == pytest.approx(expected, rel=1e-5), group
        assert first.groups[group].max_rel == float("inf"), group
    assert result.verdict() == ("different: trunk, head0, head1, head2 gradients are all "
                                "zero in A and not in B (step 0)")


def test_real_gradients_in_a_against_all_zero_ones_in_b_are_different():
    """The other way round, the difference is all of A's gradient (1 of its size), and
    the verdict names B's junction gradient as none of A's."""
    result = compare(BASE, BASE.replace(loss_weights=(0.0, 0.0, 0.0)), steps=1)
    assert not result.same
    largest_a = _largest_per_group(BASE, _step0_grads(BASE))
    for group, expected in largest_a.items():
        assert result.steps[0].groups[group].max_abs == pytest.approx(expected, rel=1e-5)
        assert result.steps[0].groups[group].max_rel == pytest.approx(1.0, rel=1e-6)
    assert result.steps[0].junction_ratio == [0.0, 0.0, 0.0]
    assert result.verdict() == ("different: B's gradient on the trunk, head 0: 0.00× A's, "
                                "head 1: 0.00×, head 2: 0.00× (step 0)")


def test_both_all_zero_is_the_same():
    """Nothing against nothing: identical, not infinitely different."""
    zero = BASE.replace(loss_weights=(0.0, 0.0, 0.0))
    result = compare(zero, zero.replace(strategy="separate"), steps=1)
    assert result.same
    assert all(d.max_abs == 0 and d.max_rel == 0 for d in result.steps[0].groups.values())
    assert result.verdict() == "same gradients (largest relative difference 0.0e+00, identical)"


NAMES, SIZES = ("trunk.0.weight", "heads.0.0.weight"), (3, 2)


def _diff(ga, gb):
    from gradviz.core.compare import grads_diff
    from gradviz.plain.records.records import StepRecord
    record = StepRecord(4, {"head0": 1.0}, 1.0)
    return grads_diff(np.array(ga, dtype=np.float32), np.array(gb, dtype=np.float32),
                      NAMES, SIZES, record, record)


@pytest.mark.parametrize("ga, gb, who, tail", [
    ([1, 2, 3, 4, 5], [1, 2, 3, np.inf, 5], "B", "; A's are finite"),
    ([1, np.nan, 3, 4, 5], [1, 2, 3, 4, 5], "A", "; B's are finite"),
    ([np.inf, 2, 3, 4, 5], [1, 2, 3, 4, -np.inf], "A and B", ""),
])
def test_a_side_whose_gradients_are_not_finite_is_said_to_have_diverged(ga, gb, who, tail):
    from gradviz.core.compare import steps_same, verdict
    diff = _diff(ga, gb)
    assert diff.diverged == who and not steps_same([diff], 1e-5)
    assert verdict([diff], 1e-5) == (f"different: {who}'s gradients are not finite at step 4 "
                                     f"({who} diverged{tail})")


def test_two_huge_finite_gradients_do_not_overflow_their_difference():
    from gradviz.core.compare import verdict
    ga, gb = [3e38, 1, 1, 1, 1], [-3e38, 1, 1, 1, 1]
    diff = _diff(ga, gb)
    expected = abs(float(np.float32(3e38)) - float(np.float32(-3e38)))   # in float64
    assert diff.diverged is None
    assert diff.groups["trunk"].max_abs == pytest.approx(expected, rel=1e-12)
    assert diff.groups["trunk"].max_rel == pytest.approx(2.0, rel=1e-6)
    assert verdict([diff], 1e-5) == ("different: trunk gradients differ (by up to 2 of their "
                                     "size at step 4); head0 the same")


def test_a_group_all_zero_in_a_is_said_so():
    from gradviz.core.compare import verdict
    diff = _diff([0, 0, 0, 1, 1], [1, 0, 0, 1, 1.5])
    assert verdict([diff], 1e-5) == ("different: head0 gradients differ (by up to 0.5 of "
                                     "their size at step 4); trunk gradients are all zero "
                                     "in A and not in B (step 4)")
