"""How a model file's batches are seeded: each step's generator gets
seed * SEED_STRIDE + step (README, "Your own model"). Plain data, no torch: the engine
draws the batches with it, and the window writes it into "Copy as script"."""
from __future__ import annotations

SEED_STRIDE = 1_000_003
