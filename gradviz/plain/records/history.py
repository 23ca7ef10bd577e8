"""The run so far as numpy arrays, for plotting: one row per recorded optimizer step.

Arrays grow by doubling, the rows moved into the bigger arrays a few with each append
(never all at once), so appending thousands of steps a second stays cheap and the views
handed to plots are never copied. Unsampled measurements are NaN. Per-parameter
gradient norms are kept as a (steps, parameters) column, "grad_norms"; a parameter
whose .grad was None (no gradient reached it) is NaN there too, and 1.0 in the
"grad_missing" column (0.0 where it had a gradient, NaN where not sampled), so no
gradient is never drawn as a zero one. The per-step probes sampled with the update
cosine (trunk_grad_norm, trunk_step, trunk_step_vs_sum, loss_change*) are NaN where not
sampled (and trunk_grad_norm where the trunk had no gradient). A watch's gradient
fingerprints, recorded on its sampled steps only, are kept beside the columns, one array
per step that has them. A recorded run's history is kept within a bound by thinning it
(every_other(), history_thinning): kept_every says how far apart its rows are.
"""
from __future__ import annotations

import numpy as np

from .records import StepRecord

# Growing copies every row once. Copied at once, in a 10-minute run of the default
# model, that held the window for about a second (at 512 Ki rows of 54 numbers, 0.7 s
# of CPU time; `gradviz bench --soak` with GRADVIZ_HOLD_STACKS showed the GUI thread in
# History._grow). So the move to the bigger arrays starts when half the room is used and
# each append copies at most MOVE_ROWS older rows, which catches up long before the room
# runs out (MOVE_ROWS - 1 rows gained per append, half the room to go). The bigger arrays
# are allocated empty, the system committing their memory as it is first written, and
# made NaN NAN_ROWS rows ahead of the newest: np.full wrote all of them at once, and on
# Linux numpy asks for 2 MB pages for arrays of 4 MB and more, whose first writes wait
# while the kernel makes room for each (10-30 ms a page on a busy machine: one at a time
# now). Smaller pages would cost the same again to free when the arrays are replaced
# (about 50 ms for 226 MB).
MOVE_ROWS = 4
NAN_ROWS = 1024
PAIRED_LOSSES = 8   # losses whose cosines over time are kept: 28 pairs, at most


