"""TensorBoard's smoothing, checked against its formula written out in the test as a
plain loop (TensorBoard's classicSmoothing, data_transformer.ts): the debiased moving
average, non-finite points drawn as they are, a constant line unchanged, a growing line
extended from where it stopped."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gradviz.plain.charts.smoothing import Smoothed, Smoothings, clamp_weight


def debiased_ema(values: np.ndarray, weight: float) -> np.ndarray:
    """The whole line smoothed at weight, as a chart's line is from its first point."""
    return Smoothed(weight).extend(values)


def tensorboard(values: list[float], weight: float) -> list[float]:
    """The formula as TensorBoard's scalar charts apply it, point by point."""
    if not math.isfinite(weight):
        weight = 0.0
    weight = max(0.0, min(weight, 1.0))
    if all(v == values[0] for v in values):
        return list(values)
    last, count, out = 0.0, 0, []
    for v in values:
        if not math.isfinite(v):
            out.append(v)
            continue
        last = last * weight + (1 - weight) * v
        count += 1
        out.append(last / (1 if weight == 1 else 1 - weight ** count))
    return out


def test_tensorboards_own_example():
    # data_transformer_test.ts: "omits not finite values in smoothing", at 0.6
    got = debiased_ema(np.array([-np.inf, 1.0, np.nan, np.inf, 0.5]), 0.6)
    np.testing.assert_array_equal(got[:4], [-np.inf, 1.0, np.nan, np.inf])
    assert got[4] == pytest.approx(0.6875)


@pytest.mark.parametrize("weight", [0.0, 0.01, 0.3, 0.5, 0.53, 0.6, 0.9, 0.95, 0.99, 1.0])
def test_every_weight_of_the_slider_as_tensorboard_draws_it(weight):
    rng = np.random.default_rng(7)
    y = 3.0 + rng.normal(size=3000).cumsum()
    y[[5, 700, 2500]] = [np.nan, np.inf, np.nan]
    np.testing.assert_allclose(debiased_ema(y, weight), tensorboard(list(y), weight),
                               rtol=1e-9, atol=1e-12)


@given(st.lists(st.floats(-1e6, 1e6) | st.just(math.nan), min_size=1, max_size=300),
       st.floats(0.0, 0.99))
def test_any_line(values, weight):
    np.testing.assert_allclose(debiased_ema(np.array(values), weight),
                               tensorboard(values, weight), rtol=1e-7, atol=1e-6)


def test_the_line_starts_at_its_first_value_not_below_it():
    # the debiasing: without it, a line of losses near 5 would start near 0.05 at 0.99
    got = debiased_ema(np.array([5.0, 5.1, 4.9, 5.0]), 0.99)
    assert got[0] == 5.0 and all(4.9 <= v <= 5.1 for v in got)


def test_a_constant_line_is_drawn_unchanged():
    y = np.full(1000, 0.1)
    np.testing.assert_array_equal(debiased_ema(y, 0.9), y)


def test_a_growing_line_is_extended_as_if_smoothed_whole():
    rng = np.random.default_rng(3)
    y = rng.normal(size=5000)
    y[17] = np.nan
    line = Smoothed(0.8)
    for end in (1, 2, 17, 18, 400, 4999, 5000):
        got = line.extend(y[:end])
    np.testing.assert_allclose(got, tensorboard(list(y), 0.8), rtol=1e-9, atol=1e-12)
    # a shorter line is another one: smoothed afresh
    np.testing.assert_allclose(line.extend(y[:10]), tensorboard(list(y[:10]), 0.8))


def test_a_chart_s_lines_start_again_at_a_new_weight():
    lines = Smoothings()
    y = np.array([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(lines.line("a", y), y)   # weight 0: unsmoothed
    assert lines.set_weight(0.5) and not lines.set_weight(0.5)
    np.testing.assert_allclose(lines.line("a", y), tensorboard([1.0, 2.0, 3.0], 0.5))


@pytest.mark.parametrize("given_weight, taken", [(math.nan, 0.0), (-1.0, 0.0),
                                                  (math.inf, 0.0), (2.0, 1.0), (0.6, 0.6)])
def test_weights_are_clamped_as_tensorboard_clamps_them(given_weight, taken):
    assert clamp_weight(given_weight) == taken
