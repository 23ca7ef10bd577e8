"""A folder of made-up runs, written as gradviz.watch writes a run (watch.json and
steps.jsonl, through the same StreamWriter), for the viewer's bench, its tests and its
screenshots: each run's losses fall at its own pace with minibatch noise, every step has
its gradient norms and its wall time, and every SAMPLE_EVERY-th step its cosine matrix.
Seeded: the same arguments write the same numbers (but for the header's run id)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..records.records import StepRecord
from ..run_files.watch_stream import StreamWriter

SAMPLE_EVERY = 20          # as the watch's sampled steps: the cosines on these
STEP_SECONDS = 0.25        # a step's wall time, about (each run a little slower or faster)
STARTED = 1_700_000_000.0  # the first run's start, seconds since the epoch
PARAMS = ("trunk.0.weight", "trunk.0.bias", "trunk.2.weight", "heads.0.0.weight",
          "heads.1.0.weight", "heads.2.0.weight")


def run_names(runs: int) -> list[str]:
    return [f"lr-{3 * 10 ** -(k % 4 + 2):.0e}-seed{k}" for k in range(runs)]


def write_runs(folder: str | Path, runs: int = 4, steps: int = 300, heads: int = 2,
               seed: int = 0, finished: bool = True) -> list[Path]:
    """runs run folders of steps steps each, in folder; their paths, by name."""
    folder = Path(folder)
    return [write_run(folder / name, k, steps, heads, seed, finished)
            for k, name in enumerate(run_names(runs))]


def write_run(path: Path, k: int, steps: int, heads: int = 2, seed: int = 0,
              finished: bool = True) -> Path:
    rng = np.random.default_rng(seed * 1000 + k)
    names = [f"head{h}" for h in range(heads)]
    params = [p for p in PARAMS if not p.startswith("heads.") or int(p[6]) < heads]
    started = STARTED + 600.0 * k
    writer = StreamWriter(path, {"param_names": params, "model": "MadeUpNet",
                                 "started": started}).open()
    t = np.arange(steps, dtype=float)
    pace = 0.004 * (1 + k) ** 0.7 * 300 / max(steps, 300)
    floor = [0.05 + 0.03 * h + 0.02 * k for h in range(heads)]
    losses = np.array([floor[h] + (1.5 + 0.3 * h) * np.exp(-pace * (1 + 0.4 * h) * t)
                       for h in range(heads)])
    losses *= np.exp(rng.normal(0.0, 0.12, losses.shape))
    norms = np.abs(2.0 * np.exp(-pace * t) + 0.3 + rng.normal(0.0, 0.15, steps))
    times = started + 5.0 + np.cumsum(STEP_SECONDS * (1 + 0.15 * k)
                                      * np.exp(rng.normal(0.0, 0.2, steps)))
    drift = 0.7 - 0.9 * (1 - np.exp(-pace * t)) * (1 + 0.1 * k)
    for s in range(steps):
        losses_s = {n: float(losses[h, s]) for h, n in enumerate(names)}
        share = np.linspace(0.5, 0.1, len(params))
        cosine = None
        if s % SAMPLE_EVERY == 0:
            m = np.ones((heads, heads))
            for i in range(heads):
                for j in range(i + 1, heads):
                    m[i, j] = m[j, i] = float(np.clip(
                        drift[s] - 0.25 * (j - i - 1) + rng.normal(0.0, 0.08), -1, 1))
            cosine = m.tolist()
        writer.add_step(StepRecord(
            step=s, losses=losses_s, total=float(losses[:, s].sum()),
            grad_norms={p: float(norms[s] * f) for p, f in zip(params, share)},
            global_grad_norm=float(norms[s]), cosine=cosine), 1, wall_time=float(times[s]))
    if finished:
        writer.close(steps)
    else:
        writer.flush()
    return path
