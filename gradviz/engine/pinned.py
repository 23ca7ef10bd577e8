"""B pinned beside the app's A: a second Session, built from B's config with A's seed
(so the same data and the same initial weights), that does the same step each time A
completes one. Each pair of steps is compared as `gradviz compare` compares them
(core.compare's grads_diff) and queued as a plain CompareRecord for the window; the
verdict since pinned is core.compare's Verdict, fed step by step: the same rule and
words as `gradviz compare`'s. B's probes are sampled as A's are, its gradient norms
only on sampled steps, so B costs a little less than A.

B lives in a runner (engine.b_runner): in this process, or in a process of its own that
does B's step k while A does its step k + 1; either way step k is compared as soon as
both are done (at A's next step, or when the engine sends what happened).

B stops at its first error and stays stopped (A goes on) until it is pinned again or
both are reset; a reset (Reset, a fresh model for A) starts both from step 0."""
from __future__ import annotations

import collections
from dataclasses import replace

from ..core.compare import (
    DEFAULT_RTOL,
    Verdict,
    check_same_model,
    flat_grads,
    grads_diff,
    step_differs,
    step_words,
    stopped_words,
)
from ..core.session import Session
from ..plain.config.config import Config, ConfigError, validate
from ..plain.records import events as ev
from ..plain.records.records import CompareRecord, GroupDiff, StepDiff, StepRecord
from . import protocol as p
from .b_runner import LocalB

# B's steps asked for and not yet compared, at most: B's process works through them
# while A trains on, so neither waits for the other at each step; the window's
# comparison is then at most this many steps behind A's own numbers
MAX_AHEAD = 4


def _larger(known: int | None, new: int | None) -> int | None:
    return known if new is None else new if known is None else max(known, new)


