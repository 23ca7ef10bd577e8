"""Two configurations trained in lockstep on the same data and the same initial weights,
their gradients compared step by step: are the two loops the same computation?

Gradients are compared per parameter group (the trunk, each head) as each optimizer
step used them; a group's relative difference is its largest absolute difference over
the largest gradient in A's group, so one tiny element cannot make a verdict.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch
from torch._utils import _flatten_dense_tensors

from ..plain.config.config import Config, ConfigError
from ..plain.config.same_model import model_difference
from ..plain.records.events import Event
from ..plain.records.records import GroupDiff, StepDiff, StepRecord
from .model_file import ModelFile
from .session import Session

DEFAULT_RTOL = 1e-5


def group_of(param_name: str) -> str:
    """"trunk" for trunk parameters, "headK" for head K's."""
    parts = param_name.split(".")
    return "trunk" if parts[0] == "trunk" else f"head{parts[1]}"


@dataclass
class Comparison:
    a: Config
    b: Config
    rtol: float
    steps: list[StepDiff] = field(default_factory=list)
    losses_a: dict[str, float] | None = None      # at the last step compared
    losses_b: dict[str, float] | None = None
    peak_a: int | None = None                      # peak saved bytes over the run
    peak_b: int | None = None
    error: tuple[str, Event] | None = None         # ("A" or "B", what PyTorch raised)

    def worst(self, group: str) -> GroupDiff:
        diffs = [s.groups[group] for s in self.steps]
        return GroupDiff(max(d.max_abs for d in diffs), max(d.max_rel for d in diffs))

    @property
    def groups(self) -> list[str]:
        return list(self.steps[0].groups) if self.steps else []

    @property
    def same(self) -> bool:
        return self.error is None and steps_same(self.steps, self.rtol)

    def verdict(self) -> str:
        if self.error is not None:
            return stopped_words(*self.error)
        return verdict(self.steps, self.rtol)


def largest_rel(diff: StepDiff) -> float:
    """A step's largest relative difference over its groups."""
    return max(d.max_rel for d in diff.groups.values())


def step_differs(diff: StepDiff, rtol: float) -> bool:
    """A group beyond rtol, or a side not finite ("not <=": a NaN differs too)."""
    return diff.diverged is not None or any(not d.max_rel <= rtol
                                            for d in diff.groups.values())


def steps_same(steps: list[StepDiff], rtol: float) -> bool:
    """Every group of every step within rtol (and at least one step compared)."""
    return bool(steps) and not any(step_differs(s, rtol) for s in steps)


def stopped_words(which: str, event: Event) -> str:
    return f"{which} stopped at step {event.step}: {event.title} ({event.message})"


class Verdict:
    """The verdict on A's and B's steps so far, fed one step at a time: by the app's
    pinned B as both train (engine.pinned), and by `gradviz compare` over its steps
    (verdict()). One rule and one wording for both: told by the first step that
    differs, else by the step with the largest difference.

    A step fed with `configs` (the app's A and B configs when it was measured): where
    the first step that differed has no heads' shares (the app samples them) and a
    later one under the same configs has, that later one tells the difference."""

    def __init__(self, rtol: float):
        self.rtol = rtol
        self.first: StepDiff | None = None    # the step that tells the difference
        self._first_configs: object = None
        self.largest: StepDiff | None = None  # the step with the largest difference
        self._largest_rel = -math.inf
        self._words: tuple[StepDiff, str] | None = None   # the words last made, and of

    def add(self, diff: StepDiff, configs: object = None) -> None:
        first = self.first
        if step_differs(diff, self.rtol) and (
                first is None or (first.junction_ratio is None and diff.junction_ratio
                                  is not None and self._first_configs == configs)):
            self.first, self._first_configs = diff, configs
        rel = largest_rel(diff)
        if self.largest is None or rel > self._largest_rel:
            self.largest, self._largest_rel = diff, rel

    @property
    def same(self) -> bool:
        """No step fed so far differs (and at least one was fed)."""
        return self.largest is not None and self.first is None

    def words(self) -> str:
        """The verdict in words (made again only when the step that tells it changes:
        the app asks after every step)."""
        told = self.first if self.first is not None else self.largest
        if told is None:
            return "nothing compared (0 steps)"
        if self._words is None or self._words[0] is not told:
            self._words = (told, step_words(told, self.rtol))
        return self._words[1]


