"""Reading a run folder as it grows, without torch: a watched loop's stream (watch.json,
steps.jsonl, graphs.jsonl; one per rank in rank-N folders) or a finished `gradviz run
--out` report (report.json, graph.json), into StepRecords and a History. Each read
returns only what is new.

A folder may be anyone's, so nothing in it can stop the reading: each record is decoded
and checked field by field (folder_records), each file read within bounds
(bounded_file), and what is wrong is one line in the stream's notes, "FILE:LINE: FIELD:
what is wrong", the record skipped and the rest read. A stream's steps must go forward
(each step after the one before) and keep the first step's loss names, as every gradviz
writer writes them: a History is keyed by those names and ordered by step.
"""
from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

from ..graph.graph_data import GraphData
from ..records.history import History
from ..records.records import StepRecord
from ..text.shown_text import shown_name, shown_path
from .bounded_file import (
    MAX_GRAPH_LINE_BYTES,
    MAX_HEADER_BYTES,
    READ_BUDGET_BYTES,
    FileRefused,
    LineFile,
    read_whole,
)
from .folder_records import (
    RecordError,
    StepLine,
    decode_graph,
    decode_json,
    decode_step,
    header_fields,
)
from .history_thinning import MAX_ROWS, Thinned, bounded_history
from .report_lines import ReportLines
from .stream_writer_process import writer_gone
from .watch_end import end_words
from .watch_stream import GRAPHS, HEADER, STEPS

# beside a `gradviz run --out` folder's report.json: its last step's graph, in the plain
# form a stream's graphs.jsonl holds
REPORT_GRAPH = "graph.json"
GRAPH_KEY = "gradviz_graph"   # the key that says a graph.json is gradviz's
REPORT = "report.json"

# rank folders as a watch names them: ASCII digits, no leading zero (str.isdigit takes
# "²", which int() refuses), at most six of them
RANK_FOLDER = re.compile(r"rank-(0|[1-9][0-9]{0,5})", re.ASCII)
MAX_STREAMS = 256        # rank folders read (the rest said in one line)
MAX_NOTES = 20           # lines kept of what a stream skipped (the rest counted)
MICRO_KINDS = 16         # distinct micro_batches counts kept


class RunFolderError(ValueError):
    """A folder that holds no gradviz run, or a file in it that is not one."""