class PinnedB:
    def __init__(self, a: Session, config: Config, rtol: float = DEFAULT_RTOL,
                 runner=None):
        """ConfigError (nothing pinned) unless B is a config that builds A's model.
        runner: where B trains (engine.b_runner's LocalB, the default, or ProcessB)."""
        self.a = a
        self.config = validate(config)
        check_same_model(a.config, self.config)
        self.rtol = rtol
        self.b = runner if runner is not None else LocalB()
        self.b_config = self.config      # B's config as B's session has it now
        self.out: list[CompareRecord] = []    # records not yet sent
        # the steps B is doing, oldest first: A's record, A's gradients (copied: A's next
        # step zeroes them) and both configs, until B's reply comes
        self._started: collections.deque[tuple[StepRecord, object, tuple]] = \
            collections.deque()
        self._building = False   # B's reset asked for, its reply not read yet
        self._clear()

    def _clear(self) -> None:
        self.error: ev.Event | None = None
        self.worst: dict[str, GroupDiff] = {}
        self.peak_a: int | None = None
        self.peak_b: int | None = None
        # the latest step whose junction gradients were measured, with the configs it was
        # measured under: a step's verdict names each head's share from it between samples
        self._measured: tuple[StepDiff, Config, Config] | None = None
        self.verdict = Verdict(self.rtol)   # since pinned (or the last reset)
        self._words_due: tuple[StepDiff, StepDiff | None] | None = None  # the newest step's

    def take(self) -> list[CompareRecord]:
        """The records since the last take; the newest, the one the window shows, with
        this step's verdict in words (a step's words cost as much as comparing it, and
        at full speed a batch holds a dozen steps)."""
        self.collect(wait=False)
        out, self.out = self.out, []
        if out and self._words_due is not None:
            diff, measured = self._words_due
            out[-1] = replace(out[-1], step_verdict=step_words(diff, self.rtol, measured))
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
        self._building = False
        self._clear()
        self._started.clear()
        config = self._b_config()
        try:
            check_same_model(self.a.config, config)
        except ConfigError as exc:
            self._stop(ev.Event(self.a.step_index, "pin", "building B", "ConfigError",
                                str(exc), "B cannot be compared with A",
                                "B must build the same model as A (the same heads, "
                                "trunk, seed and device) to start from the same weights.",
                                "Change A back, or pin B again (Compare menu).",
                                source="gradviz"))
            return
        self.b_config = config
        a_file = self.a.model_file   # B trains A's model file too, in B's own process
        reply = self.b.reset(config, None if a_file is None else str(a_file.path))
        self._building = isinstance(reply, p.BPending)   # B's process answers when it can
        if not isinstance(reply, (p.BReady, p.BPending)):
            self._stop(self._event_of(reply, self.a.step_index, "building B"))

    def _built(self, wait: bool = False) -> bool:
        """B is built (its reset's reply read, if it was pending), or stopped: a reply
        that is not BReady stops B. wait: for as long as B's process beats."""
        if self._building and self.error is None and (wait or self.b.ready()):
            self._building = False
            reply = self.b.reply()
            if not isinstance(reply, p.BReady):
                self._stop(self._event_of(reply, self.a.step_index, "building B"))
        return not self._building or self.error is not None

    @property
    def holding_a(self) -> bool:
        """A is MAX_AHEAD steps ahead of B (B is still starting, or slow): A's engine
        waits for B's replies, answering the window meanwhile, before A's next step."""
        self.collect(wait=False)
        return self.error is None and len(self._started) >= MAX_AHEAD

    @property
    def starting_words(self) -> str | None:
        """What B's process is doing while A waits for it to be built ("importing
        torch"), or None."""
        if not self._building or self.error is not None:
            return None
        return getattr(self.b, "stage", None) or "building B"

    def after_step(self, ra: StepRecord) -> None:
        """A has just completed step ra.step: B does the same step. The steps B has
        finished meanwhile are compared; nothing here waits for B (the engine's loop
        holds A while it is MAX_AHEAD steps ahead: holding_a). Nothing here may stop A:
        a failure of ours stops B alone."""
        self.collect(wait=False)
        if self.error is not None:
            return
        if self.b.step_index != ra.step:   # out of step (A restarted): B waits for step 0
            if ra.step != 0:
                return
            self.reset()
            if self.error is not None:
                return
        try:
            a = self.a.config
            if (self.b_config.probes, self.b_config.sample_every) != (a.probes,
                                                                       a.sample_every):
                self.b_config = self._b_config()   # B follows A's probes (B's side too)
            self._started.append((ra, flat_grads(self.a), (a, self.b_config)))
            self.b.start_step(self.a.sample_floor, a.probes, a.sample_every)
        except Exception as exc:  # a bug of ours must not take A (or the lecture) down
            self._started.clear()
            self._stop(ev.from_exception(exc, ra.step, "internal", "gradviz itself (B)"))

    @property
    def in_flight(self) -> bool:
        """Steps of B still to compare (their replies not read yet)."""
        return bool(self._started)

    @property
    def building(self) -> bool:
        """B's process is still building B (or loading torch, which can take many
        seconds on a busy machine): the engine's loop must not wait for it."""
        return self._building and self.error is None

    def collect(self, wait: bool = True) -> None:
        """Compare the steps B has finished; wait: also those it is still doing (and
        for B to be built), for as long as B's process beats."""
        if not self._built(wait):
            return
        while self._started and self.error is None and (wait or self.b.ready()):
            self._collect_one()
        if self.error is not None:
            self._started.clear()

    def _collect_one(self) -> None:
        ra, ga, configs = self._started.popleft()
        reply = self.b.reply()
        if not isinstance(reply, p.BDone):
            self._stop(self._event_of(reply, ra.step, "B's step"))
            return
        try:
            self._compare(ra, ga, reply.record, reply.grads, configs)
        except Exception as exc:  # a bug of ours must not take A (or the lecture) down
            self._stop(ev.from_exception(exc, ra.step, "internal", "gradviz itself (B)"))

    def watch(self) -> None:
        """B looked at while nothing is asked of it (its comparison paused, or between
        A's steps): a process of B's that ended or fell silent stops B now, and the
        dock says so, rather than at A's next step, which a paused A never takes. B
        building or with steps in flight is looked at by collect (their replies)."""
        if self.error is not None or self._building or self._started:
            return
        gone = self.b.watch()
        if gone is not None:
            self._stop(self._event_of(gone, self.a.step_index, "B's engine"))

    def connection(self):
        """What becomes readable when B's process beats, replies or ends (None: B lives
        in this process, or is stopped): the engine's loop waits on it too."""
        return None if self.error is not None else self.b.connection()

    def close(self) -> None:
        """Unpinned, or the engine stops: B's process (if it has one) ends now."""
        self._started.clear()
        self.b.close()

    @staticmethod
    def _event_of(reply: object, step: int, call: str) -> ev.Event:
        """What stopped B, from a runner's reply that is not the one hoped for."""
        if isinstance(reply, p.BFailed):
            return reply.event
        if isinstance(reply, p.BGone):
            return ev.Event(step, "B's engine", "B's engine process", "EngineStopped",
                            f"B's engine process {reply.words}.", "B's engine stopped",
                            "B trains in a process of its own, so that A and B train at "
                            "the same time; that process ended (a crash inside PyTorch, "
                            "running out of memory, or a kill from outside) or stopped "
                            "answering. A goes on.",
                            "Pin B again (Compare menu), or press Reset, to start it afresh.",
                            source="gradviz")
        if not isinstance(reply, p.BRefused):   # a reply out of turn: a bug of ours
            reply = p.BRefused("RuntimeError", f"B replied {type(reply).__name__} to {call}")
        if reply.kind == "ConfigError":
            error: Exception = ConfigError(reply.text)
        elif reply.kind == "MemoryError":
            error = MemoryError(reply.text)
        else:
            error = RuntimeError(reply.text)
        # refused by gradviz (a config B cannot take), else what B's process reported
        return ev.from_exception(error, step, "pin", call,
                                 source="gradviz" if reply.kind == "ConfigError" else None)

    def _compare(self, ra: StepRecord, ga, rb: StepRecord, gb,
                 configs: tuple[Config, Config]) -> None:
        diff = grads_diff(ga, gb, tuple(self.a.param_names), self.a.param_sizes, ra, rb)
        if diff.junction_ratio is not None:
            self._measured = (diff, *configs)
        measured = None
        if self._measured is not None and self._measured[1:] == configs:
            measured = self._measured[0]
        self.verdict.add(diff, configs)
        step_same = not step_differs(diff, self.rtol)
        for group, d in diff.groups.items():
            known = self.worst.get(group)
            if known is None or d.max_abs > known.max_abs or d.max_rel > known.max_rel:
                self.worst[group] = GroupDiff(max(d.max_abs, known.max_abs if known else 0.0),
                                              max(d.max_rel, known.max_rel if known else 0.0))
        self.peak_a = _larger(self.peak_a, ra.saved_bytes_peak)
        self.peak_b = _larger(self.peak_b, rb.saved_bytes_peak)
        self._words_due = (diff, measured)   # put in words by take(), for the newest only
        self.out.append(CompareRecord(
            ra.step, self.verdict.words(), self.verdict.same, "", step_same,
            diff, rb, dict(self.worst), self.peak_a, self.peak_b))

    def _stop(self, event: ev.Event) -> None:
        self.error = event
        self._words_due = None
        words = stopped_words("B", event)
        self.out.append(CompareRecord(event.step, words, False, words, False,
                                      worst=dict(self.worst), peak_a=self.peak_a,
                                      peak_b=self.peak_b, error=event))
