"""Two configurations trained in lockstep on the same data and the same initial weights,
their gradients compared step by step: are the two loops the same computation?

Gradients are compared per parameter group (the trunk, each head) just before each
optimizer step; a group's relative difference is its largest absolute difference over
the largest gradient in A's group, so one tiny element cannot make a verdict.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch

from .config import RESET_KEYS, Config, ConfigError
from .events import Event
from .session import Session

DEFAULT_RTOL = 1e-5
# keys that build the model: A and B must agree on them to start from the same weights
# (misplacing a head moves it, which is a lesson to compare, not another model)
SAME_MODEL_KEYS = tuple(sorted(RESET_KEYS - {"misplace_head"}))


def group_of(param_name: str) -> str:
    """"trunk" for trunk parameters, "headK" for head K's."""
    parts = param_name.split(".")
    return "trunk" if parts[0] == "trunk" else f"head{parts[1]}"


@dataclass
class GroupDiff:
    max_abs: float
    max_rel: float


@dataclass
class StepDiff:
    step: int
    groups: dict[str, GroupDiff]
    total_a: float = math.nan          # each loop's total loss at this step (ghost lines)
    total_b: float = math.nan
    peak_a: int | None = None          # saved bytes at this step's peak
    peak_b: int | None = None
    # head k's gradient at the junction z in B over A's (None where A's is zero)
    junction_ratio: list[float | None] | None = None


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
        return bool(self.steps) and self.error is None and all(
            d.max_rel <= self.rtol for s in self.steps for d in s.groups.values())

    def verdict(self) -> str:
        if self.error is not None:
            which, event = self.error
            return f"{which} stopped at step {event.step}: {event.title} ({event.message})"
        if not self.steps:
            return "nothing compared (0 steps)"
        largest = max(d.max_rel for s in self.steps for d in s.groups.values())
        if self.same:
            why = "identical" if largest == 0 else "float rounding"
            return f"same gradients (largest relative difference {largest:.1e}, {why})"
        return "different: " + self._difference()

    def _difference(self) -> str:
        first = next(s for s in self.steps
                     if any(d.max_rel > self.rtol for d in s.groups.values()))
        ratios = first.junction_ratio or []
        told = [f"head {k}'s {r:.2f}×" for k, r in enumerate(ratios)
                if r is not None and abs(r - 1) > 1e-3]
        if told:
            told[0] = told[0].replace("'s ", "'s gradient on the trunk is ", 1) + " A's"
            return ", ".join(told) + f" (step {first.step})"
        differ = [g for g, d in first.groups.items() if d.max_rel > self.rtol]
        same = [g for g in first.groups if g not in differ]
        worst = max(first.groups[g].max_rel for g in differ)
        text = (f"{', '.join(differ)} gradients differ (by up to {worst:.2g} of their size "
                f"at step {first.step})")
        return text + (f"; {', '.join(same)} the same" if same else "")


def check_same_model(a: Config, b: Config) -> None:
    """ConfigError unless A and B build the same model from the same seed."""
    for key in SAME_MODEL_KEYS:
        va, vb = getattr(a, key), getattr(b, key)
        if va != vb:
            raise ConfigError(f"A and B must build the same model to compare: "
                              f"{key.replace('_', '-')} is {va} in A, {vb} in B")


def _grads(session: Session) -> list[torch.Tensor]:
    return [torch.zeros_like(p) if p.grad is None else p.grad.detach().clone()
            for p in session.params]


def _diff(names: list[str], ga: list[torch.Tensor], gb: list[torch.Tensor]) -> dict:
    """Per group: (largest |A - B|, that over the largest |A|), one transfer for all."""
    groups: dict[str, list[int]] = {}
    for i, name in enumerate(names):
        groups.setdefault(group_of(name), []).append(i)
    stats = []
    for indices in groups.values():
        diff = torch.stack([(ga[i] - gb[i].to(ga[i].device)).abs().max() for i in indices])
        size = torch.stack([ga[i].abs().max() for i in indices])
        stats.append(torch.stack([diff.max(), size.max()]))
    values = torch.stack(stats).tolist()
    out = {}
    for group, (max_abs, size) in zip(groups, values):
        rel = max_abs / size if size > 0 else (0.0 if max_abs == 0 else math.inf)
        out[group] = GroupDiff(max_abs, rel)
    return out


def _junction_ratio(ra, rb, head_names: list[str]) -> list[float | None] | None:
    ja, jb = ra.junction_grad_norms, rb.junction_grad_norms
    if not ja or not jb:
        return None
    return [jb[h] / ja[h] if ja[h] else None for h in head_names]


def _measured(config: Config) -> Config:
    """Junction gradients every step (the verdict names each head's share by them)."""
    probes = "default" if config.probes == "none" else config.probes
    return config.replace(probes=probes, sample_every=1)


def compare(a: Config, b: Config, steps: int, rtol: float = DEFAULT_RTOL) -> Comparison:
    """Train A and B side by side for `steps` steps and compare their gradients."""
    check_same_model(a, b)
    sa, sb = Session(_measured(a)), Session(_measured(b))
    result = Comparison(a, b, rtol)
    held: dict[str, list[torch.Tensor]] = {}
    sa.before_optimizer_step.append(lambda s: held.__setitem__("a", _grads(s)))
    sb.before_optimizer_step.append(lambda s: held.__setitem__("b", _grads(s)))
    for _ in range(steps):
        ra, rb = sa.step(), sb.step()
        if ra is None or rb is None:
            result.error = ("A", sa.error) if ra is None else ("B", sb.error)
            break
        result.steps.append(StepDiff(ra.step, _diff(sa.param_names, held["a"], held["b"]),
                                     ra.total, rb.total, ra.saved_bytes_peak,
                                     rb.saved_bytes_peak,
                                     _junction_ratio(ra, rb, a.head_names())))
        result.losses_a, result.losses_b = ra.losses, rb.losses
        result.peak_a = max(result.peak_a or 0, ra.saved_bytes_peak or 0)
        result.peak_b = max(result.peak_b or 0, rb.saved_bytes_peak or 0)
    return result
