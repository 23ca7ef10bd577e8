"""A recorded run as the window's source of steps, in place of the engine's adapter: it
polls the run folder (plain.runs.recorded_run) on a timer, writes into the window's model
what the run says (its losses' and parameters' names, a fresh history), and hands on
the graphs it recorded and the lines about the run. Nothing is sent anywhere: a
recorded run is only read."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from ..plain.records.history import History
from ..plain.runs.recorded_run import RecordedRun
from ..plain.runs.run_comparison import compare_lines
from ..plain.text.fault_line import fault_line
from ..plain.window.window_model import WindowModel

# how often the folder is looked at: a step the script finishes is on screen within
# this and one frame of the painter (a look reads only what was appended: cheap)
POLL_MS = 250


class RunSource(QObject):
    graph = Signal(object, str)   # a recorded GraphData, and the caption it is shown with
    changed = Signal()            # new steps, a new stream, or a problem: lines to update

    def __init__(self, model: WindowModel, folder: str | Path, parent: QObject | None = None,
                 run: RecordedRun | None = None):
        """run: the folder's run as already read (a ticked run of a folder of runs,
        picked to show: read again from its first line, 100,000 steps held the window
        for seconds); its history and graph handed on afresh at the first look."""
        super().__init__(parent)
        self.model = model
        self.run = RecordedRun(folder) if run is None else run
        if run is not None and run.shown is not None:
            run.show(run.shown)
        self.compared: RecordedRun | None = None   # B: another run, compared with this one
        self._said: tuple = ()
        self.fault: str | None = None   # the last look's failure, in one line
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.poll)

    @property
    def history(self) -> History | None:
        return self.run.history

    def start(self) -> None:
        self.poll()
        self.timer.start(POLL_MS)

    def stop(self) -> None:
        self.timer.stop()

    def show_stream(self, name: str) -> None:
        """Show another rank's stream in the panels."""
        self.run.show(name)
        self.poll()

    def compare_with(self, folder: str | Path | None) -> None:
        """Compare the run shown (A) with the run at folder (B; None: no comparison)."""
        self.compared = None if folder is None else RecordedRun(folder)
        self._said = ()
        self.poll()

    def compare_lines(self) -> list[str]:
        """The verdict on A and B in lines ([]: not comparing)."""
        b = self.compared
        if b is None:
            return []
        if b.problem is not None:
            return [f"B = {b.folder.name}: {b.problem}"]
        return compare_lines(self.run.folder.name, self.run.history, b.folder.name,
                             b.history)

    def poll(self) -> None:
        """Read what the folder has new. Whatever the reading raises (a stranger's
        folder may hold anything) is kept in one line, fault, and said; the next look
        tries again, and a look that reads clears it."""
        try:
            self._poll()
        except Exception as exc:   # the window never dies from a folder's data
            fault = f"Could not read {self.run.folder.name}: {fault_line(exc)}"
            if fault != self.fault:
                self.fault = fault
                self.changed.emit()
            return
        if self.fault is not None:
            self.fault = None
            self.changed.emit()

    def _poll(self) -> None:
        found = self.run.poll()
        b_steps = 0 if self.compared is None else self.compared.poll().new_steps
        history = self.run.history
        m = self.model
        if found.fresh and history is not None:
            model_name = self.run.header().get("model")
            m.model_name = model_name if isinstance(model_name, str) else ""
            m.head_names = tuple(history.head_names)
            m.param_names = tuple(history.param_names)
            m.generation += 1   # last: its observers find the names of this history
        if found.graph is not None:
            self.graph.emit(found.graph, f"recorded at step {self.run.graph_step}")
        said = (found.problem, len(history or ()), tuple(self.run.streams),
                self.run.status(), None if self.compared is None else self.compared.problem)
        if found.new_steps or b_steps or found.fresh or said != self._said:
            self._said = said
            self.changed.emit()
