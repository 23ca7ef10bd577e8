"""--model FILE_OR_NAME for `gradviz run` and `gradviz compare`: the user's model file
(or a bundled example) loaded in this process, and the config checked against it.
--model mlp and --model rnn stay the built-in model's config key."""
from __future__ import annotations

import argparse

from ..core.model_file import ModelFile, check_config
from ..plain.config.config import Config, ConfigError
from ..plain.config.model_names import model_path
from .options import config_from_args, fail, take_model_file


def model_file_from_args(args: argparse.Namespace) -> ModelFile | None:
    """The model file --model names (taken out of args, so that the config never holds
    it), loaded; None for the built-in model. Exits 2 with one line if unusable."""
    value = take_model_file(args)
    if value is None:
        return None
    try:
        with model_path(value) as path:
            model_file = ModelFile(path)
            model_file.head_count()
        return model_file
    except ConfigError as exc:   # ModelFileError is one
        fail(f"gradviz: {exc}")


def file_config(config: Config, model_file: ModelFile) -> Config:
    """config if it fits the model file, else exit 2 naming what does not."""
    try:
        check_config(config, model_file.head_count(), model_file.taps)
    except ConfigError as exc:
        fail(f"gradviz: {exc}")
    return config


def config_for(args: argparse.Namespace, model_file: ModelFile | None,
               base: Config | None = None) -> Config:
    """The flags and --config file on base (the defaults where None); with a model
    file, on its head count, and checked against it."""
    if model_file is None:
        return config_from_args(args, base)
    base = (base or Config()).replace(heads=model_file.head_count())
    return file_config(config_from_args(args, base), model_file)
