"""A recorded run as a window shows it, without Qt or torch: a run folder (a watched
loop's stream, one per rank, or a `gradviz run --out` report) followed as it grows, the
stream on show and its graph, the ranks beside each other, what is wrong with the
folder in one line (problem), and what was skipped in it, a line each (notes). The
window's adapter calls poll() on a timer; each poll reads for READ_SECONDS at most, so
a long run already written is caught up with over a few polls, the window answering
between them."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..graph.graph_data import GraphData
from ..records.history import History
from ..run_files.history_thinning import kept_words
from ..run_files.watch_read import FolderFollower, RunFolderError, StreamReader, stream_folders
from ..text.shown_text import escaped, shown_name, shown_path
from .rank_agreement import gradient_line, loss_line

READ_SECONDS = 0.1    # a poll's reading at most: the window's timer looks 4 times a second
MAX_RUNS = 1000       # subfolders of a folder of runs looked at
SHOWN_LOSSES = 12     # losses named in a rank's line, then a count


@dataclass
class RunPoll:
    """What one poll found."""
    new_steps: int = 0
    fresh: bool = False                # the shown stream's history is a new one
    graph: GraphData | None = None     # a graph newer than the one handed out last
    problem: str | None = None         # the folder holds no readable run: why, one line
    notes: int = 0                     # lines of RecordedRun.notes() now
    more: bool = False                 # steps already written still to read (next poll)


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
            new = self.follower.read(READ_SECONDS)
        except RunFolderError as exc:
            self.problem = str(exc)
            return RunPoll(problem=self.problem, notes=len(self.notes()))
        except OSError as exc:   # the folder itself gone unreadable mid-look
            self.problem = (f"{shown_path(self.folder)}: cannot be read "
                            f"({exc.strerror or type(exc).__name__})")
            return RunPoll(problem=self.problem, notes=len(self.notes()))
        self.problem = None
        if self.shown not in self.follower.readers:
            self.shown = self.streams[0]
        history = self.history
        # a new history: a new run, or the history thinned (history_thinning)
        fresh = history is not None and history is not self._history
        self._history = history
        return RunPoll(new_steps=new, fresh=fresh, graph=self._new_graph(),
                       notes=len(self.notes()), more=self.follower.more)

    def notes(self) -> list[str]:
        """What was skipped or refused in the folder, one line each, control characters
        escaped ("FILE:LINE: FIELD: what is wrong"; at most a few dozen a stream, then
        how many more): for the window to list under its status line."""
        return self.follower.notes()

    def _new_graph(self) -> GraphData | None:
        reader = self.follower.readers[self.shown or ""]
        if reader.graph is None:
            return None
        seen = (id(reader.graph), reader.graph_step)
        if seen == self._graph_seen:
            return None
        self._graph_seen = seen
        return reader.graph

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
        model = self.header().get("model", "")
        where = shown_path(self.folder) + (f" ({self.shown})" if self.shown else "")
        what = f"{shown_name(model)}, " if isinstance(model, str) and model else ""
        state = "still being written" if reader is None else escaped_state(reader)
        empty = reader is None or reader.last is None
        if state.startswith("still being written"):
            state = ("following the folder" if empty else
                     "following the folder as the script writes it") + state[19:]
        elif state.startswith("stopped without finishing"):
            state = "its script " + state
        skipped = len(self.notes())
        state += "" if not skipped else f"; {skipped} line{'s' if skipped > 1 else ''} " \
                                        "about what was skipped"
        if reader is None or reader.last is None:
            return f"{where}: {what}no finished step yet; {state}"
        count = f"{reader.steps_read:,} step" + ("" if reader.steps_read == 1 else "s")
        kept = kept_words(self.history)   # a long run's charts: a row every few steps
        drawn = f"; charts: {kept}" if kept else ""
        reading = "; reading on" if self.follower.more else ""
        return (f"{where}: {what}{count} ({reader.first_step} to {reader.last.step}"
                f"{drawn}){reading}; {state}")

    def rank_lines(self) -> list[str]:
        """Per rank, its last step's losses and global gradient norm, then whether the
        ranks agree; [] for a run of one process."""
        histories = {n: h for n, h in self.follower.histories.items() if len(h)}
        if len(self.streams) < 2:
            return []
        lines = [self._rank_line(name, histories.get(name),
                                 escaped_state(self.follower.readers[name]))
                 for name in self.streams]
        if len(histories) > 1:
            lines += [gradient_line(histories), loss_line(histories)]
        return lines

    @staticmethod
    def _rank_line(name: str, history: History | None, state: str) -> str:
        last = None if history is None else history.last
        if last is None:
            return f"{name}: no finished step yet; {state}"
        losses = ", ".join(f"{shown_name(k)} {_number(v)}"
                           for k, v in list(last.losses.items())[:SHOWN_LOSSES])
        if len(last.losses) > SHOWN_LOSSES:
            losses += f" and {len(last.losses) - SHOWN_LOSSES} more"
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
    try:
        with os.scandir(folder) as entries:
            subs = sorted(entry.name for entry, _ in zip(entries, range(MAX_RUNS))
                          if entry.is_dir(follow_symlinks=False))
    except OSError:
        return []
    for name in subs:
        try:
            stream_folders(folder / name)
        except RunFolderError:
            continue
        runs.append(folder / name)
    return runs


def escaped_state(reader: StreamReader) -> str:
    """The stream's state (watch_end's words, which quote the header's exception and
    reason) as a line shows it."""
    return escaped(reader.state)
