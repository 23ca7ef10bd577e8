"""The graph walk's results (nodes alive, bytes held for backward), kept per graph
structure so that a step whose structure was seen before needs no walk."""
from __future__ import annotations

from ..config.config import Config

# The graph walk (nodes alive, bytes held for backward) is the costliest probe, and its result
# is a function of the graph's structure: which ops ran on which shapes (and so what each
# node saved and which of those share a storage), and which buffers the backward calls
# freed. For one session (fixed parameters) that structure is fixed by the config, the
# point in the step (after which micro-batch's forward; after the backward calls), the
# micro-batch sizes and, for the rnn, where each micro-batch's hidden state came from.
# Walks are cached under exactly that key; a hidden state chained to an earlier graph
# (rnn, never truncated) makes every step's graph bigger, and is never cached.
LIMIT = 256                      # configs kept; a session rarely sees more than a few
FRESH, DETACHED, CHAINED = "fresh", "detached", "chained"   # an rnn micro-batch's h

# (graph nodes, bytes of the storages kept alive, the saved tensors' own bytes,
# AccumulateGrad nodes): core.autograd_walk.held_saved_memory's two counts
Walk = tuple[int, int, int, int]


class WalkCache:
    """config -> structure key -> Walk. Made anew with the model: the parameters are new,
    so the old walks no longer apply."""

    def __init__(self):
        self.tables: dict[Config, dict[tuple, Walk]] = {}
        self._step_table: dict[tuple, Walk] | None = None

    def new_step(self) -> None:
        self._step_table = None   # the step's config's table: looked up when first needed

    def table(self, cfg: Config) -> dict[tuple, Walk]:
        """This step's config's walks (hashing a config is slow: once a step)."""
        if self._step_table is None:
            table = self.tables.get(cfg)
            if table is None:
                if len(self.tables) >= LIMIT:
                    self.tables.clear()
                table = self.tables[cfg] = {}
            self._step_table = table
        return self._step_table
