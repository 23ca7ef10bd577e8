"""Every message that crosses a process boundary, as a typed record: the window and the
engine, the engine and a pinned B. Each is a frozen dataclass of plain data (Config,
StepRecord, PhaseRecord, Event, GraphData: floats, lists, strings; B's gradients as one
numpy vector), never a tensor. The engine sends lists of records, one list per batch; B
sends one record at a time.

Each receiver keeps one dispatch table (record type -> handler) and refuses what is not
a record of its side, or a record whose fields have the wrong types, with one log line
(`refusal`): a bad message never takes a process down. The window's settings that a
fresh engine needs travel as one record, `EngineSettings`, so that a restart replays
them all or none. Standard library and core's plain data only: the window's process and
B's process (before torch) import this."""
from __future__ import annotations

import dataclasses
import logging
import types
import typing
from dataclasses import dataclass, field
from typing import Any, Union

import numpy as np

from ..plain.config.config import Config
from ..plain.graph.graph_data import GraphData
from ..plain.records.engine_settings import EngineSettings as EngineSettings
from ..plain.records.events import Event
from ..plain.records.records import CompareRecord, PhaseRecord, StepRecord

log = logging.getLogger("gradviz.protocol")
# EngineSettings (imported above, re-exported): the window's settings of the engine, one
# record replayed to a fresh engine

MIN_PHASE_MS = 50   # Play by phases: at most one phase (and its graph) per 50 ms


# ---- window -> engine ---------------------------------------------------------------------
@dataclass(frozen=True)
class Begin:
    """The first message to a fresh engine process: what to train. model_path: a
    model file's path (plain data: the engine loads it; the window never runs it), or
    None for the built-in model."""
    config: Config
    model_path: str | None = None


@dataclass(frozen=True)
class SetConfig:
    config: Config


@dataclass(frozen=True)
class Settings:
    """The window's engine settings, all of them (sent whole at every change and to
    every fresh engine)."""
    settings: EngineSettings


@dataclass(frozen=True)
class Play:
    pass


@dataclass(frozen=True)
class Pause:
    pass


@dataclass(frozen=True)
class Phase:
    """One phase (zero_grad, forward, one backward call, the optimizer step)."""


@dataclass(frozen=True)
class Step:
    """One optimizer step."""


@dataclass(frozen=True)
class Reset:
    pass


@dataclass(frozen=True)
class RunSteps:
    """`steps` steps as fast as possible, then StepsDone."""
    steps: int


@dataclass(frozen=True)
class RequestGraph:
    pass


@dataclass(frozen=True)
class ExportTorchviz:
    path: str


@dataclass(frozen=True)
class Shutdown:
    pass


@dataclass(frozen=True)
class PinB:
    """B's Config to train beside A, or None: stop comparing."""
    config: Config | None


@dataclass(frozen=True)
class WarmB:
    """The Compare menu opened: start B's process ahead of a pin."""


@dataclass(frozen=True)
class WarmNext:
    """What the lesson's next slide will train (None: no next slide, the lesson left):
    the engine starts now, without waiting for it, what that slide needs that is slow to
    start (its DDP ranks, the meta device's first kernel), so that PageDown finds it
    ready; what it started before and no slide needs now ends."""
    config: Config | None


@dataclass(frozen=True)
class Slide:
    """A lesson's slide as one message: a fresh model built once at step 0, the
    window's settings (the slide's pace, play mode and stop in them), one graph, then
    Play if asked. steps: first train this many steps at full speed, then pause (the
    window's run from before a lesson, trained again: the same config, seed and data
    give the same steps)."""
    config: Config
    settings: EngineSettings
    play: bool
    steps: int = 0


# ---- engine -> window (in lists, one per batch) ------------------------------------------
@dataclass(frozen=True)
class Hello:
    """Torch is loaded: [(device name, description)]."""
    devices: list


@dataclass(frozen=True)
class Alive:
    """The heartbeat: what the process is doing, and for how long (twice a second from
    its first moment; B's process beats with it too)."""
    stage: str
    seconds: float


@dataclass(frozen=True)
class ConfigApplied:
    config: Config
    did_reset: bool
    param_names: list
    head_names: list = field(default_factory=list)   # what the heads are called on screen
    model: str = ""   # the model file the engine trains (its name), "" for the built-in one
    # the trunk output each head of the model file reads, where it returns several (the
    # window's Code panel and "Copy as script" write the loop for them), else None
    taps: list | None = None
    # the lesson slides this engine has taken (Slide) when it said this: the window tells
    # the answer to the slide it sent last from an earlier command's (0: none yet)
    slide: int = 0


@dataclass(frozen=True)
class ConfigRejected:
    reason: str


@dataclass(frozen=True)
class Notice:
    """One line for the status bar."""
    text: str


@dataclass(frozen=True)
class PhaseDone:
    """A phase done (single-stepped, or Play by phases)."""
    phase: PhaseRecord


@dataclass(frozen=True)
class Failed:
    event: Event


@dataclass(frozen=True)
class Running:
    running: bool


@dataclass(frozen=True)
class Graph:
    graph: GraphData
    when: str             # what it shows ("after backward 1 of 3")


@dataclass(frozen=True)
class Warmed:
    """What WarmNext started is ready (or failed: the slide then says why); warms: the
    WarmNext messages this engine has taken, so that a Warmed answering an older one is
    told apart."""
    warms: int


