"""The example model files that ship with gradviz (resources/models), found by name
through importlib.resources so that `--model NAME` works from a wheel as from a clone;
any other value of --model is a path to the user's own file."""
from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from importlib import resources
from pathlib import Path

from .config import MODELS, SHOWN_PATH_CHARS, ConfigError, shown


def _folder():
    return resources.files("gradviz.resources") / "models"


def model_names() -> list[str]:
    """The bundled examples' names (their file names without .py), sorted."""
    return sorted(p.name[:-3] for p in _folder().iterdir()
                  if p.name.endswith(".py") and not p.name.startswith("_"))


def is_model_file(value: str) -> bool:
    """Whether --model's value names a model file (or example), not mlp or rnn."""
    return value not in MODELS


def model_path(name: str) -> AbstractContextManager[Path]:
    """A context giving the path of the file --model NAME means: a file that exists
    here wins; else a bundled example of that name (with or without .py). ConfigError,
    one line listing the examples, when it is neither."""
    if not name.strip():
        raise ConfigError("--model needs a file name, an example's name or mlp or rnn")
    try:
        if Path(name).exists():
            return nullcontext(Path(name))
    except (OSError, ValueError):   # too long, or a NUL in it: no file, and no name
        pass
    stem = name[:-3] if name.endswith(".py") else name
    if "/" not in name and "\\" not in name and stem in model_names():
        return resources.as_file(_folder() / f"{stem}.py")
    raise ConfigError(f"model file not found: {shown(name, SHOWN_PATH_CHARS)}, nor an "
                      f"example of that name (examples: {', '.join(model_names())})")
