"""The status bar's words, composed from what the engine reported (plain records and
the window's model), with no Qt: the phase line, the last step's backward time and
trunk walks, and the rate. Each text is a field that announces its changes only when
its words change, so a label is given new text only then."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from psygnal import evented

from ..config.config import Config
from ..records.events import Event
from ..records.records import PhaseRecord, StepRecord

STARTING = "Starting the training engine (loading PyTorch)…"
KEYS = "Space: play · →: one phase · Shift+→: one step"
# a backward call's sweep over the graph: within the pace's time for a phase, but long
# enough to follow and never longer than a lecturer waits (a phase stepped by hand: ALONE)
SWEEP_LEAST_MS, SWEEP_MOST_MS, SWEEP_ALONE_MS = 400, 4000, 1500
SWEEP_SHARE = 0.8         # of the pace: the rest of it shows the swept graph still


# the label's tooltip: what the count is, what it leaves out, and why the torchjd
# strategies walk once per head (each sentence tested in tests/core/test_one_pass.py)
WALKS_TIP = (
    "The last step's backward calls: their time, and how many times they walked the "
    "shared trunk (a hook on its first layer counts the training loop's own passes, "
    "every micro-batch's). gradviz's own probe is left out: on a sampled step it walks "
    "the trunk once more per head and micro-batch, for each head's cosine with the "
    "update. upgrad, pcgrad and mgda walk it once per head because gradviz runs "
    "TorchJD's Jacobian one row at a time (parallel_chunk_size=1); batched by "
    "torch.vmap, it would be one walk.")


# a note of the window's own (a text size refused for the screen) covers the phase line
# this long, then the line it covered comes back: a failure's "Paused at step 0: …" on
# an error slide stayed hidden under the refusal of Ctrl+= for the rest of the slide
NOTICE_MS = 5000

PLAYING_PHASES = "Playing phase by phase · "
PAUSED = "Paused · "


def walks_text(record: StepRecord | None) -> str:
    """"backward 0.42 ms · trunk walked 3×" for the newest step ('' before the first)."""
    if record is None or record.trunk_walks is None or record.backward_seconds is None:
        return ""
    return (f"backward {record.backward_seconds * 1000:.2f} ms · "
            f"trunk walked {record.trunk_walks}×")


def sweep_ms(pace_ms: int) -> int:
    """How long a backward call's sweep is drawn for, at this pace (0: stepped alone,
    or as fast as it goes)."""
    wanted = int(SWEEP_SHARE * pace_ms) if pace_ms else SWEEP_ALONE_MS
    return min(SWEEP_MOST_MS, max(SWEEP_LEAST_MS, wanted))


def failed_text(event: Event) -> str:
    if event.type == "ModelFileStopped":   # the user stopped it: no "press Reset"
        return f"{event.message} See “What happened”."
    if event.type == "EngineStopped":
        return (f"{event.message} Press Reset (R) to start a fresh one — see "
                "“What happened”")
    return f"Paused at step {event.step}: {event.title} ({event.call}) — see “What happened”"


def fresh_model_text(config: Config, model_name: str, head_names: tuple[str, ...]) -> str:
    model = (f"{model_name} ({', '.join(head_names)})" if model_name else
             f"{config.heads} heads, trunk {config.trunk_depth}×{config.trunk_width}")
    return f"Fresh model: {model} — step 0.   {KEYS}"


@evented
@dataclass
class StatusTexts:
    if TYPE_CHECKING:   # @evented adds it: a psygnal SignalGroup, one signal per field
        events: ClassVar[Any]
    phase: str = STARTING         # what the engine did last, or says
    walks: str = ""               # the last step's backward time and trunk walks
    rate: str = ""                # steps a second while playing


class StatusLine:
    """Writes StatusTexts from what happens; the window binds the labels to them."""

    def __init__(self, texts: StatusTexts | None = None):
        self.texts = texts or StatusTexts()
        self._phase_step: int | None = None   # the step the phase line's phase is of
        self._covered: str | None = None       # the line a notice on show covers
        self._preparing: str | None = None     # a slide's preparing line, while it is
        self._held: str | None = None          # the newest line said meanwhile

    def say(self, line: str) -> None:
        """The phase line from now on (what it says replaces any notice's cover); while
        a slide is prepared, held until it is shown (its preparing line says what is
        being done: the engine's lines of its fresh model would flicker in and out), and
        a notice on show covers the preparing line still."""
        if self._preparing is not None:
            self._held = line
        else:
            self._covered = None
            self.texts.phase = line

    def notice(self, line: str) -> None:
        """A note of the window's own, shown over the phase line until notice_over()
        (the window calls it NOTICE_MS later); a second notice covers the same line."""
        covered = self.texts.phase if self._covered is None else self._covered
        self._covered = None
        self.texts.phase = line
        self._covered = covered

    def notice_over(self) -> None:
        """The line the notice covered comes back, unless something newer was said."""
        if self._covered is not None:
            line, self._covered = self._covered, None
            self.texts.phase = line

    def preparing(self, line: str | None) -> None:
        """A slide being prepared says so here too, and what the engine says meanwhile
        is shown once it is (None): the slide before's "Paused · step 7 done · total
        loss 2.321" stayed under lesson 15's second slide while its DDP ranks started,
        and read as that slide's."""
        if line is not None:
            if self._preparing is None:   # the last step's walks and rate: the slide before's
                self.texts.walks = self.texts.rate = ""
            self._preparing = line
            self._show(line)
        elif self._preparing is not None:
            self._preparing = None
            held, self._held = self._held, None
            if held is not None:
                self.say(held)
            else:   # nothing said meanwhile: the preparing line is no longer true
                self._show("")

    def _show(self, line: str) -> None:
        """The phase line, or while a notice is on show the line it covers."""
        if self._covered is not None:
            self._covered = line
        else:
            self.texts.phase = line

    def ready(self) -> None:
        self.say("Training engine ready: building the model…")

    def rejected(self, reason: str) -> None:
        self.say(f"Not applied: {reason}")

    def failed(self, event: Event) -> None:
        self.say(failed_text(event))

    def fresh_model(self, config: Config, model_name: str, head_names: tuple[str, ...]) -> None:
        """A fresh model at step 0: no speed nor walks yet (not the last one's)."""
        self.texts.rate = self.texts.walks = ""
        self.say(fresh_model_text(config, model_name, head_names))

    def phase_done(self, phase: PhaseRecord, running: bool) -> None:
        self._phase_step = phase.step
        if phase.event is None:
            playing = PLAYING_PHASES if running else ""
            self.say(f"{playing}Step {phase.step} · just done: {phase.name} — {phase.detail}")

    def stopped(self) -> None:
        """Play ended (Pause, a slide's stop) on a phase's line: it no longer says it
        plays (lesson 12's last slide stopped with "Playing phase by phase" on show)."""
        line = self._held if self._preparing is not None else self.texts.phase
        if line is not None and line.startswith(PLAYING_PHASES):
            self.say(PAUSED + line[len(PLAYING_PHASES):])

    def steps(self, last: StepRecord, running: bool, by_phases: bool) -> None:
        """New steps came: the newest one's walks, and the phase line where no phase
        of that step names it (played phase by phase, each phase's own line stays)."""
        self.texts.walks = walks_text(last)
        if (running and not by_phases) or self._phase_step != last.step:
            state = "Training · " if running else PAUSED
            self.say(f"{state}step {last.step} done · total loss {last.total:.4g}")

    def rate(self, by_phases: bool, steps_per_second: float) -> None:
        """While playing: the engine's rate (phase by phase, it is the pace's)."""
        self.texts.rate = "phase by phase" if by_phases else f"{steps_per_second:,.0f} steps/s"
