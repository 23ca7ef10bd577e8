"""Reading a run folder as it grows, without torch: a watched loop's stream (watch.json,
steps.jsonl, one per rank in rank-N folders) or a finished `gradviz run --out` report
(report.json), into StepRecords and a History. Each read returns only what is new.
"""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from .events import Event
from .history import History
from .records import BackwardRecord, StepRecord
from .stream_writer_process import writer_gone
from .watch_end import end_words
from .watch_stream import GRAPHS, HEADER, STEPS

# beside a `gradviz run --out` folder's report.json: its last step's graph, in the plain
# form a stream's graphs.jsonl holds
REPORT_GRAPH = "graph.json"
GRAPH_KEY = "gradviz_graph"   # the key that says a graph.json is gradviz's

_FIELDS = {f.name for f in dataclasses.fields(StepRecord)}
_EVENT_FIELDS = {f.name for f in dataclasses.fields(Event)}


class RunFolderError(ValueError):
    """A folder that holds no gradviz run, or a file in it that is not one."""


def record_from_dict(data: dict[str, Any]) -> StepRecord:
    """A report step (report.json's or steps.jsonl's) back as a StepRecord; keys the
    record does not have (a watched step's micro_batches) are left out."""
    known = {k: v for k, v in data.items() if k in _FIELDS}
    known["backward_calls"] = [BackwardRecord(**c) for c in data.get("backward_calls") or []]
    known["events"] = [Event(**{k: v for k, v in e.items() if k in _EVENT_FIELDS})
                       for e in data.get("events") or []]
    return StepRecord(**known)


