"""B pinned beside the app's A: a second Session, built from B's config with A's seed
(so the same data and the same initial weights), that does the same step each time A
completes one. Each pair of steps is compared as `gradviz compare` compares them
(core.compare's step_diff and verdict) and queued as a plain CompareRecord for the
window. B's probes are sampled as A's are, its gradient norms only on sampled
steps, so B costs a little less than A.

B stops at its first error and stays stopped (A goes on) until it is pinned again or
both are reset; a reset (Reset, a fresh model for A) starts both from step 0."""
from __future__ import annotations

from dataclasses import replace

from ..core import events as ev
from ..core.compare import (DEFAULT_RTOL, check_same_model, step_diff,
                            stopped_words, verdict)
from ..core.config import Config, ConfigError, validate
from ..core.records import CompareRecord, GroupDiff, StepDiff, StepRecord
from ..core.session import Session


def _largest_rel(diff: StepDiff) -> float:
    return max(d.max_rel for d in diff.groups.values())


def _larger(known: int | None, new: int | None) -> int | None:
    return known if new is None else new if known is None else max(known, new)


class PinnedB:
    def __init__(self, a: Session, config: Config, rtol: float = DEFAULT_RTOL):
        """ConfigError (nothing pinned) unless B is a config that builds A's model."""
        self.a = a
        self.config = validate(config)
        check_same_model(a.config, self.config)
        self.rtol = rtol
        self.b: Session | None = None
        self.out: list[CompareRecord] = []    # records not yet sent
        self._clear()

    def _clear(self) -> None:
        self.error: ev.Event | None = None
        self.worst: dict[str, GroupDiff] = {}
        self.peak_a: int | None = None
        self.peak_b: int | None = None
        # the latest step whose junction gradients were measured, with the configs it was
        # measured under: a step's verdict names each head's share from it between samples
        self._measured: tuple[StepDiff, Config, Config] | None = None
        # what the verdict since pinned tells: the first step that differed (or a later
        # one under the same configs whose heads' shares were measured, if it had none),
        # else the step with the largest difference
        self._first: tuple[StepDiff, Config, Config] | None = None
        self._largest: tuple[StepDiff, float] | None = None   # and its largest max_rel
        self._told: tuple[StepDiff, str] | None = None   # the verdict since pinned, in words
        self._words_due: tuple[StepDiff, StepDiff | None] | None = None  # the newest step's

    def take(self) -> list[CompareRecord]:
        """The records since the last take; the newest, the one the window shows, with
        this step's verdict in words (a step's words cost as much as comparing it, and
        at full speed a batch holds a dozen steps)."""
        out, self.out = self.out, []
        if out and self._words_due is not None:
            diff, measured = self._words_due
            out[-1] = replace(out[-1], step_verdict=verdict([diff], self.rtol, measured))
        self._words_due = None
        return out

    def _b_config(self) -> Config:
        """B's config, probed as A is (the same sampling, so the same cost)."""
        a = self.a.config
        return self.config.replace(probes=a.probes, sample_every=a.sample_every)

    # ---- life ---------------------------------------------------------------------------
    def reset(self) -> None:
        """B afresh at step 0, beside A at step 0; if A's model is no longer B's (heads,
        trunk, seed or device changed in A), B stops and says why."""
        self._clear()
        self.b = None
        try:
            config = self._b_config()
            check_same_model(self.a.config, config)
            self.b = Session(config)
            # its bars show the latest norms: measured on sampled steps, so that B costs
            # less than A and comparing stays within twice a run alone
            self.b.grad_norm_steps = "sampled"
        except ConfigError as exc:
            self._stop(ev.Event(self.a.step_index, "pin", "building B", "ConfigError",
                                str(exc), "B cannot be compared with A",
                                "B must build the same model as A (the same heads, "
                                "trunk, seed and device) to start from the same weights.",
                                "Change A back, or pin B again (Compare menu)."))
        except (RuntimeError, MemoryError) as exc:
            self._stop(ev.from_exception(exc, self.a.step_index, "pin", "building B"))

    def after_step(self, ra: StepRecord) -> None:
        """A has just completed step ra.step: B does the same step, and the two are
        compared. Nothing here may stop A: a failure of ours stops B alone."""
        b = self.b
        if b is None or self.error is not None:
            return
        if b.step_index != ra.step:     # out of step (A restarted): B waits for A's step 0
            if ra.step != 0:
                return
            self.reset()
            if self.b is None:
                return
            b = self.b
        try:
            self._follow_probes(b)
            rb = b.step()
            if rb is None:
                self._stop(b.error)
                return
            self._compare(ra, b, rb)
        except Exception as exc:  # a bug of ours must not take A (or the lecture) down
            self._stop(ev.from_exception(exc, ra.step, "internal", "gradviz itself (B)"))

    def _follow_probes(self, b: Session) -> None:
        a = self.a.config
        b.sample_floor = self.a.sample_floor
        if (b.config.probes, b.config.sample_every) != (a.probes, a.sample_every):
            b.set_config(b.config.replace(probes=a.probes, sample_every=a.sample_every))

    def _compare(self, ra: StepRecord, b: Session, rb: StepRecord) -> None:
        diff = step_diff(self.a, b, ra, rb)
        configs = (self.a.config, b.config)
        if diff.junction_ratio is not None:
            self._measured = (diff, *configs)
        measured = None
        if self._measured is not None and self._measured[1:] == configs:
            measured = self._measured[0]
        largest_rel = _largest_rel(diff)
        step_same = largest_rel <= self.rtol   # steps_same([diff]), already at hand
        first = self._first
        if not step_same and (first is None or (first[0].junction_ratio is None and
                                                diff.junction_ratio is not None and
                                                first[1:] == configs)):
            self._first = (diff, *configs)
        if self._largest is None or largest_rel > self._largest[1]:
            self._largest = (diff, largest_rel)
        for group, d in diff.groups.items():
            known = self.worst.get(group)
            if known is None or d.max_abs > known.max_abs or d.max_rel > known.max_rel:
                self.worst[group] = GroupDiff(max(d.max_abs, known.max_abs if known else 0.0),
                                              max(d.max_rel, known.max_rel if known else 0.0))
        self.peak_a = _larger(self.peak_a, ra.saved_bytes_peak)
        self.peak_b = _larger(self.peak_b, rb.saved_bytes_peak)
        told = self._largest[0] if self._first is None else self._first[0]
        if self._told is None or self._told[0] is not told:   # words only when it changes
            self._told = (told, verdict([told], self.rtol))
        self._words_due = (diff, measured)   # put in words by take(), for the newest only
        self.out.append(CompareRecord(
            ra.step, self._told[1], self._first is None, "", step_same,
            diff, rb, dict(self.worst), self.peak_a, self.peak_b))

    def _stop(self, event: ev.Event) -> None:
        self.error = event
        self._words_due = None
        words = stopped_words("B", event)
        self.out.append(CompareRecord(event.step, words, False, words, False,
                                      worst=dict(self.worst), peak_a=self.peak_a,
                                      peak_b=self.peak_b, error=event))
