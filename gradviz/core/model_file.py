"""A user's model file: loaded by path, its build(seed) called and what it returns
checked, so that a file that does not fit is refused with one line saying what is wrong.

The contract (docs/model-files.md): plain PyTorch, nothing imported from gradviz,

    def build(seed):
        return {"trunk": nn.Module,            # x -> z, or x -> (z0, z1, ...)
                "heads": [nn.Module, ...],     # head k reads z, or z[taps[k]]
                "losses": [callable, ...],     # loss_k(head_k(z_k), target_k) -> scalar
                "batch": callable,             # (step, batch_size, generator) -> (x, [t_k])
                "taps": None or [int, ...],    # optional
                "names": None or [str, ...]}   # optional

A model file is code: it runs only where it is named on the command line (--model), in
the process that trains it, never because a config, a lesson or a saved file says so.
"""
from __future__ import annotations

import hashlib
import importlib.util
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import torch
from torch import nn

from ..plain.config.config import MAX_HEADS, SHOWN_PATH_CHARS, ConfigError, shown
from ..plain.config.model_keys import SEED_STRIDE
from .model_folder import serve_folder

REQUIRED = ("trunk", "heads", "losses", "batch")
OPTIONAL = ("taps", "names")
# the rows build()'s trial forward runs (on the CPU, under no_grad): enough to find a
# wrong shape, small enough to cost nothing on a real model
TRIAL_ROWS = 2
MAX_RAISED = 200   # characters of an exception's line in a refusal
# what a model file's code may raise that gradviz turns into one line naming the file:
# any exception, and the exits (sys.exit(n), SystemExit, GeneratorExit) that would end
# gradviz's own process; never KeyboardInterrupt (a Ctrl+C is the user's)
RAISED_BY_USER: tuple[type[BaseException], ...] = (Exception, SystemExit, GeneratorExit)
# the model files this process loaded, as named (what a line about a stray thread says)
LOADED: list[str] = []


class ModelFileError(ConfigError):
    """A model file that cannot be used; str(error) is one line for the user."""


@dataclass
class ModelSpec:
    """What build(seed) returned, checked."""
    trunk: nn.Module
    heads: list[nn.Module]
    losses: list[Callable[..., torch.Tensor]]
    batch: Callable[..., Any]
    taps: list[int]                 # the trunk output each head reads (all 0: one output)
    names: list[str]
    taps_given: bool                # False: the trunk must return one tensor


def step_generator(seed: int, step: int) -> torch.Generator:
    """The generator batch(step, batch_size, generator) gets: fresh for every step, so
    a step's batch is the same however often (or in whichever order) it is asked for."""
    return torch.Generator().manual_seed(seed * SEED_STRIDE + step)


def _where(exc: BaseException, path: Path) -> str:
    """file:line of the model file's own frame that raised (else the innermost one)."""
    if isinstance(exc, SyntaxError) and exc.lineno is not None:
        return f"{Path(exc.filename or path).name}:{exc.lineno}"
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if Path(f.filename) == path] or frames
    if not ours:
        return path.name
    return f"{Path(ours[-1].filename).name}:{ours[-1].lineno}"


def raised(exc: BaseException, path: Path) -> str:
    """An exception as the last line of its traceback, plus where in the file it was."""
    last = traceback.format_exception_only(type(exc), exc)[-1].strip()
    if isinstance(exc, SyntaxError):
        last = f"SyntaxError: {exc.msg}"
    last = " ".join(last.split())   # one line, whatever the message held
    if len(last) > MAX_RAISED:
        last = last[:MAX_RAISED - 3] + "..."
    return f"{last} ({_where(exc, path)})"


