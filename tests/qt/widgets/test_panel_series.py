"""The numpy helpers behind the panels: EMA, joining sparse samples, byte units."""
import numpy as np
import pytest

from gradviz.qt.widgets.series import ema, join_samples


def loop_ema(x, alpha):
    """The textbook recurrence, one value at a time; NaN holds the previous value."""
    out, prev = [], None
    for v in x:
        if np.isfinite(v):
            prev = v if prev is None else (1 - alpha) * prev + alpha * v
        out.append(np.nan if prev is None else prev)
    return np.array(out)


@pytest.mark.parametrize("n", [1, 7, 256, 257, 5_000])
def test_ema_matches_the_recurrence(n):
    x = np.random.default_rng(n).uniform(0, 10, n)
    np.testing.assert_allclose(ema(x, 0.05), loop_ema(x, 0.05), rtol=1e-10)


def test_ema_skips_nan_and_starts_at_the_first_finite_value():
    x = np.array([np.nan, np.nan, 2.0, 4.0, np.nan, np.inf, 1.0] * 100)
    got = ema(x, 0.1)
    np.testing.assert_allclose(got, loop_ema(x, 0.1), rtol=1e-10)
    assert np.isnan(got[:2]).all() and got[2] == 2.0


def test_ema_continued_in_pieces_equals_ema_of_the_whole():
    x = np.random.default_rng(1).uniform(0, 1, 1000)
    first = ema(x[:333], 0.05)
    rest = ema(x[333:], 0.05, start=first[-1])
    np.testing.assert_allclose(np.concatenate([first, rest]), ema(x, 0.05), rtol=1e-10)


def test_ema_of_all_nan_is_all_nan():
    assert np.isnan(ema(np.full(5, np.nan), 0.05)).all()


def test_join_samples_links_samples_taken_every_n_steps():
    x = np.arange(100.0)
    y = np.where(x % 5 == 0, x * 2, np.nan)
    jx, jy = join_samples(x, y)
    np.testing.assert_array_equal(jx, np.arange(0, 100, 5))
    np.testing.assert_array_equal(jy, np.arange(0, 100, 5) * 2)


def test_join_samples_breaks_the_line_where_sampling_stopped():
    x = np.arange(200.0)
    y = np.where((x < 50) | (x >= 150), 1.0, np.nan)  # probes off from 50 to 149
    jx, jy = join_samples(x, y)
    gap = np.flatnonzero(np.isnan(jx))
    assert len(gap) == 1 and jx[gap[0] - 1] == 49 and jx[gap[0] + 1] == 150
    assert np.isfinite(jy).sum() == 100


def test_join_samples_survives_a_change_of_sampling_rate():
    x = np.arange(400.0)
    y = np.where((x < 200) & (x % 10 != 0), np.nan, 1.0)  # every 10, then every step
    jx, _ = join_samples(x, y)
    assert np.isnan(jx).sum() <= 1  # at most one break, at the switch
