"""The training engine: torch, numpy and the standard library only (never Qt)."""
