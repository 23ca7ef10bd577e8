"""A lesson's model: the built-in mlp or rnn, or a model file that ships with gradviz,
named by name (`model = "cnn_two_heads"`). A lesson never names a path: a lesson file
is data anyone may hand a lecturer, and a path would run code of its choosing."""
from __future__ import annotations

from typing import Any

from ..config.config import MODELS, shown
from ..config.model_keys import BUILT_IN_ONLY
from ..config.model_names import model_names
from ..text.spelling import did_you_mean
from .lesson_format import LessonError


def model_file_of(where: str, table: dict, base: str) -> tuple[str, dict]:
    """(the bundled model file a config table names, "" for the built-in model; the
    table without it). base: the lesson's own (a slide naming no model keeps it)."""
    if "model" not in table:
        return base, table
    value = table["model"]
    if value in MODELS:
        return "", table
    names = model_names()
    if not isinstance(value, str) or value not in names:
        hint = did_you_mean(value, names) if isinstance(value, str) else ""
        raise LessonError(f"{where}: model must be {', '.join(MODELS)} or a bundled model "
                          f"file by name: {', '.join(names)} (got {shown(value)}{hint}; a "
                          "lesson names no path to code)")
    return value, {k: v for k, v in table.items() if k != "model"}


def refuse_built_in_keys(where: str, table: dict, model_file: str) -> None:
    """A slide on a model file setting a key only the built-in model has (trunk-width,
    truncate, ...): the file builds its own, and the slide would say what is not run."""
    if not model_file:
        return
    for key in table:
        name = str(key).replace("-", "_")
        if name in BUILT_IN_ONLY and name != "model":
            raise LessonError(f"{where}: {BUILT_IN_ONLY[name]} is for the built-in model; "
                              f"{model_file} builds its own")


def compared_files(where: str, kind: str, other: int, files: list[str], index: int) -> None:
    """A promise comparing two slides' gradients needs both on the same model file."""
    if files[other - 1] != files[index]:
        def name(f: Any) -> str:
            return f or "the built-in model"
        raise LessonError(f"{where}, expect {kind}: slide {other} trains "
                          f"{name(files[other - 1])}, this slide {name(files[index])}: only "
                          "the same model can be compared gradient for gradient")