def step_words(diff: StepDiff, rtol: float, measured: StepDiff | None = None) -> str:
    """One step told in words: 'same gradients (largest relative difference 3.7e-07,
    float rounding)' or 'different: B's gradient on the trunk, head 0: 3.00× A's, head
    1: 2.00× (step 0)'. `measured`: the latest step whose junction gradients were
    measured, for the heads' shares where this step has none (the app samples them)."""
    if not step_differs(diff, rtol):
        largest = largest_rel(diff)
        why = "identical" if largest == 0 else "float rounding"
        return f"same gradients (largest relative difference {largest:.1e}, {why})"
    return "different: " + _difference(diff, rtol, measured)


def verdict(steps: list[StepDiff], rtol: float) -> str:
    """The verdict on these steps in words, as Verdict tells it."""
    told = Verdict(rtol)
    for step in steps:
        told.add(step)
    return told.words()


def _difference(first: StepDiff, rtol: float, measured: StepDiff | None) -> str:
    if first.diverged is not None:
        who = first.diverged
        other = {"A": "; B's are finite", "B": "; A's are finite"}.get(who, "")
        return f"{who}'s gradients are not finite at step {first.step} ({who} diverged{other})"
    told_by = first if first.junction_ratio or measured is None else measured
    ratios = told_by.junction_ratio or []
    # only ratios that read other than 1.00×: BatchNorm moves every head's push by a
    # fraction of a percent, which "1.00×, 1.00×" would call different in words of same
    told = [f"head {k}: {r:.2f}×" for k, r in enumerate(ratios)
            if r is not None and f"{r:.2f}" != "1.00"]
    if told:   # both sides named: "0.33×" alone read backwards when B was the pinned one
        told[0] = "B's gradient on the trunk, " + told[0] + " A's"
        return ", ".join(told) + f" (step {told_by.step})"
    differ = [g for g, d in first.groups.items() if not d.max_rel <= rtol]
    same = [g for g in first.groups if g not in differ]
    # a relative difference is infinite where A's gradient is all zero and B's is not
    zero_in_a = [g for g in differ if math.isinf(first.groups[g].max_rel)]
    sized = [g for g in differ if g not in zero_in_a]
    parts = []
    if sized:
        worst = max(first.groups[g].max_rel for g in sized)
        parts.append(f"{', '.join(sized)} gradients differ (by up to {worst:.2g} of their "
                     f"size at step {first.step})")
    if zero_in_a:
        parts.append(f"{', '.join(zero_in_a)} gradients are all zero in A and not in B "
                     f"(step {first.step})")
    return "; ".join(parts) + (f"; {', '.join(same)} the same" if same else "")


def check_same_model(a: Config, b: Config) -> None:
    """ConfigError unless A and B build the same model from the same seed."""
    difference = model_difference(a, b)
    if difference is not None:
        raise ConfigError(f"A and B must build the same model to compare: {difference}")


def _grads_or_zeros(params: Sequence[torch.Tensor]) -> list[torch.Tensor]:
    return [torch.zeros_like(p) if p.grad is None else p.grad for p in params]


def flat_grads(session: Session) -> np.ndarray:
    """One session's gradients as they stand, in parameter order, as one host vector
    (zeros where a parameter has none): a copy, which the next step leaves alone."""
    return _flatten_dense_tensors(_grads_or_zeros(session.params)).detach().cpu().numpy()


def _flat_grads(sa: Session, sb: Session) -> tuple[np.ndarray, np.ndarray]:
    """A's and B's gradients as flat_grads gives each, in one concatenation for both
    (on the CPU a third less than two)."""
    flat = _flatten_dense_tensors(_grads_or_zeros(sa.params + sb.params))
    flat = flat.detach().cpu().numpy()
    n = sum(sa.param_sizes)   # the same model: the same sizes
    return flat[:n], flat[n:]


@functools.lru_cache(maxsize=16)
def _layout(names: tuple[str, ...], sizes: tuple[int, ...]) -> tuple[np.ndarray, list[str]]:
    """Where each run of parameters of one group (the trunk, each head) begins in the
    flat vector, and the group of each run. Parameters come in model order, so each
    group is one run; a model whose groups interleave would only give more runs."""
    starts: list[int] = []
    groups: list[str] = []
    at = 0
    for name, size in zip(names, sizes):
        group = group_of(name)
        if not groups or groups[-1] != group:
            starts.append(at)
            groups.append(group)
        at += size
    return np.array(starts, dtype=np.intp), groups


