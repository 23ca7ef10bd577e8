"""The choices of a recorded run's window that TensorBoard's scalars offer, without Qt:
which runs of a folder of runs are ticked (drawn over each other), the smoothing weight
and the x axis. The one writer of those fields of the window's model (smoothing,
x_axis, x_axis_shown, x_axis_note, runs_listed, run_slots, runs_note): the window's
controls call it, and its charts observe the model.

Each ticked run keeps a colour slot of its own while it is ticked (the first free
one), so ticking or unticking another run never repaints it in another colour; the
ninth is refused with a note, not dropped silently. A folder's first listing ticks its
first runs, as TensorBoard shows every run until told otherwise.
"""
from __future__ import annotations

from collections.abc import Callable

from ..charts.smoothing import SMOOTHING_RANGE, clamp_weight
from ..charts.x_axis import X_AXES, axis_shown
from ..records.history import History
from ..window.window_model import MAX_OVERLAID, WindowModel

TOO_MANY = (f"At most {MAX_OVERLAID} runs are drawn over each other: untick one to "
            "tick {name}")
# the smoothing slider's steps: TensorBoard's 0.01, kept exact (0.6, not 0.6000000001)
SMOOTHING_DIGITS = 2


class ViewerController:
    def __init__(self, model: WindowModel,
                 drawn: Callable[[], dict[str, History | None]] = dict):
        """drawn(): the histories the charts draw now, by run name (what decides whether
        the time asked for can be drawn)."""
        self.model = model
        self.drawn = drawn

    # ---- the runs --------------------------------------------------------------------
    @property
    def ticked(self) -> list[str]:
        """The runs ticked, in slot order."""
        return [name for name in self.model.run_slots if name is not None]

    @property
    def overlaid(self) -> bool:
        """Whether the charts draw the ticked runs over each other (two or more)."""
        return len(self.ticked) >= 2

    def list_runs(self, names: list[str]) -> None:
        """The folder's runs now: a run gone is unticked (its slot freed); the first
        listing of a folder with runs ticks the first MAX_OVERLAID of them."""
        m = self.model
        first = not m.runs_listed
        if tuple(names) != m.runs_listed:
            m.runs_listed = tuple(names)
        slots = [n if n in names else None for n in m.run_slots]
        if first and not any(slots):
            slots = list(names[:MAX_OVERLAID])
        self._set_slots(slots)
        self.runs_changed()

    def tick(self, name: str, on: bool) -> None:
        """The user ticked (on) or unticked a run of the list."""
        m = self.model
        slots = list(m.run_slots)
        note = ""
        if not on and name in slots:
            slots[slots.index(name)] = None
        elif on and name not in slots and name in m.runs_listed:
            free = slots.index(None) if None in slots else len(slots)
            if free < MAX_OVERLAID:
                slots[free:free + 1] = [name]
            else:
                note = TOO_MANY.format(name=name)
        self._set_slots(slots)
        if note != m.runs_note:
            m.runs_note = note
        self.runs_changed()

    def _set_slots(self, slots: list[str | None]) -> None:
        while slots and slots[-1] is None:   # trailing free slots: not kept
            slots.pop()
        if tuple(slots) != self.model.run_slots:
            self.model.run_slots = tuple(slots)

    # ---- smoothing and the x axis ----------------------------------------------------
    def set_smoothing(self, weight: float) -> None:
        """The slider's weight, clamped to its range and to its steps."""
        low, high = SMOOTHING_RANGE
        weight = round(min(high, max(low, clamp_weight(weight))), SMOOTHING_DIGITS)
        if weight != self.model.smoothing:
            self.model.smoothing = weight

    def ask_x_axis(self, mode: str) -> None:
        if mode not in X_AXES:
            raise ValueError(f"x axis {mode!r} is not one of {', '.join(X_AXES)}")
        if mode != self.model.x_axis:
            self.model.x_axis = mode
        self.runs_changed()

    def runs_changed(self) -> None:
        """The runs drawn, or their steps, changed: the axis drawn and its note again."""
        shown, note = axis_shown(self.model.x_axis, self.drawn())
        m = self.model
        if note != m.x_axis_note:
            m.x_axis_note = note
        if shown != m.x_axis_shown:
            m.x_axis_shown = shown
