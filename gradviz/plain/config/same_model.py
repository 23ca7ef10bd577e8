"""Which config keys build the model: two configs start from the same weights (and can
be compared) only when they agree on every one of them. Torch-free, for lesson files."""
from __future__ import annotations

from .config import RESET_KEYS, Config

# misplacing a head moves it to another device, which is a lesson to compare, not
# another model
SAME_MODEL_KEYS = tuple(sorted(RESET_KEYS - {"misplace_head"}))


def model_difference(a: Config, b: Config, names: tuple[str, str] = ("A", "B")) -> str | None:
    """None if A and B build the same model from the same seed, else the first key
    that differs, in words: 'heads is 3 in A, 4 in B' (names: what to call A and B)."""
    for key in SAME_MODEL_KEYS:
        va, vb = getattr(a, key), getattr(b, key)
        if va != vb:
            return f"{key.replace('_', '-')} is {va} in {names[0]}, {vb} in {names[1]}"
    return None
