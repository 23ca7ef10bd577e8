"""What the engine's heartbeat says it is doing, by name: the engine sets these stages and
the window reads them (to say what a slide waits for, to tell a long step from a stuck
one). Standard library only: the heartbeat starts before torch is imported."""
from __future__ import annotations

STARTING_PYTHON = "starting Python"
IMPORTING_TORCH = "importing torch"
# a fresh model being built: at the engine's start, and for each lesson slide
BUILDING_MODEL = "building the model"
# the engine's stage while a model file's code runs (its top level, build()): the window
# then offers to stop it, since only the user can tell a slow build from a stuck one
BUILDING_MODEL_FILE = "building the model file"
# the device-mismatch slide's head on PyTorch's meta device: its first kernel imports sympy
# and more (seconds), done while the slide is built
IMPORTING_META = "importing what PyTorch's meta device needs on first use"
# ddp-ranks N: the rank processes started with the slide (each imports torch: seconds),
# not inside its first step
STARTING_RANKS = "starting the DDP ranks (each its own Python, importing torch)"
# the engine's stages once built: at a command or a batch of steps, or waiting for the
# next; a beat "working" for N s tells the window how long one piece of work has run,
# also during Play, when no command waits for an answer
WORKING = "working"
READY = "ready"
