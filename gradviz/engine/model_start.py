"""The engine's first session, and a model file the window named, loaded in the
engine's process: the file checked and the config fitted to it, or, when it raises,
allocates more than the machine has free, or does not fit, the event that says so in
What happened (with the file's own traceback lines) while the built-in model trains."""
from __future__ import annotations

from pathlib import Path

from ..core.model_file import ModelFile, ModelFileError, check_taps, file_traceback
from ..core.session import Session
from ..plain.config.config import Config, ConfigError
from ..plain.config.model_keys import fit_config
from ..plain.records import events as ev
from .build_memory import capped_memory, limit_words


def out_of_memory(exc: BaseException | None) -> bool:
    """An allocation that failed: Python's MemoryError, or torch's RuntimeError."""
    return isinstance(exc, MemoryError) or (
        isinstance(exc, RuntimeError) and "allocate" in str(exc).lower())


def not_used(exc: ConfigError, path: Path) -> ev.Event:
    """What happened: the one line of the refusal, then the file's own frames (of the
    exception its code raised, where it raised one)."""
    lines = file_traceback(exc.__cause__, path)
    memory = ""
    if out_of_memory(exc.__cause__):
        room = limit_words()
        memory = (" It asked for more memory than gradviz lets a model file's build take"
                  + (f" (what the machine had free: {room})" if room else "")
                  + ", so the allocation failed instead of the system killing the engine.")
    return ev.Event(
        step=0, phase="model file", call="loading the model file", type="ModelFileError",
        message="\n".join([str(exc), *lines]), title="The model file was not used",
        explanation="gradviz ran the model file to build its model, and it raised or "
                    "did not fit the contract (docs/model-files.md)." + memory
                    + " The built-in model trains instead.",
        hint="Fix the file, then open it again (File → Open model…).", source="gradviz")


def open_model(path: str, config: Config) -> tuple[ModelFile | None, Config, ev.Event | None]:
    """(the model file, config fitted to its heads, None), or (None, config, what
    happened) when the file cannot be loaded or its build(0) raises or does not fit."""
    try:
        # its top level and build(0) run under a memory ceiling (engine.build_memory)
        with capped_memory():
            model_file = ModelFile(path)
            heads = model_file.head_count()
        fitted = fit_config(config, heads)
        try:
            check_taps(fitted, model_file.taps)
        except ConfigError:   # a strategy for one junction, on heads at several depths
            fitted = fitted.replace(strategy=Config().strategy)
        return model_file, fitted, None
    except ConfigError as exc:   # ModelFileError is one
        return None, config, not_used(exc, Path(path).resolve())


def first_session(config: Config, model_path: str | None
                  ) -> tuple[Session, ModelFile | None, str | None, ev.Event | None]:
    """The engine's first session: (session, model file, problem, what happened). A
    model file that cannot be used, a device that is gone or a model too big to build
    falls back to what can be trained, and says why: the window gets an engine either
    way. problem: one line for the controls; what happened: the model file's refusal."""
    failure: ev.Event | None = None
    model_file: ModelFile | None = None
    if model_path is not None:
        model_file, config, failure = open_model(model_path, config)
    try:
        return Session(config, model_file), model_file, None, failure
    except ModelFileError as exc:   # build(seed) raised, or its model does not fit
        assert model_file is not None   # only a model file's session raises it
        return Session(config), None, None, not_used(exc, model_file.path)
    except ConfigError as exc:  # e.g. a remembered device that is gone: fall back
        return Session(config.replace(device="cpu")), model_file, \
            f"{exc}; using the CPU", failure
    except (RuntimeError, MemoryError) as exc:  # e.g. a model too big to allocate
        return Session(Config()), model_file, \
            f"cannot build that model ({ev.first_line(exc)}); using the default one", failure