def step_diff(sa: Session, sb: Session, ra: StepRecord, rb: StepRecord) -> StepDiff:
    """A's and B's gradients of the step each has just done, compared per parameter group
    (the trunk, each head): the largest |A - B| and that over the largest |A| in the group.

    Read after the step: optimizer.step() leaves .grad as backward made it (it changes
    the parameters) and nothing touches it until the next step's zero_grad, so these are
    the gradients the step used. gradviz compare calls this every step (the app's pinned
    B, grads_diff), and it is most of what comparing adds to training B: so the arithmetic
    is done in numpy on one flat vector each, two reductions over the runs of each group
    (a dozen small torch operations cost a fifth of a step)."""
    ga, gb = _flat_grads(sa, sb)
    return grads_diff(ga, gb, tuple(sa.param_names), sa.param_sizes, ra, rb)


def grads_diff(ga: np.ndarray, gb: np.ndarray, names: tuple[str, ...],
               sizes: tuple[int, ...], ra: StepRecord, rb: StepRecord) -> StepDiff:
    """step_diff on gradients already flattened (as flat_grads does), of a model whose
    parameters have these names and sizes."""
    starts, groups = _layout(names, sizes)
    # an overflow or inf - inf is found below and told in words, not warned about (2 µs)
    with np.errstate(over="ignore", invalid="ignore"):
        max_diff = np.maximum.reduceat(np.abs(ga - gb), starts).tolist()
    diverged = None
    if not math.isfinite(sum(max_diff)):   # rare: a side not finite, or float32 overflow
        diverged = _not_finite(ga, gb)
        if diverged is None:   # two huge finite gradients: their difference in float64
            max_diff = np.maximum.reduceat(np.abs(ga.astype(np.float64) - gb),
                                           starts).tolist()
    max_a = np.maximum.reduceat(np.abs(ga), starts).tolist()
    largest: dict[str, list[float]] = {}
    for group, d, a in zip(groups, max_diff, max_a):
        known = largest.setdefault(group, [d, a])
        known[0], known[1] = max(known[0], d), max(known[1], a)
    out = {}
    for group, (max_abs, largest_a) in largest.items():
        rel = max_abs / largest_a if largest_a > 0 else (0.0 if max_abs == 0 else math.inf)
        out[group] = GroupDiff(max_abs, rel)
    return StepDiff(ra.step, out, ra.total, rb.total, ra.saved_bytes_peak,
                    rb.saved_bytes_peak, _junction_ratio(ra, rb), diverged)


def _not_finite(ga: np.ndarray, gb: np.ndarray) -> str | None:
    """Whose gradients hold an infinity or a NaN: "A", "B", "A and B", or None."""
    bad = [name for name, g in (("A", ga), ("B", gb)) if not np.isfinite(g).all()]
    return " and ".join(bad) or None


def _junction_ratio(ra: StepRecord, rb: StepRecord) -> list[float | None] | None:
    """Per head, in order, B's junction gradient norm over A's (None where A's is 0)."""
    ja, jb = ra.junction_grad_norms, rb.junction_grad_norms
    if not ja or not jb:
        return None
    return [jb[h] / a if a else None for h, a in ja.items()]


def _measured(config: Config) -> Config:
    """Junction gradients every step (the verdict names each head's share by them)."""
    probes = "default" if config.probes == "none" else config.probes
    return config.replace(probes=probes, sample_every=1)


def compare(a: Config, b: Config, steps: int, rtol: float = DEFAULT_RTOL,
            model_file: ModelFile | None = None) -> Comparison:
    """Train A and B side by side for `steps` steps and compare their gradients (of the
    model a model file builds, if given: both build it from the same seed)."""
    check_same_model(a, b)
    sa, sb = Session(_measured(a), model_file), Session(_measured(b), model_file)
    for session in (sa, sb):   # the gradients are compared from .grad itself
        session.grad_norm_steps = "none"
        session.measure_update_cosine = False
    result = Comparison(a, b, rtol)
    for _ in range(steps):
        ra, rb = sa.step(), sb.step()
        if ra is None or rb is None:
            which, stopped = ("A", sa) if ra is None else ("B", sb)
            if stopped.error is not None:   # always, when step() gave None
                result.error = (which, stopped.error)
            break
        result.steps.append(step_diff(sa, sb, ra, rb))
        result.losses_a, result.losses_b = ra.losses, rb.losses
        result.peak_a = max(result.peak_a or 0, ra.saved_bytes_peak or 0)
        result.peak_b = max(result.peak_b or 0, rb.saved_bytes_peak or 0)
    return result