@dataclass(frozen=True)
class StepsDone:
    """The step index after a RunSteps batch."""
    step: int


@dataclass(frozen=True)
class Records:
    records: list[StepRecord]
    steps_per_second: float


@dataclass(frozen=True)
class BPinned:
    config: Config | None  # None: not comparing
    problem: str | None    # why not


@dataclass(frozen=True)
class Compared:
    """B's steps beside A's, after Records."""
    records: list[CompareRecord]


# ---- engine -> B's process -----------------------------------------------------------------
@dataclass(frozen=True)
class BReset:
    """Build B from this config, at step 0 (model_path: A's model file, or None)."""
    config: Config
    model_path: str | None = None


@dataclass(frozen=True)
class BStep:
    """One step of B, probed as A is now."""
    sample_floor: int
    probes: str
    sample_every: int


@dataclass(frozen=True)
class BStop:
    pass


# ---- B's replies (from its process, or made on the engine's side) ---------------------
@dataclass(frozen=True)
class BReady:
    """B built from the config, at step 0."""


@dataclass(frozen=True)
class BRefused:
    """B could not be built; kind: "ConfigError", "MemoryError", ..."""
    kind: str
    text: str


@dataclass(frozen=True)
class BDone:
    """B did a step: its record and its .grad as one flat vector."""
    record: StepRecord
    grads: np.ndarray


@dataclass(frozen=True)
class BFailed:
    """B's step raised (PyTorch's error) or diverged."""
    event: Event


@dataclass(frozen=True)
class BGone:
    """B's process ended or stopped answering (made on the engine's side)."""
    words: str


@dataclass(frozen=True)
class BPending:
    """Reset only: B's process is building B; its reply comes like a step's (made on
    the engine's side)."""


TO_ENGINE: tuple[type, ...] = (SetConfig, Settings, Play, Pause, Phase, Step, Reset,
                               RunSteps, RequestGraph, ExportTorchviz, Shutdown, PinB,
                               WarmB, WarmNext, Slide)
FROM_ENGINE: tuple[type, ...] = (Hello, Alive, ConfigApplied, ConfigRejected, Notice,
                                 PhaseDone, Failed, Running, Graph, StepsDone, Records,
                                 BPinned, Compared, Warmed)
TO_B: tuple[type, ...] = (BReset, BStep, BStop)
FROM_B: tuple[type, ...] = (Alive, BReady, BRefused, BDone, BFailed)
B_REPLIES: tuple[type, ...] = (BReady, BRefused, BDone, BFailed, BGone, BPending)
ALL: tuple[type, ...] = tuple(dict.fromkeys(
    (Begin, *TO_ENGINE, *FROM_ENGINE, *TO_B, *B_REPLIES, EngineSettings)))


# ---- checking what came -------------------------------------------------------------------
_FIELD_TYPES: dict[type, dict[str, Any]] = {}


def _field_types(cls: type) -> dict[str, Any]:
    """A record's fields and their types, read once per record type."""
    if cls not in _FIELD_TYPES:
        hints = typing.get_type_hints(cls)
        _FIELD_TYPES[cls] = {f.name: hints[f.name] for f in dataclasses.fields(cls)}
    return _FIELD_TYPES[cls]


def _fits(value: object, hint: Any) -> bool:
    """value is of the hinted type, at the top level (a list's items are not read: the
    records inside are core's own dataclasses, made by our own code on the other side)."""
    origin = typing.get_origin(hint)
    if origin is Union or origin is types.UnionType:
        return any(_fits(value, arg) for arg in typing.get_args(hint))
    if origin is not None:
        return isinstance(value, origin)
    if hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


def problem(message: object, expected: tuple[type, ...]) -> str | None:
    """Why `message` is not one of the `expected` records with fields of the right
    types, or None when it is."""
    if type(message) not in expected:
        return f"not a message of this side: {type(message).__name__}"
    for name, hint in _field_types(type(message)).items():
        value = getattr(message, name)
        if not _fits(value, hint):
            return f"{type(message).__name__}.{name} is a {type(value).__name__}"
        if isinstance(value, EngineSettings) and (why := problem(value, (EngineSettings,))):
            return why
    return None


def refusal(who: str, message: object, expected: tuple[type, ...]) -> str | None:
    """problem(), logged in one line by `who` (the receiver) when there is one."""
    why = problem(message, expected)
    if why is not None:
        log.warning("%s refused a message: %s", who, why[:200])
    return why


def dispatch(who: str, table: dict[type, Any], message: object) -> bool:
    """Call the handler of `message` in `table` with the record; a message of no type in
    the table, or with a field of the wrong type, is refused in one log line. True when
    handled."""
    if refusal(who, message, tuple(table)) is not None:
        return False
    table[type(message)](message)
    return True


def receive(conn: Any, who: str) -> object | None:
    """The next message on `conn`, or None (logged in one line) where its bytes are no
    message at all; EOF and OSError (the other side is gone) are the caller's."""
    try:
        return conn.recv()
    except (EOFError, OSError):
        raise
    except Exception as exc:  # a pickle that will not load: refused, never a crash
        log.warning("%s refused a message it could not read: %s", who,
                    f"{type(exc).__name__}: {exc}"[:200])
        return None
