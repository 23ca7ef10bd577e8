"""A recorded run as a window shows it, without Qt or torch: a run folder (a watched
loop's stream, one per rank, or a `gradviz run --out` report) followed as it grows, the
stream on show and its graph, the ranks beside each other, and what is wrong with the
folder in one line. The window's adapter calls poll() on a timer."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .graph_data import GraphData
from .graph_dict import graph_from_dict
from .history import History
from .rank_agreement import gradient_line, loss_line
from .watch_read import FolderFollower, RunFolderError, stream_folders


@dataclass
class RunPoll:
    """What one poll found."""
    new_steps: int = 0
    fresh: bool = False                # the shown stream's history is a new one
    graph: GraphData | None = None     # a graph newer than the one handed out last
    problem: str | None = None         # the folder holds no readable run: why, one line


def _number(value: float | None) -> str:
    return "none" if value is None else f"{value:.4g}"


class RecordedRun:
    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        self.follower = FolderFollower(self.folder)
        self.shown: str | None = None     # the stream on show: "", "rank-0"...
        self.problem: str | None = None
        self._history: History | None = None
        self._graph_seen: tuple | None = None

    @property
    def streams(self) -> list[str]:
        return list(self.follower.readers)

    @property
    def history(self) -> History | None:
        return None if self.shown is None else self.follower.histories.get(self.shown)

    def show(self, name: str) -> None:
        """Show another stream (a rank); the next poll hands its history and graph on."""
        if name in self.follower.readers:
            self.shown, self._history, self._graph_seen = name, None, None

    def poll(self) -> RunPoll:
        try:
            new = self.follower.read()
        except (RunFolderError, OSError) as exc:
            self.problem = str(exc)
            return RunPoll(problem=self.problem)
        self.problem = None
        if self.shown not in self.follower.readers:
            self.shown = self.streams[0]
        history = self.history
        fresh = history is not None and history is not self._history
        self._history = history
        graph = self._new_graph()   # a graph that is not one: the problem says so
        return RunPoll(new_steps=new, fresh=fresh, graph=graph, problem=self.problem)

    def _new_graph(self) -> GraphData | None:
        reader = self.follower.readers[self.shown or ""]
        if reader.graph is None:
            return None
        seen = (id(reader.graph), reader.graph_step)
        if seen == self._graph_seen:
            return None
        self._graph_seen = seen
        try:
            return graph_from_dict(reader.graph)
        except ValueError as exc:
            self.problem = f"{reader.folder / 'graphs.jsonl'}: {exc}"
            return None

    @property
    def graph_step(self) -> int | None:
        reader = self.follower.readers.get(self.shown or "")
        return None if reader is None else reader.graph_step

    def header(self) -> dict:
        reader = self.follower.readers.get(self.shown or "")
        return {} if reader is None or reader.header is None else reader.header

    def status(self) -> str:
        """One line: the folder, the model, the steps read, and whether it is finished."""
        if self.problem is not None:
            return self.problem
        reader = self.follower.readers.get(self.shown or "")
        history = self.history
        model = self.header().get("model", "")
        where = f"{self.folder}" + (f" ({self.shown})" if self.shown else "")
        what = f"{model}, " if isinstance(model, str) and model else ""
        state = "still being written" if reader is None else reader.state
        empty = history is None or not len(history)
        if state.startswith("still being written"):
            state = ("following the folder" if empty else
                     "following the folder as the script writes it") + state[19:]
        elif state.startswith("stopped without finishing"):
            state = "its script " + state
        if history is None or empty:
            return f"{where}: {what}no finished step yet; {state}"
        steps = history.column("step")
        count = f"{len(history)} step" + ("" if len(history) == 1 else "s")
        return f"{where}: {what}{count} ({int(steps[0])} to {int(steps[-1])}); {state}"

    def rank_lines(self) -> list[str]:
        """Per rank, its last step's losses and global gradient norm, then whether the
        ranks agree; [] for a run of one process."""
        histories = {n: h for n, h in self.follower.histories.items() if len(h)}
        if len(self.streams) < 2:
            return []
        lines = [self._rank_line(name, histories.get(name), self.follower.readers[name].state)
                 for name in self.streams]
        if len(histories) > 1:
            lines += [gradient_line(histories), loss_line(histories)]
        return lines

    @staticmethod
    def _rank_line(name: str, history: History | None, state: str) -> str:
        last = None if history is None else history.last
        if last is None:
            return f"{name}: no finished step yet; {state}"
        losses = ", ".join(f"{k} {_number(v)}" for k, v in last.losses.items())
        return (f"{name}: step {last.step}: {losses} (total {_number(last.total)}); "
                f"global grad norm {_number(last.global_grad_norm)}; {state}")


def runs_below(folder: str | Path) -> list[Path]:
    """The runs in the folder's subfolders (a folder of runs, as TensorBoard's logdir
    holds them), by name; [] where the folder is a run itself or holds none."""
    folder = Path(folder)
    try:
        stream_folders(folder)
        return []
    except RunFolderError:
        pass
    runs = []
    for sub in sorted(p for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []:
        try:
            stream_folders(sub)
        except (RunFolderError, OSError):
            continue
        runs.append(sub)
    return runs