class Notes:
    """What a stream skipped or refused, one line each: the first MAX_NOTES, each once
    (a file looked at again says the same), then how many more."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.more = 0

    def add(self, line: str) -> None:
        if line in self.lines:
            return
        if len(self.lines) < MAX_NOTES:
            self.lines.append(line)
        else:
            self.more += 1

    def all(self) -> list[str]:
        more = f"... and {self.more} more line{'s' if self.more > 1 else ''} like these"
        return self.lines + ([more] if self.more else [])

    def __len__(self) -> int:
        return len(self.lines) + self.more


class StreamReader:
    """One stream (a watched process or rank, or a run's report.json), followed.

    read() returns the StepRecords that are new since the last call, all of them;
    steps() the new steps of at most about `budget` bytes of lines, decoded one at a
    time as they are iterated (`more`: there is more written already), which is how a
    run of any length is read in bounded memory. When the
    folder's run was replaced by a new one (a new run id, a steps file replaced or cut),
    `restarted` is set and reading starts again from its first step. The newest graph
    is in `graph`, with the step it was captured at in `graph_step`. What was skipped
    is in `notes`; what the steps read so far were, in steps_read, first_step, last,
    last_pushed and micro_batches.
    """

    def __init__(self, folder: str | Path, budget: int = READ_BUDGET_BYTES):
        self.folder = Path(folder)
        self.budget = budget
        self.header: dict | None = None
        self.graph: GraphData | None = None
        self.graph_step: int | None = None
        self.restarted = False
        self.more = False
        self.notes = Notes()
        self._header_seen: tuple | None = None
        self._steps = LineFile(self.folder / STEPS)
        self._graphs = LineFile(self.folder / GRAPHS, MAX_GRAPH_LINE_BYTES)
        self._report: ReportLines | None = None
        self._forget_steps()

    def _forget_steps(self) -> None:
        self.steps_read = 0
        self.first_step: int | None = None
        self.last: StepLine | None = None
        self.last_pushed: StepLine | None = None    # the newest with junction norms
        self.micro_batches: dict[int, int] = {}     # losses() calls a step: steps
        self.amp_skipped = 0                        # steps a GradScaler skipped
        self.last_skipped: int | None = None
        self._loss_names: frozenset[str] | None = None

    def read(self) -> list[StepRecord]:
        """Every new step as a StepRecord, held together: for a stream known to be
        short (a script's own, a test's); a long one is read by steps()."""
        records: list[StepRecord] = []
        restarted = False
        while True:
            batch = self.steps()
            if self.restarted:
                records, restarted = [], True
            records += [line.record() for line in batch]
            if not self.more:
                self.restarted = restarted
                return records

    def steps(self) -> Iterator[StepLine]:
        """The new steps, each decoded as it is taken. The files are looked at now
        (restarted, more and the header are set on return); the lines are decoded as
        they are iterated, and what iterating holds is one step at a time: holding
        thousands of decoded lines at once made each a few times slower to decode."""
        self.restarted, self.more = False, False
        if self._report is not None:
            return self._read_report()
        header = self._read_header()
        if header is None:
            if self.header is None and not os.path.lexists(self.folder / HEADER):
                return self._read_report()
            return iter(())
        if self.header is not None and header.get("run_id") != self.header.get("run_id"):
            self._restart()
        self.header = header
        self._read_graphs()
        try:
            found = self._steps.read(self.budget)
        except FileRefused as exc:
            self.notes.add(str(exc))
            return iter(())
        if found.replaced:
            self._restart(steps_kept=True)
        self.more = found.more
        for note in found.notes:
            self.notes.add(note)
        return self.take(found.lines, shown_path(self._steps.path))

    def _restart(self, steps_kept: bool = False) -> None:
        if not steps_kept:
            self._steps.restart()
        self._graphs.restart()
        self.graph, self.graph_step = None, None
        self._forget_steps()
        self.restarted = True

    def _read_header(self) -> dict | None:
        """The header as checked (its wrong fields left out and noted); the one read
        before where it cannot be read now; None where there is none."""
        path = self.folder / HEADER
        try:
            st = os.lstat(path)
        except OSError:
            return self.header
        seen = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        if seen == self._header_seen:
            return self.header
        self._header_seen = seen
        try:
            data = read_whole(path, MAX_HEADER_BYTES)
            if data is None:
                return self.header
            header, wrong = header_fields(decode_json(data))
        except FileRefused as exc:
            self.notes.add(str(exc))
            return self.header
        except RecordError as exc:
            self.notes.add(f"{shown_path(path)}: {exc}")
            return self.header
        for words in wrong:
            self.notes.add(f"{shown_path(path)}: {words}")
        return header

    def _read_graphs(self) -> None:
        """The newest graph appended (the lines before it are older graphs: not
        decoded)."""
        try:
            found = self._graphs.read(MAX_GRAPH_LINE_BYTES)
        except FileRefused as exc:
            self.notes.add(str(exc))
            return
        for note in found.notes:
            self.notes.add(note)
        for number, raw in reversed(found.lines):
            try:
                entry = decode_graph(raw)
            except RecordError as exc:
                self.notes.add(f"{shown_path(self._graphs.path)}:{number}: {exc}")
                continue
            self.graph, self.graph_step = entry.graph.graph(), entry.step
            return

    def take(self, lines: list[tuple[int, bytes]] | list[tuple[int | str, bytes | StepLine]],
             where: str) -> Iterator[StepLine]:
        """The steps of these lines (bytes, or steps already decoded) that are good, in
        order, as iterated; the others noted, each as where:NUMBER (or where: PLACE)."""
        counts = self.micro_batches
        for label, raw in lines:
            try:
                line = decode_step(raw) if isinstance(raw, bytes) else raw
                last = self.last
                if last is None:
                    self._loss_names = frozenset(line.losses)
                    self.first_step = line.step
                elif line.step <= last.step or line.losses.keys() != self._loss_names:
                    self._refuse(line, last)
            except RecordError as exc:
                if isinstance(raw, bytes) and not raw.strip():
                    continue   # an empty line: nothing skipped
                at = f"{where}:{label}" if type(label) is int else f"{where}: {label}"
                self.notes.add(f"{at}: {exc}")
                continue
            self.steps_read += 1
            self.last = line
            if line.junction_grad_norms:
                self.last_pushed = line
            if line.amp_skipped:
                self.amp_skipped += 1
                self.last_skipped = line.step
            calls = line.micro_batches
            if calls in counts or len(counts) < MICRO_KINDS:
                counts[calls] = counts.get(calls, 0) + 1
            yield line

    def _refuse(self, line: StepLine, last: StepLine) -> None:
        """RecordError: the step cannot follow the steps read so far."""
        if line.step <= last.step:
            raise RecordError(f"step: {line.step} is not after the step before it "
                              f"({last.step})")
        names = ", ".join(shown_name(n, 40) for n in sorted(self._loss_names or ())[:8])
        raise RecordError(f"losses: not the losses of the stream's first step ({names})")

    def _read_report(self) -> Iterator[StepLine]:
        """A `gradviz run --out` folder: report.json appears whole when the run ends."""
        if self._report is None:
            self._report = ReportLines(self.folder / REPORT)
        if self._report.done:
            return iter(())
        found = self._report.read(self.budget)
        if found.header is not None:
            self.header = found.header
        for note in found.notes:
            self.notes.add(note)
        self.more = not self._report.done and self._report.started
        if self._report.done:
            self._read_report_graph()
        return self.take(found.steps, shown_path(self._report.path))

    def _read_report_graph(self) -> None:
        path = self.folder / REPORT_GRAPH
        try:
            data = read_whole(path, MAX_GRAPH_LINE_BYTES)
            if data is None:
                return
            entry = decode_graph(data)
        except FileRefused as exc:
            self.notes.add(str(exc))
            return
        except RecordError as exc:
            self.notes.add(f"{shown_path(path)}: {exc}")
            return
        if entry.gradviz_graph is None:
            self.notes.add(f"{shown_path(path)}: not a gradviz graph (no {GRAPH_KEY!r} key)")
            return
        self.graph, self.graph_step = entry.graph.graph(), entry.step

    @property
    def finished(self) -> bool:
        """Whether the run has ended (a report is written at the end; a stream says so)."""
        if self._report is not None:
            return self._report.done
        return bool(self.header and "finished" in self.header)

    @property
    def stopped(self) -> bool:
        """Whether the stream ended without finishing: its writing process is gone (a
        kill, the out-of-memory killer), so no step will come (stream_writer_process)."""
        return not self.finished and self.header is not None and writer_gone(self.header)

    @property
    def state(self) -> str:
        """How the stream stands, in words: finished, ended by an exception or a signal
        (which), stopped (its process gone), or still being written (watch_end)."""
        if self._report is not None:
            return "finished" if self._report.done and self.header is not None else \
                "no run read"
        return end_words(self.header, self.stopped)


def _streams(folder: Path) -> tuple[dict[str, Path], int]:
    """The streams by name, and how many rank folders were left unread."""
    if not folder.is_dir():
        words = "no such folder" if not os.path.lexists(folder) else "not a folder"
        raise RunFolderError(f"{shown_path(folder)}: {words}")
    if os.path.lexists(folder / HEADER) or os.path.lexists(folder / REPORT):
        return {"": folder}, 0
    ranks = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                match = RANK_FOLDER.fullmatch(entry.name)
                # a link is not followed: a rank's files are the folder's own
                if match and entry.is_dir(follow_symlinks=False) and \
                        os.path.lexists(os.path.join(entry.path, HEADER)):
                    ranks.append((int(match.group(1)), entry.name))
    except OSError as exc:
        raise RunFolderError(f"{shown_path(folder)}: cannot be read "
                             f"({exc.strerror or type(exc).__name__})") from None
    if not ranks:
        raise RunFolderError(f"{shown_path(folder)}: no gradviz run in it (no {HEADER}, "
                             f"{REPORT} or rank-N folders)")
    ranks.sort()
    return {name: folder / name for _, name in ranks[:MAX_STREAMS]}, \
        max(0, len(ranks) - MAX_STREAMS)


def stream_folders(folder: str | Path) -> dict[str, Path]:
    """The streams in a run folder by name: "" for the folder itself, or "rank-0",
    "rank-1"... for a run across ranks (the first MAX_STREAMS). RunFolderError (one
    line) where there is none."""
    return _streams(Path(folder))[0]


def empty_history(header: dict, first: StepRecord, max_rows: int = MAX_ROWS) -> History:
    """A History for a stream's steps, keyed by the first step's loss names and the
    header's parameter names (a report's: the first step's grad norms)."""
    params = header.get("param_names") or list(first.grad_norms or {})
    return bounded_history(list(first.losses), list(params), max_rows)


class FolderFollower:
    """A run folder's streams, each with its History, filled as they grow: call read()
    as often as wanted; it returns how many steps were new (across streams).

    Each History stays within a bound however long the run (history_thinning: past it,
    a row every 2nd, 4th... step; history.kept_every says which). read(seconds) stops
    once that long was spent (`more`: steps already written are still to read), so a
    window catching up with a long run stays responsive; read() reads all there is.
    """

    def __init__(self, folder: str | Path, max_rows: int = MAX_ROWS,
                 keep_histories: bool = True):
        """keep_histories False: the readers alone (their counts, first, last steps)."""
        self.folder = Path(folder)
        self.max_rows, self.keep_histories = max_rows, keep_histories
        self.readers: dict[str, StreamReader] = {}
        self.more = False
        self.unread_ranks = 0     # rank folders past MAX_STREAMS
        self._thinned: dict[str, Thinned] = {}

    @property
    def histories(self) -> dict[str, History]:
        return {name: t.history for name, t in self._thinned.items()}

    def read(self, seconds: float | None = None) -> int:
        streams, self.unread_ranks = _streams(self.folder)
        for name, path in streams.items():
            self.readers.setdefault(name, StreamReader(path))
        until = None if seconds is None else time.monotonic() + seconds
        new, self.more = 0, False
        for name, reader in self.readers.items():
            while True:
                lines = reader.steps()
                if reader.restarted:
                    self._thinned.pop(name, None)
                before = reader.steps_read
                if self.keep_histories:
                    self._keep(name, reader, lines)
                else:
                    for _ in lines:
                        pass
                new += reader.steps_read - before
                if not reader.more:
                    break
                if until is not None and time.monotonic() >= until:
                    self.more = True
                    break
        return new

    def _keep(self, name: str, reader: StreamReader, lines: Iterator[StepLine]) -> None:
        watched = "gradviz_watch" in (reader.header or {})
        thinned = self._thinned.get(name)
        line, noted = None, True
        for line in lines:
            if thinned is None:
                thinned = self._thinned[name] = Thinned(
                    empty_history(reader.header or {}, line.record(), self.max_rows),
                    self.max_rows)
            if thinned.wants():
                thinned.add(_as_drawn(line.record(), watched))
                noted = True
            else:   # no row: its numbers kept only where they are the newest sampled
                noted = line.sampled
                thinned.skip(_as_drawn(line.record(), watched) if noted else None)
        if thinned is not None and line is not None and not noted:
            thinned.history.note(_as_drawn(line.record(), watched))   # the newest

    def notes(self) -> list[str]:
        """What was skipped or refused, one line each, stream after stream."""
        lines = [note for reader in self.readers.values() for note in reader.notes.all()]
        if self.unread_ranks:
            lines.append(f"{shown_path(self.folder)}: {self.unread_ranks} rank folders "
                         f"past the first {MAX_STREAMS} not read")
        return lines


def _as_drawn(record: StepRecord, watched: bool) -> StepRecord:
    """The record as a History holds it. A watched step's saved_bytes is what its graph
    held before backward (at its last losses() call), while the History's column means
    what is held at the step's end (the engine measures it after backward): left out.
    Its saved_bytes_peak, the most the graph held, means the same in both."""
    if watched:
        record.saved_bytes = None
    return record
