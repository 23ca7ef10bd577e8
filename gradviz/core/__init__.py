"""The training core: the model, the session and every probe that measures it. Torch,
numpy and gradviz.plain only (never Qt); it runs in the engine's process."""