def _line_dict(line: str, path: Path) -> dict[str, Any]:
    """One complete line of a .jsonl file, a JSON object; else RunFolderError."""
    try:
        data = json.loads(line)
    except ValueError as exc:
        raise RunFolderError(f"{path}: a line that is not JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise RunFolderError(f"{path}: a line that is not a JSON object")
    return data


def _record(data: dict[str, Any], path: Path) -> StepRecord:
    try:
        return record_from_dict(data)
    except (TypeError, KeyError, AttributeError) as exc:
        raise RunFolderError(f"{path}: a step that is not a gradviz step ({exc})") from exc


def _read_json(path: Path, key: str = "gradviz_report") -> dict | None:
    """A gradviz file's JSON object, which says whose it is by key (None: no file)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise RunFolderError(f"{path}: not readable as a gradviz file ({exc})") from exc
    if not isinstance(data, dict) or key not in data:
        raise RunFolderError(f"{path}: not a gradviz {key[8:]}")
    return data


class _Lines:
    """The complete lines appended to one file since the last read (a last line without
    its newline is still being written, or was cut by a kill: left for later)."""

    def __init__(self, path: Path):
        self.path, self.offset = path, 0

    def new(self) -> list[str]:
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                chunk = f.read()
        except FileNotFoundError:
            return []
        end = chunk.rfind(b"\n") + 1
        self.offset += end
        return chunk[:end].decode("utf-8").splitlines()


class StreamReader:
    """One stream (a watched process or rank, or a run's report.json), followed.

    read() returns the StepRecords that are new since the last call; when the folder's
    run was replaced by a new one (a new run id), `restarted` is set and reading starts
    again from its first step. The newest graph is in `graph`, with the step it was
    captured at in `graph_step`.
    """

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        self.header: dict | None = None
        self.micro_batches: list[int] = []   # per step read: the losses() calls it had
        # per step read: when it ended (seconds since the epoch), None where not written
        self.wall_times: list[float | None] = []
        self.graph: dict | None = None
        self.graph_step: int | None = None
        self.restarted = False
        self._report_done = False
        self._steps, self._graphs = _Lines(self.folder / STEPS), _Lines(self.folder / GRAPHS)

    def read(self) -> list[StepRecord]:
        self.restarted = False
        header = _read_json(self.folder / HEADER)
        if header is None:
            return self._read_report()
        if self.header is not None and header.get("run_id") != self.header.get("run_id"):
            self._steps.offset = self._graphs.offset = 0
            self.micro_batches, self.graph, self.graph_step = [], None, None
            self.wall_times = []
            self.restarted = True
        self.header = header
        for line in self._graphs.new():
            entry = _line_dict(line, self.folder / GRAPHS)
            self.graph, self.graph_step = entry.get("graph"), entry.get("step")
        records = []
        for line in self._steps.new():
            data = _line_dict(line, self.folder / STEPS)
            self.micro_batches.append(data.get("micro_batches", 1))
            wall = data.get("wall_time")
            self.wall_times.append(float(wall) if isinstance(wall, (int, float))
                                   and not isinstance(wall, bool) else None)
            records.append(_record(data, self.folder / STEPS))
        return records

    def _read_report(self) -> list[StepRecord]:
        """A `gradviz run --out` folder: report.json appears whole when the run ends."""
        if self._report_done:
            return []
        report = _read_json(self.folder / "report.json")
        if report is None:
            return []
        self.header, self._report_done = {k: v for k, v in report.items() if k != "steps"}, True
        steps = report.get("steps") or []
        self.micro_batches = [1] * len(steps)
        self.wall_times = [None] * len(steps)
        records = [_record(s, self.folder / "report.json") for s in steps]
        saved = _read_json(self.folder / REPORT_GRAPH, GRAPH_KEY)   # its last step's graph
        if saved is not None:
            self.graph, self.graph_step = saved.get("graph"), saved.get("step")
        return records

    @property
    def finished(self) -> bool:
        """Whether the run has ended (a report is written at the end; a stream says so)."""
        return self._report_done or bool(self.header and "finished" in self.header)

    @property
    def stopped(self) -> bool:
        """Whether the stream ended without finishing: its writing process is gone (a
        kill, the out-of-memory killer), so no step will come (stream_writer_process)."""
        return not self.finished and self.header is not None and writer_gone(self.header)


    @property
    def state(self) -> str:
        """How the stream stands, in words: finished, ended by an exception or a signal
        (which), stopped (its process gone), or still being written (watch_end)."""
        if self._report_done:
            return "finished"
        return end_words(self.header, self.stopped)


def stream_folders(folder: str | Path) -> dict[str, Path]:
    """The streams in a run folder by name: "" for the folder itself, or "rank-0",
    "rank-1"... for a run across ranks. RunFolderError where there is none."""
    folder = Path(folder)
    if not folder.is_dir():
        raise RunFolderError(f"{folder}: no such folder")
    if (folder / HEADER).is_file() or (folder / "report.json").is_file():
        return {"": folder}
    ranks = sorted((p for p in folder.glob("rank-*") if (p / HEADER).is_file()),
                   key=lambda p: int(p.name[5:]) if p.name[5:].isdigit() else -1)
    if not ranks:
        raise RunFolderError(f"{folder}: no gradviz run in it (no {HEADER}, report.json "
                             "or rank-N folders)")
    return {p.name: p for p in ranks}


class FolderFollower:
    """A run folder's streams, each with its History, filled as they grow: call read()
    as often as wanted; it returns how many steps were new (across streams)."""

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        self.readers: dict[str, StreamReader] = {}
        self.histories: dict[str, History] = {}

    def read(self) -> int:
        for name, path in stream_folders(self.folder).items():
            self.readers.setdefault(name, StreamReader(path))
        new = 0
        for name, reader in self.readers.items():
            records = _as_drawn(reader.read(), reader.header or {})
            if reader.restarted:
                self.histories.pop(name, None)
            if records and name not in self.histories:
                self.histories[name] = history_for(reader.header or {}, records)
            elif records:
                self.histories[name].extend(records)
            new += len(records)
        return new


def _as_drawn(records: list[StepRecord], header: dict) -> list[StepRecord]:
    """The records as a History holds them. A watched step's saved_bytes (and
    saved_tensor_bytes) is what its graph held before backward (at its last losses()
    call), while the History's column means what is held at the step's end (the engine
    measures it after backward): left out. Its peaks, the most the graph held, mean the
    same in both."""
    if "gradviz_watch" not in header:
        return records
    return [dataclasses.replace(r, saved_bytes=None, saved_tensor_bytes=None)
            if r.saved_bytes is not None or r.saved_tensor_bytes is not None else r
            for r in records]


def history_for(header: dict, records: list[StepRecord]) -> History:
    """A History of records (at least one), keyed by the first step's loss names and the
    header's parameter names (a report's: the first step's grad norms)."""
    first = records[0]
    params = header.get("param_names") or list(first.grad_norms or {})
    history = History(list(first.losses), list(params))
    history.extend(records)
    return history
