"""Numpy helpers the plot panels share: smoothing and sparse-sample joining (byte
units are render.style.byte_unit).

Pure numpy (no Qt) so they are cheap to test and cheap to run 25 times a second.
"""
from __future__ import annotations

import numpy as np

# Longest run of points handled in closed form: (1 - alpha) ** -BLOCK must stay far from
# overflow and from losing precision (0.95 ** -256 is about 5e5).
_BLOCK = 256


def ema(values: np.ndarray, alpha: float, start: float = np.nan) -> np.ndarray:
    """Exponential moving average y_t = (1 - alpha) y_{t-1} + alpha x_t, vectorised.

    y starts at the first finite x (or continues from `start`, the previous y, so that
    a growing series can be smoothed incrementally). Non-finite x are skipped: y holds
    its previous value there, so one diverged step does not poison the rest.
    """
    x = np.asarray(values, dtype=float)
    out = np.full(x.shape, np.nan)
    finite = np.isfinite(x)
    prev = float(start)
    if not np.isfinite(prev):
        if not finite.any():
            return out
        first = int(np.argmax(finite))
        prev, lo = x[first], first
    else:
        lo = 0
    decay = 1.0 - alpha
    for a in range(lo, len(x), _BLOCK):
        b = min(a + _BLOCK, len(x))
        ok = finite[a:b]
        w = np.where(ok, alpha, 0.0)                  # weight of each new point
        keep = np.cumprod(np.where(ok, decay, 1.0))   # how much of prev survives to t
        # y_t = keep_t * (prev + sum_{i<=t} w_i x_i / keep_i), the recurrence unrolled
        terms = np.where(ok, w * np.where(ok, x[a:b], 0.0) / keep, 0.0)
        out[a:b] = keep * (prev + np.cumsum(terms))
        prev = out[b - 1]
    return out


def join_samples(x: np.ndarray, y: np.ndarray, gap_factor: float = 3.0
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Drop unsampled (NaN) points but keep real gaps as line breaks.

    Probes sample every N steps, so between two samples there are N - 1 NaNs; plotted
    with connect="finite" such a series would show no line at all. Here the samples are
    joined, and a NaN is put back only where two samples are more than `gap_factor`
    times further apart than their neighbours are (the probe was off for a while).
    Comparing with neighbours, not one global interval, keeps a change of N mid-run
    from breaking every segment.
    """
    ok = np.isfinite(x) & np.isfinite(y)
    xs, ys = x[ok], y[ok]
    if len(xs) < 3:
        return xs, ys
    d = np.diff(xs)
    before = np.concatenate([d[:1], d[:-1]])
    after = np.concatenate([d[1:], d[-1:]])
    breaks = np.flatnonzero(d > gap_factor * np.minimum(before, after)) + 1
    if len(breaks) == 0:
        return xs, ys
    return np.insert(xs, breaks, np.nan), np.insert(ys, breaks, np.nan)
