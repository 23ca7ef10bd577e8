"""The config keys only the built-in model has, and a config fitted to a model file's
head count. Plain data, no torch: the window disables these keys' controls while a
model file trains, and the engine fits every config it is sent to the file."""
from __future__ import annotations

import dataclasses

from .config import Config, validate

# seeds a model file's batch generator at each step: seed * SEED_STRIDE + step
# (docs/model-files.md); here, torch-free, because the window's script text needs it too
SEED_STRIDE = 1_000_003

# key -> the words the window's tooltip and check_config's refusal use
BUILT_IN_ONLY: dict[str, str] = {
    "trunk_width": "trunk-width", "trunk_depth": "trunk-depth", "truncate": "truncate",
    "misplace_head": "misplace-head", "edit_detached": "edit-detached",
    "batch_norm": "batch-norm", "model": "model",
    # the ranks build the built-in mlp (core.ddp_rank)
    "ddp_ranks": "ddp-ranks", "ddp_no_sync": "ddp-no-sync"}
# controls a model file fixes too: its build() decides how many heads there are
FIXED_BY_THE_FILE = (*BUILT_IN_ONLY, "heads")


def fit_config(config: Config, heads: int) -> Config:
    """config on a model file of `heads` heads: the built-in model's keys back at their
    defaults, and the per-head settings cut (or padded) to that many heads. The window
    sends what its controls hold, a lesson or the defaults (Shift+R) send theirs: each
    becomes a config the file can train, never a refusal over keys it cannot use."""
    default = Config()
    changes: dict = {k: getattr(default, k) for k in BUILT_IN_ONLY}
    if config.heads != heads:
        weights = config.loss_weights
        changes.update(
            heads=heads, detach=tuple(k for k in config.detach if k < heads),
            loss_weights=(tuple(weights[:heads]) + (1.0,) * (heads - len(weights))
                          if weights else ()))
        if config.edit_data is not None and config.edit_data >= heads:
            changes["edit_data"] = None
    return validate(dataclasses.replace(config, **changes))
