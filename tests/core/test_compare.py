"""gradviz compare's truths, each against plain PyTorch written here: which loops compute
the same gradients, by how much the others differ, and what each holds in memory."""
import numpy as np
import pytest
import torch

from gradviz.core.compare import compare
from gradviz.core.config import Config, ConfigError
from gradviz.core.session import Session

from core_reference import batch, forward, micro_batches, ref_net, snapshot

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


NAMES, SIZES = ("trunk.0.weight", "heads.0.0.weight"), (3, 2)


def _diff(ga, gb):
    from gradviz.core.compare import grads_diff
    from gradviz.core.records import StepRecord
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
