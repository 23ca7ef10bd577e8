"""A `gradviz run --out` folder's report.json read within bounds, however many steps it
holds.

gradviz writes it one step a line (plain.run_files.report.ReportWriter): a first line that is the
head up to `"steps": [`, a line per step (each but the last ending with a comma), then
`], "events": [...]}`. Read so, a report of a million steps is read as a stream's
steps.jsonl is, a budget at a time, each line checked alone. A report.json in another
layout (all on one line, indented by hand) is read whole, up to MAX_WHOLE_REPORT_BYTES.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..text.shown_text import shown_path
from .bounded_file import FileRefused, LineFile, read_start, read_whole
from .folder_records import RecordError, StepLine, convert_step, decode_json, header_fields

MAX_WHOLE_REPORT_BYTES = 16 << 20
HEAD_BYTES = 1 << 20     # the head's line: the config, the sampling, the model file

_HEAD_END = re.compile(rb'(,\s*)?"steps"\s*:\s*\[\s*$')


@dataclass
class ReportFound:
    """What one read of a report found: its head (once), its steps (a line's bytes by
    its number, or a step already checked by its place in "steps"), what is wrong."""
    header: dict | None = None
    steps: list[tuple[int | str, bytes | StepLine]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


class ReportLines:
    def __init__(self, path: Path):
        self.path = path
        self.lines = LineFile(path)
        self.started = False    # the file is there: being read
        self.done = False       # read to its end
        self._by_line: bool | None = None

    def read(self, budget: int) -> ReportFound:
        """The next steps, at most about budget bytes of lines."""
        out = ReportFound()
        try:
            if self._by_line is None:
                start = read_start(self.path, HEAD_BYTES)
                if start is None:
                    return out
                self.started = True
                self._by_line = _HEAD_END.search(start.split(b"\n", 1)[0]) is not None
            if self._by_line:
                self._next_lines(budget, out)
            else:
                self._whole(out)
        except FileRefused as exc:
            out.notes.append(str(exc))
            self.done = True
        return out

    def _next_lines(self, budget: int, out: ReportFound) -> None:
        found = self.lines.read(budget)
        out.notes += found.notes
        lines = list(found.lines)
        if not found.more:   # the end: a last line without its newline is the last
            rest = self.lines.rest()
            if rest.strip():
                lines.append((self.lines.line + 1, rest))
        for number, raw in lines:
            text = raw.rstrip()
            if number == 1:
                self._head(text, out)
            elif text.startswith(b"]"):
                self.done = True
                break
            else:
                out.steps.append((number, text[:-1] if text.endswith(b",") else text))
        if not found.more and not self.done:
            out.notes.append(f"{shown_path(self.path)}: ends before its steps' closing ] "
                             "(cut short): the steps before it are read")
            self.done = True

    def _head(self, line: bytes, out: ReportFound) -> None:
        match = _HEAD_END.search(line)
        head = line[:match.start()] + b"}" if match else line
        try:
            out.header, wrong = header_fields(decode_json(head))
        except RecordError as exc:
            out.header, wrong = {}, [str(exc)]
        out.notes += [f"{shown_path(self.path)}:1: {words}" for words in wrong]

    def _whole(self, out: ReportFound) -> None:
        self.done = True
        data = read_whole(self.path, MAX_WHOLE_REPORT_BYTES)
        if data is None:
            return
        where = shown_path(self.path)
        try:
            parsed = decode_json(data)
            # its "steps" is the report's steps, not a stream header's count
            out.header, wrong = header_fields({k: v for k, v in parsed.items()
                                               if k != "steps"}
                                              if isinstance(parsed, dict) else parsed)
        except RecordError as exc:
            out.notes.append(f"{where}: {exc}")
            return
        out.notes += [f"{where}: {words}" for words in wrong]
        steps = parsed.get("steps")
        if not isinstance(steps, list):
            if steps is not None:
                out.notes.append(f"{where}: steps: expected array")
            return
        for i, step in enumerate(steps):
            try:
                out.steps.append((f"steps[{i}]", convert_step(step)))
            except RecordError as exc:
                out.notes.append(f"{where}: steps[{i}]: {exc}")
