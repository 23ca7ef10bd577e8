"""A run folder as one HTML block with inline SVG charts, for gradviz.show in a notebook:
per stream, the losses by name, each loss's push at the features, the cosine of each
pair of losses over the sampled steps, the global gradient norm, and the last step's
per-parameter gradient norms, with the last numbers written out. Without torch and
without Qt (the kernel it runs in may be a remote machine's, and must not load the
window's toolkit); read() takes only what the folder gained since the last call.

The curves keep at most MAX_POINTS points each (every other point dropped, and the
spacing doubled, when full; the newest point always drawn), so a long run costs the
same to keep and to send to the browser on each refresh as a short one.
"""
from __future__ import annotations

import math
from html import escape
from pathlib import Path

from ..records.records import StepRecord
from ..run_files.watch_read import RunFolderError, StreamReader, stream_folders
from .run_svg import Curve, bars, line_chart, number

MAX_POINTS = 500          # per curve: a chart is 300 pixels wide
MAX_STREAMS_SHOWN = 8     # ranks drawn; the others counted
MAX_BARS = 12             # parameters drawn at the last step (the largest norms)
READS_PER_LOOK = 8        # reads of one stream per look (a reader may return a part)


class Points:
    """A bounded curve: every stride-th point added, the stride doubling when full."""

    def __init__(self, limit: int = MAX_POINTS):
        self.limit, self.stride, self.seen = limit, 1, 0
        self.xs: list[float] = []
        self.ys: list[float | None] = []
        self.last: tuple[float, float | None] | None = None

    def add(self, x: float, y: float | None) -> None:
        self.last = (x, y)
        if self.seen % self.stride == 0:
            self.xs.append(x)
            self.ys.append(y)
            if len(self.xs) > self.limit:
                self.xs, self.ys, self.stride = self.xs[::2], self.ys[::2], self.stride * 2
        self.seen += 1

    def curve(self, label: str, dashed: bool = False) -> Curve:
        xs, ys = list(self.xs), list(self.ys)
        if self.last is not None and (not xs or xs[-1] != self.last[0]):
            xs.append(self.last[0])
            ys.append(self.last[1])
        return Curve(label, xs, ys, dashed)


def _value(v: object) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


class StreamSeries:
    """One stream's curves, filled record by record."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.losses: dict[str, Points] = {}
        self.total, self.global_norm = Points(), Points()
        self.push: dict[str, Points] = {}
        self.cosine: dict[tuple[int, int], Points] = {}
        self.steps = 0
        self.first: int | None = None
        self.last: StepRecord | None = None
        self.last_pushed: StepRecord | None = None
        self.last_cosine: StepRecord | None = None

    def add(self, r: StepRecord) -> None:
        if not self.names:
            self.names = list(r.losses)
            self.first = r.step
        self.steps += 1
        self.last = r
        for name in self.names:
            self.losses.setdefault(name, Points()).add(r.step, _value(r.losses.get(name)))
        self.total.add(r.step, _value(r.total))
        self.global_norm.add(r.step, _value(r.global_grad_norm))
        if r.junction_grad_norms:
            self.last_pushed = r
            for name in self.names:
                self.push.setdefault(name, Points()).add(
                    r.step, _value(r.junction_grad_norms.get(name)))
        if r.cosine:
            self.last_cosine = r
            for (i, j), value in pairs(r.cosine, len(self.names)):
                self.cosine.setdefault((i, j), Points()).add(r.step, value)


def pairs(cosine: list, k: int) -> list[tuple[tuple[int, int], float | None]]:
    """The matrix's entries above the diagonal, (i, j) with i < j, None where not
    measured (a loss that does not reach the features; a matrix of another size)."""
    out = []
    for i in range(k):
        for j in range(i + 1, k):
            try:
                value = _value(cosine[i][j])
            except (IndexError, TypeError):
                value = None
            out.append(((i, j), value if value is not None and math.isfinite(value)
                        else None))
    return out


def cosine_words(record: StepRecord) -> str:
    """"a~b 0.12, a~c -0.3" for a record's cosines ("" where none)."""
    names = list(record.losses)
    return ", ".join(f"{names[i]}~{names[j]} {number(v)}"
                     for (i, j), v in pairs(record.cosine or [], len(names)))