class MeasuredPoints:
    """The rows of a growing column where something was measured (finite), found in the
    rows added since the last look only: a history's rows never change once appended, and
    going over all of them every frame made the junction and memory charts' updates grow
    with the run (4-5 ms more a frame each at 800,000 rows)."""

    def __init__(self) -> None:
        self._looked = 0                 # rows of the column already looked at
        self._steps = np.empty(0)
        self._values = np.empty(0)
        self._n = 0                      # points found so far

    def take(self, steps: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(steps, values) where both are finite, in order, of all rows so far; views
        of what was found (copy before changing them)."""
        new_steps, new_values = steps[self._looked:], values[self._looked:]
        ok = np.isfinite(new_steps) & np.isfinite(new_values)
        found = int(np.count_nonzero(ok))
        if found:
            self._room_for(self._n + found)
            self._steps[self._n: self._n + found] = new_steps[ok]
            self._values[self._n: self._n + found] = new_values[ok]
            self._n += found
        self._looked = len(steps)
        return self._steps[: self._n], self._values[: self._n]

    def _room_for(self, points: int) -> None:
        if points <= len(self._steps):
            return
        size = max(points, 2 * len(self._steps), 256)
        for name in ("_steps", "_values"):
            bigger = np.empty(size)
            bigger[: self._n] = getattr(self, name)[: self._n]
            setattr(self, name, bigger)


class History:
    def __init__(self, head_names: list[str], param_names: list[str], capacity: int = 1024,
                 keys: list[str] | None = None):
        """head_names: what the panels call the heads; keys: the names the records
        use (head0, head1...; a model file's heads are shown by its own names)."""
        self.head_names = list(head_names)
        self.keys = list(keys or head_names)
        self.param_names = list(param_names)
        K, P = len(head_names), len(param_names)
        self._param_index = {name: j for j, name in enumerate(self.param_names)}
        self._n = 0
        self._cols = {
            "step": (), "total": (), "global_grad_norm": (), "saved_bytes": (),
            "saved_bytes_peak": (), "saved_tensor_bytes": (), "saved_tensor_bytes_peak": (),
            "graph_nodes": (), "z_grad_norm": (),
            "trunk_grad_norm": (), "trunk_step": (), "trunk_step_vs_sum": (),
            "trunk_walks": (), "backward_seconds": (), "all_reduces": (),
            "amp_scale": (), "amp_skipped": (), "wall_time": (),
            "losses": (K,), "junction": (K,), "update_cosine": (K,),
            "loss_change": (K,), "loss_change_trunk": (K,), "loss_change_head": (K,),
            "grad_norms": (P,), "grad_missing": (P,),
            # each sampled step's cosine of every pair of losses, (0, 1), (0, 2)... (1, 2)...
            # (pair_indices): the agreement over time; none past PAIRED_LOSSES losses
            "cosine_pairs": (len(pair_indices(K)[0]),),
        }
        self._data = self._empty(capacity)
        self._nan_to = 0                  # rows from _n up to this are NaN (unwritten)
        self._next: dict[str, np.ndarray] | None = None   # the bigger arrays, filling
        self._moved = 0                   # rows already copied into them
        self.last: StepRecord | None = None          # newest record (grad bars, cosine)
        self.last_cosine: np.ndarray | None = None   # newest sampled K x K cosine matrix
        # newest sampled per-head cosine with the trunk update (core.update_probe)
        self.last_update_cosine: np.ndarray | None = None
        # the newest sampled per-head loss change and its parts ({} until one): keys
        # "loss_change", "loss_change_trunk", "loss_change_head", each a (K,) array
        self.last_loss_change: dict[str, np.ndarray] = {}
        # the newest sampled trunk_grad_norm, trunk_step, trunk_step_vs_sum ({} until one)
        self.last_step: dict[str, float | None] = {}
        # None for a parameter whose .grad was None (not 0.0: no gradient at all)
        self.last_grad_norms: dict[str, float | None] = {}
        self._measured: dict[tuple[str, int | None], MeasuredPoints] = {}
        # the steps that recorded a gradient fingerprint (a watch's sampled steps), and
        # each one's numbers as a (parameters, projections) array, NaN where the .grad
        # was None: kept apart, not as a column, since only every few steps have one
        self.fingerprint_steps: list[int] = []
        self.fingerprints: list[np.ndarray] = []
        # 1: a row per step; 2, 4...: a row every so many steps read, the history kept
        # within bounds (history_thinning), the newest numbers still the newest step's
        self.kept_every = 1

    def __len__(self) -> int:
        return self._n

    def column(self, name: str) -> np.ndarray:
        """A view of the filled rows of one column (no copy)."""
        return self._data[name][: self._n]

    def measured(self, name: str, part: int | None = None
                 ) -> tuple[np.ndarray, np.ndarray]:
        """(steps, values) of the rows where a column (or its part-th entry) was measured:
        not NaN. Looked for in the rows added since the last call only."""
        points = self._measured.setdefault((name, part), MeasuredPoints())
        values = self.column(name)
        return points.take(self.column("step"), values if part is None else values[:, part])

    def param_history(self, name: str, sampled_only: bool = False
                      ) -> tuple[np.ndarray, np.ndarray]:
        """(steps, gradient norms) of one parameter, one entry per recorded step.

        Views (no copy), NaN where a step had no gradient norms; with sampled_only, copies
        holding just the steps that had them. Raises KeyError for an unknown parameter.
        """
        steps = self.column("step")
        norms = self.column("grad_norms")[:, self._param_index[name]]
        if sampled_only:
            keep = ~np.isnan(norms)
            return steps[keep], norms[keep]
        return steps, norms

    def _empty(self, rows: int) -> dict[str, np.ndarray]:
        return {name: np.empty((rows, *shape)) for name, shape in self._cols.items()}

    def _make_room(self) -> None:
        """Row _n ready to write: in the arrays in use, and NaN."""
        capacity = self._data["step"].shape[0]
        if self._next is None and self._n >= capacity // 2:
            self._next, self._moved = self._empty(capacity * 2), 0
        if self._next is not None:
            # all at once only if the room ran out first (it cannot: see MOVE_ROWS)
            end = self._n if self._n == capacity else min(self._moved + MOVE_ROWS, self._n)
            _copy_rows(self._data, self._next, self._moved, end)
            self._moved = end
            if self._moved == self._n:
                self._data, self._next, self._nan_to = self._next, None, self._n
        if self._n >= self._nan_to:
            self._nan_to = min(self._n + NAN_ROWS, self._data["step"].shape[0])
            for arr in self._data.values():
                arr[self._n: self._nan_to] = np.nan

    def append(self, r: StepRecord) -> None:
        self._make_room()
        i, d = self._n, self._data
        d["step"][i] = r.step
        d["total"][i] = r.total
        _put_pairs(d["cosine_pairs"], i, r.cosine, len(self.keys))
        d["losses"][i] = [r.losses[h] for h in self.keys]
        _put(d["global_grad_norm"], i, r.global_grad_norm)
        _put(d["saved_bytes"], i, r.saved_bytes)
        _put(d["saved_bytes_peak"], i, r.saved_bytes_peak)
        _put(d["saved_tensor_bytes"], i, r.saved_tensor_bytes)
        _put(d["saved_tensor_bytes_peak"], i, r.saved_tensor_bytes_peak)
        _put(d["graph_nodes"], i, r.graph_nodes)
        _put(d["z_grad_norm"], i, r.z_grad_norm)
        _put(d["trunk_walks"], i, r.trunk_walks)
        _put(d["backward_seconds"], i, r.backward_seconds)
        _put(d["all_reduces"], i, r.all_reduces)
        _put(d["amp_scale"], i, r.amp_scale)
        _put(d["wall_time"], i, r.wall_time)
        _put(d["amp_skipped"], i, None if r.amp_skipped is None else float(r.amp_skipped))
        if r.junction_grad_norms is not None:
            junction = r.junction_grad_norms
            d["junction"][i] = [junction.get(h, np.nan) for h in self.keys]
        if r.update_cosine is not None:
            d["update_cosine"][i] = [r.update_cosine.get(h, np.nan) for h in self.keys]
        _put(d["trunk_step"], i, r.trunk_step)
        _put(d["trunk_step_vs_sum"], i, r.trunk_step_vs_sum)
        _put(d["trunk_grad_norm"], i, r.trunk_grad_norm)
        self._append_loss_change(r, i)
        if r.grad_norms is not None:
            norms = [r.grad_norms.get(p, np.nan) for p in self.param_names]
            d["grad_norms"][i] = [np.nan if n is None else n for n in norms]
            d["grad_missing"][i] = [n is None for n in norms]
        if isinstance(r.grad_fingerprint, dict):
            self._append_fingerprint(r.step, r.grad_fingerprint)
        self._n += 1
        self.note(r)

    def note(self, r: StepRecord) -> None:
        """The newest record's numbers (the newest, the newest sampled) without a row: a
        step a thinned history leaves out of its rows is still the newest one."""
        if r.cosine is not None:
            self.last_cosine = np.array(r.cosine, dtype=float)
        if r.update_cosine is not None:
            self.last_update_cosine = np.array(
                [r.update_cosine.get(h, np.nan) for h in self.keys], dtype=float)
        if r.trunk_step is not None or r.trunk_grad_norm is not None:
            self.last_step = r.trunk_step_fields()
        if not all(v is None for v in (r.loss_change, r.loss_change_trunk,
                                       r.loss_change_head)):
            self.last_loss_change = {
                name: np.array([np.nan if (v := (values or {}).get(h)) is None else v
                                for h in self.keys], dtype=float)
                for name, values in (("loss_change", r.loss_change),
                                     ("loss_change_trunk", r.loss_change_trunk),
                                     ("loss_change_head", r.loss_change_head))}
        if r.grad_norms is not None:
            self.last_grad_norms = dict(r.grad_norms)
        self.last = r

    def every_other(self, capacity: int | None = None) -> History:
        """A history of every other row of this one (the first, the third...), its
        newest numbers the same: what a bounded history becomes when it is full
        (history_thinning). kept_every says how far apart its rows now are; capacity:
        its arrays' rows (at least the rows kept; None: as this one's)."""
        kept = (self._n + 1) // 2
        rows = self._data["step"].shape[0] if capacity is None else capacity
        half = History(self.head_names, self.param_names, capacity=max(kept, rows),
                       keys=self.keys)
        for name in self._cols:
            half._data[name][:kept] = self.column(name)[::2]
            half._data[name][kept:] = np.nan
        half._n, half._nan_to = kept, half._data["step"].shape[0]
        half.kept_every = self.kept_every * 2
        steps = set(half.column("step").tolist())
        for step, prints in zip(self.fingerprint_steps, self.fingerprints):
            if step in steps:
                half.fingerprint_steps.append(step)
                half.fingerprints.append(prints)
        for name in ("last", "last_cosine", "last_update_cosine", "last_loss_change",
                     "last_step", "last_grad_norms"):
            setattr(half, name, getattr(self, name))
        return half

    def _append_loss_change(self, r: StepRecord, i: int) -> None:
        parts = {"loss_change": r.loss_change, "loss_change_trunk": r.loss_change_trunk,
                 "loss_change_head": r.loss_change_head}
        if all(v is None for v in parts.values()):
            return
        for name, values in parts.items():
            self._data[name][i] = [np.nan if (v := (values or {}).get(h)) is None else v
                                   for h in self.keys]

    def _append_fingerprint(self, step: int, prints: dict[str, list[float] | None]
                            ) -> None:
        # one width per history (the first step's), so the arrays stack; a step whose
        # lists are of another length (no watch writes one) is all NaN
        width = self.fingerprints[0].shape[1] if self.fingerprints else max(
            (len(v) for v in prints.values() if isinstance(v, list)), default=0)
        rows = np.full((len(self.param_names), width), np.nan)
        for j, name in enumerate(self.param_names):
            numbers = prints.get(name)
            if isinstance(numbers, list) and len(numbers) == width:
                try:   # null is NaN; a number that is none (a foreign file): left NaN
                    rows[j] = [np.nan if n is None else float(n) for n in numbers]
                except (TypeError, ValueError):
                    pass
        self.fingerprint_steps.append(step)
        self.fingerprints.append(rows)

    def extend(self, records) -> None:
        for r in records:
            self.append(r)


def _copy_rows(source: dict[str, np.ndarray], to: dict[str, np.ndarray],
               start: int, end: int) -> None:
    for name, arr in source.items():
        to[name][start:end] = arr[start:end]


def _put(column: np.ndarray, i: int, value) -> None:
    column[i] = np.nan if value is None else value


def pair_indices(losses: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows, columns) of a cosine matrix's pairs, each once, in row order; none where
    there are more losses than PAIRED_LOSSES (their pairs' lines could not be told
    apart, and a history of 16,384 losses was asked for 16,384² numbers a row)."""
    return np.triu_indices(losses if losses <= PAIRED_LOSSES else 0, 1)


def _put_pairs(column: np.ndarray, i: int, rows, losses: int) -> None:
    """A K x K matrix's pairs into its row; a matrix of another shape (a foreign file's)
    leaves the row NaN, as an unsampled step's is: it is not this history's losses'."""
    if rows is None or not column.shape[1]:
        return
    try:   # null (a zero gradient's NaN, as JSON writes it) is NaN
        matrix = np.array([[np.nan if v is None else v for v in row] for row in rows],
                          dtype=float)
    except (TypeError, ValueError):   # not numbers, or not rows of them: left NaN
        return
    if matrix.shape == (losses, losses):
        column[i] = matrix[pair_indices(losses)]