class ModelFile:
    """A model file, loaded (its top level run) once; build(seed) runs on every reset."""

    def __init__(self, path: str | Path):
        p = Path(path)
        self.named = shown(str(p), SHOWN_PATH_CHARS)
        if not p.is_file():
            what = "not found" if not p.exists() else "not a regular file"
            raise ModelFileError(f"model file {self.named}: {what}")
        self.path = p.resolve()
        source = self.path.read_bytes()
        self.digest = hashlib.sha256(source).hexdigest()
        LOADED.append(self.named)
        self.module = self._load()
        build = getattr(self.module, "build", None)
        if not callable(build):
            raise ModelFileError(f"model file {self.named} has no build(seed) function")
        self._build = build
        self._heads: int | None = None
        self.taps: tuple[int, ...] | None = None   # as build(0) gave them (head_count)

    def _load(self) -> ModuleType:
        # a name of its own (not the file's stem, which could shadow a real module), and
        # loaded from this path: never found through sys.path
        name = f"gradviz_model_{self.digest[:16]}"
        spec = importlib.util.spec_from_file_location(name, self.path)
        if spec is None or spec.loader is None:
            raise ModelFileError(f"model file {self.named} cannot be loaded as Python")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module   # dataclasses and pickling look a class's module up
        # its own helpers beside it import, as under `python FILE`, but for it alone:
        # a file there never stands in for a module gradviz, torch or a solver imports
        serve_folder(str(self.path.parent), name)
        try:
            spec.loader.exec_module(module)
        except RAISED_BY_USER as exc:
            del sys.modules[name]
            raise ModelFileError(f"model file {self.named}: {raised(exc, self.path)}") from exc
        return module

    def fail(self, what: str) -> ModelFileError:
        return ModelFileError(f"model file {self.named}: {what}")

    def head_count(self) -> int:
        """How many heads build() makes (the config's heads): its dict checked, no trial."""
        if self._heads is None:
            try:
                built = self._build(0)
            except RAISED_BY_USER as exc:
                raise self.fail(f"build(seed) raised {raised(exc, self.path)}") from exc
            spec = self._checked(built)
            self._heads = len(spec.heads)
            self.taps = tuple(spec.taps) if spec.taps_given else None
        return self._heads

    def build(self, seed: int, batch_size: int) -> ModelSpec:
        """build(seed), checked by a trial of everything it returned (batch, trunk,
        each head and loss) on a few rows; ModelFileError says what does not fit."""
        try:
            built = self._build(seed)
        except RAISED_BY_USER as exc:
            raise self.fail(f"build(seed) raised {raised(exc, self.path)}") from exc
        spec = self._checked(built)
        self._trial(spec, seed, batch_size)
        return spec

    def _checked(self, built: Any) -> ModelSpec:
        if not isinstance(built, dict):
            raise self.fail(f"build(seed) must return a dict, not {type(built).__name__}")
        missing = [k for k in REQUIRED if k not in built]
        if missing:
            raise self.fail(f"build(seed)'s dict has no {', '.join(map(repr, missing))}")
        unknown = [str(k) for k in built if k not in REQUIRED + OPTIONAL]
        if unknown:
            raise self.fail(f"build(seed)'s dict has unknown key {shown(unknown[0])} "
                            f"(keys: {', '.join(REQUIRED + OPTIONAL)})")
        trunk, heads, losses = built["trunk"], built["heads"], built["losses"]
        if not isinstance(trunk, nn.Module):
            raise self.fail(f"trunk must be an nn.Module, not {type(trunk).__name__}")
        if not isinstance(heads, (list, tuple, nn.ModuleList)) or \
                not all(isinstance(h, nn.Module) for h in heads):
            raise self.fail("heads must be a list of nn.Module")
        if not 1 <= len(heads) <= MAX_HEADS:
            raise self.fail(f"heads has {len(heads)} modules; gradviz takes 1 to {MAX_HEADS}")
        k = len(heads)
        if not isinstance(losses, (list, tuple)) or not all(callable(f) for f in losses):
            raise self.fail("losses must be a list of functions, one per head")
        if len(losses) != k:
            raise self.fail(f"losses has {len(losses)} functions for {k} heads")
        if not callable(built["batch"]):
            raise self.fail("batch must be a function (step, batch_size, generator)")
        names = self._names(built.get("names"), k)
        taps = built.get("taps")
        if taps is not None and (not isinstance(taps, (list, tuple)) or len(taps) != k or
                                 not all(type(t) is int for t in taps)):
            raise self.fail(f"taps must be None or a list of {k} whole numbers, one per head")
        if not any(p.requires_grad for p in nn.ModuleList([trunk, *heads]).parameters()):
            raise self.fail("the model has no parameters to train")
        return ModelSpec(trunk, list(heads), list(losses), built["batch"],
                         list(taps) if taps is not None else [0] * k, names,
                         taps is not None)

    def _names(self, names: Any, k: int) -> list[str]:
        if names is None:
            return [f"head{i}" for i in range(k)]
        if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
            raise self.fail("names must be None or a list of strings, one per head")
        if len(names) != k:
            raise self.fail(f"names has {len(names)} names for {k} heads")
        return [shown(n, 40).strip("'\"") for n in names]

    def _trial(self, spec: ModelSpec, seed: int, batch_size: int) -> None:
        """Run batch, trunk, heads and losses once, so a mistake is one line now, not an
        error at step 0. Under no_grad and in eval mode (restored after): no running
        statistics move and no dropout draws from the global generator."""
        x, targets = self.call_batch(spec, 0, batch_size, seed)
        modules = [spec.trunk, *spec.heads]
        modes = [[m.training for m in mod.modules()] for mod in modules]
        try:
            for mod in modules:
                mod.eval()
            with torch.no_grad():
                self._trial_forward(spec, x[:TRIAL_ROWS], [t[:TRIAL_ROWS] for t in targets])
        finally:
            for mod, flags in zip(modules, modes):
                for m, flag in zip(mod.modules(), flags):
                    m.training = flag

    def _trial_forward(self, spec: ModelSpec, x: torch.Tensor,
                       targets: list[torch.Tensor]) -> None:
        try:
            out = spec.trunk(x)
        except RAISED_BY_USER as exc:
            raise self.fail(f"the trunk raised {raised(exc, self.path)}") from exc
        zs = trunk_outputs(out)
        if zs is None:
            raise self.fail("the trunk must return a tensor or a tuple of tensors, not "
                            f"{type(out).__name__}")
        if not spec.taps_given and len(zs) > 1:
            raise self.fail(f"the trunk returns {len(zs)} tensors: give taps, the one "
                            "each head reads")
        for k, tap in enumerate(spec.taps):
            if not 0 <= tap < len(zs):
                raise self.fail(f"taps[{k}] is {tap}, but the trunk returns {len(zs)} "
                                f"tensor{'s' if len(zs) > 1 else ''} (0..{len(zs) - 1})")
        for k, (head, loss) in enumerate(zip(spec.heads, spec.losses)):
            try:
                y = head(zs[spec.taps[k]])
            except RAISED_BY_USER as exc:
                raise self.fail(f"head {k} raised {raised(exc, self.path)}") from exc
            if not isinstance(y, torch.Tensor):
                raise self.fail(f"head {k} must return a tensor, not {type(y).__name__}")
            try:
                value = loss(y, targets[k])
            except RAISED_BY_USER as exc:
                raise self.fail(f"losses[{k}] raised {raised(exc, self.path)}") from exc
            if not isinstance(value, torch.Tensor) or value.numel() != 1:
                got = tuple(value.shape) if isinstance(value, torch.Tensor) \
                    else type(value).__name__
                raise self.fail(f"losses[{k}] must return a scalar tensor (got {got})")

    def call_batch(self, spec: ModelSpec, step: int, batch_size: int,
                   seed: int) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """batch(step, batch_size, generator), checked: (x, [one target per head]), each
        with batch_size rows (accumulation splits them into micro-batches)."""
        try:
            got = spec.batch(step, batch_size, step_generator(seed, step))
        except RAISED_BY_USER as exc:
            raise self.fail(f"batch(step, batch_size, generator) raised "
                            f"{raised(exc, self.path)}") from exc
        k = len(spec.heads)
        shape = f"(x, [target_0, ..., target_{k - 1}])" if k > 1 else "(x, [target_0])"
        if not isinstance(got, (tuple, list)) or len(got) != 2:
            raise self.fail(f"batch must return {shape}")
        x, targets = got
        if not isinstance(x, torch.Tensor) or not isinstance(targets, (list, tuple)) or \
                not all(isinstance(t, torch.Tensor) for t in targets):
            raise self.fail(f"batch must return {shape}: a tensor and a list of tensors")
        if len(targets) != k:
            raise self.fail(f"batch returned {len(targets)} targets for {k} heads")
        for name, t in [("x", x)] + [(f"target {i}", t) for i, t in enumerate(targets)]:
            rows = t.shape[0] if t.dim() else 0
            if rows != batch_size:
                raise self.fail(f"batch(step, {batch_size}, generator) returned {name} "
                                f"with {rows} rows; it must have {batch_size}")
        return x, list(targets)