class RunView:
    """A run folder followed: read() takes what is new and says whether anything
    changed; html() and text() draw it as it stands. Displayed by IPython as HTML
    (_repr_html_), elsewhere as text."""

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        self.readers: dict[str, StreamReader] = {}
        self.series: dict[str, StreamSeries] = {}
        self.problem: str | None = None   # why nothing is drawn (no run yet, ...)
        self.refused = False              # a problem that waiting cannot mend
        self.note = ""                    # a line under the title (stopped following)

    def read(self) -> bool:
        """Look at the folder; True where steps or a stream's state are new."""
        before = (self.problem, self._states(), sum(s.steps for s in self.series.values()))
        if self.folder.exists() and not self.folder.is_dir():
            self.problem, self.refused = f"{self.folder} is a file, not a run folder", True
            return before[0] != self.problem
        try:
            for name, path in stream_folders(self.folder).items():
                self.readers.setdefault(name, StreamReader(path))
            for name, reader in self.readers.items():
                self._read(name, reader)
            self.problem = None
        except RunFolderError as exc:
            self.problem = f"{exc}"
            self.refused = bool(self.readers)   # a run's file broken, not one to come
        except OSError as exc:
            self.problem = f"{self.folder}: not readable ({exc.strerror or exc})"
        after = (self.problem, self._states(), sum(s.steps for s in self.series.values()))
        return after != before

    def _read(self, name: str, reader: StreamReader) -> None:
        for _ in range(READS_PER_LOOK):
            records = reader.read()
            if reader.restarted or name not in self.series:
                self.series[name] = StreamSeries()   # a new run in the same folder
            for record in records:
                self.series[name].add(record)
            if not records:
                return

    def _states(self) -> tuple[str, ...]:
        return tuple(r.state for r in self.readers.values())

    @property
    def ended(self) -> bool:
        """Nothing more will come: every stream finished, or its process is gone, or
        the folder cannot hold a run."""
        if self.refused:
            return True
        return bool(self.readers) and self.problem is None and all(
            r.finished or r.stopped for r in self.readers.values())

    def html(self) -> str:
        head = f"<b>{escape(str(self.folder))}</b>"
        if self.problem is not None:
            head += f" &mdash; {escape(self.problem)}"
        if self.note:
            head += f"<br><i>{escape(self.note)}</i>"
        parts = ['<div class="gradviz-run" style="background:#fff;color:#222;'
                 'font:12px sans-serif;padding:4px">', f"<div>{head}</div>"]
        shown = list(self.series.items())[:MAX_STREAMS_SHOWN]
        for name, series in shown:
            parts.append(self._stream_html(name, series))
        if len(self.series) > len(shown):
            parts.append(f"<div>and {len(self.series) - len(shown)} more ranks "
                         "(gradviz report lists them all)</div>")
        parts.append("</div>")
        return "".join(parts)

    def _stream_html(self, name: str, s: StreamSeries) -> str:
        reader = self.readers[name]
        label = escape(name or "run")
        if s.last is None:
            return f"<div><b>{label}</b>: no finished step yet; {escape(reader.state)}</div>"
        last = s.last
        count = f"{s.steps} step" + ("" if s.steps == 1 else "s")
        lines = [f"<b>{label}</b>: {count} ({s.first} to {last.step}); "
                 f"{escape(reader.state)}",
                 "last losses (step {}): {} (total {}); global grad norm {}".format(
                     last.step, ", ".join(f"{escape(k)} {number(_value(v))}"
                                          for k, v in last.losses.items()),
                     number(_value(last.total)), number(_value(last.global_grad_norm)))]
        if s.last_pushed is not None:
            lines.append(f"push at the features (step {s.last_pushed.step}): " + ", ".join(
                f"{escape(k)} {number(_value(v))}"
                for k, v in (s.last_pushed.junction_grad_norms or {}).items()))
        if s.last_cosine is not None:
            lines.append(f"cosines (step {s.last_cosine.step}): "
                         + escape(cosine_words(s.last_cosine)))
        charts = [
            line_chart("loss", [p.curve(n) for n, p in s.losses.items()]),
            line_chart("push at the features (sampled steps)",
                       [p.curve(n) for n, p in s.push.items()]),
            line_chart("cosine of each pair's push (sampled steps)",
                       [p.curve(f"{s.names[i]}~{s.names[j]}")
                        for (i, j), p in s.cosine.items()], y_range=(-1.0, 1.0),
                       zero_line=True),
            line_chart("global grad norm", [s.global_norm.curve("all parameters")]),
            self._norm_bars(last)]
        return ("<div style=\"margin-top:6px\">" + "<br>".join(lines) + "</div>"
                '<div style="display:flex;flex-wrap:wrap;gap:6px">'
                + "".join(f"<div>{c}</div>" for c in charts) + "</div>")

    def _norm_bars(self, last: StepRecord) -> str:
        norms = [(k, _value(v)) for k, v in (last.grad_norms or {}).items()]
        norms.sort(key=lambda kv: -1.0 if kv[1] is None else kv[1], reverse=True)
        title = f"grad norm per parameter (step {last.step})"
        if len(norms) > MAX_BARS:
            title += f", the {MAX_BARS} largest of {len(norms)}"
        return bars(title, norms[:MAX_BARS])

    def text(self) -> str:
        lines = [str(self.folder) + ("" if self.problem is None else f": {self.problem}")]
        if self.note:
            lines.append(self.note)
        for name, s in self.series.items():
            state = self.readers[name].state
            if s.last is None:
                lines.append(f"{name or 'run'}: no finished step yet; {state}")
                continue
            count = f"{s.steps} step" + ("" if s.steps == 1 else "s")
            lines.append(f"{name or 'run'}: {count} ({s.first} to {s.last.step}); "
                         f"{state}; last losses: " + ", ".join(
                             f"{k} {number(_value(v))}" for k, v in s.last.losses.items()))
            if s.last_cosine is not None:
                lines.append(f"  cosines (step {s.last_cosine.step}): "
                             + cosine_words(s.last_cosine))
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        return self.html()

    def __repr__(self) -> str:
        return self.text()