def file_traceback(exc: BaseException | None, path: Path, most: int = 3) -> list[str]:
    """The last `most` frames of exc's traceback that are in the model file, each as
    'file:line in function: source line' (what What happened shows of the user's own
    code); [] where none is."""
    if exc is None:
        return []
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename) == path]
    return [f"{Path(f.filename).name}:{f.lineno} in {f.name}: {(f.line or '').strip()}"
            for f in frames[-most:]]


def trunk_outputs(out: Any) -> list[torch.Tensor] | None:
    """The trunk's output as a list of tensors (one, or one per depth), or None."""
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (tuple, list)) and out and all(isinstance(z, torch.Tensor) for z in out):
        return list(out)
    return None


def check_taps(config: Any, taps: tuple[int, ...] | None) -> None:
    """ConfigError where a strategy needs one junction and the heads read several."""
    from ..plain.config.jd_names import AGGREGATING
    if taps is not None and len(set(taps)) > 1 and config.strategy in AGGREGATING:
        raise ConfigError(f"strategy {config.strategy} aggregates the heads' gradients at one "
                          "junction; this model's heads read the trunk at several depths")


def check_config(config: Any, spec_heads: int,
                 taps: tuple[int, ...] | None = None) -> None:
    """ConfigError where config asks for something only the built-in model has, or that
    a trunk with outputs at several depths (taps) cannot do."""
    from ..plain.config.config import Config
    from ..plain.config.model_keys import BUILT_IN_ONLY
    default = Config()
    for key, words in BUILT_IN_ONLY.items():
        if key != "model" and getattr(config, key) != getattr(default, key):
            raise ConfigError(f"{words} is for the built-in model; a model file builds its own")
    if config.model != "mlp":
        raise ConfigError("--model takes a model file or the built-in mlp or rnn, not both")
    check_taps(config, taps)
    if config.heads != spec_heads:
        raise ConfigError(f"heads is {config.heads}, but the model file builds {spec_heads}")
