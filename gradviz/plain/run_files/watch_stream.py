"""A watched loop's stream on disk, written as the loop goes: watch.json (the header,
replaced whole), steps.jsonl (one report step per line, appended: at once, or a block at
a time, see StepFile) and graphs.jsonl (the module graph, appended when its structure
changes).

Append-only, one line per step: a long run costs the same per step at step 10 and at
step 1,000,000 (rewriting report.json whole each step would be quadratic), and a killed
script leaves every step already written readable (a reader ignores a last line without
its newline, the one a kill can cut).
"""
from __future__ import annotations

import contextlib
import errno
import json
import math
import secrets
import time
from pathlib import Path
from typing import IO

from ..files.atomic_write import write_text
from ..records.records import StepRecord
from .report import SAMPLED_NULLS, unsampled_template
from .step_file import StepFile
from .stream_writer_process import this_writer

HEADER = "watch.json"
STEPS = "steps.jsonl"
GRAPHS = "graphs.jsonl"
WATCH_FORMAT = 1    # the header's "gradviz_watch": this layout of the three files


# a write refused for want of room: the disk, or the user's quota
DISK_FULL = frozenset({errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)})
_NOT_FINITE = frozenset({"nan", "inf", "-inf"})
_FLOATS = {float}
_isfinite = math.isfinite


class _KeyedText:
    """A dict of names to floats (or None) as json.dumps writes it, for dicts whose keys
    repeat every step (the losses, the parameters): keys encoded once."""

    def __init__(self):
        self._keys: dict[tuple, list[str]] = {}

    def __call__(self, data: dict | None) -> str | None:
        """The json text, or None to leave it to StepRecord.to_json (not all floats)."""
        if data is None:
            return "null"
        names = tuple(data)
        keys = self._keys.get(names)
        if keys is None:
            if len(self._keys) > 64 or not all(type(k) is str for k in names):
                return None
            keys = self._keys[names] = [json.dumps(k) + ": " for k in names]
        try:
            texts = ["null" if v is None else float.__repr__(v) for v in data.values()]
        except TypeError:
            return None
        if not _NOT_FINITE.isdisjoint(texts):   # json has no NaN or infinity: null
            texts = ["null" if t in _NOT_FINITE else t for t in texts]
        return "{" + ", ".join(map(str.__add__, keys, texts)) + "}"


def _tail(micro_batches: int, wall_time: float | None) -> str:
    """The line's last fields' text after "micro_batches": the step's losses() calls,
    and the wall-clock time the step ended (seconds since the epoch) where given."""
    calls = int.__repr__(micro_batches) if type(micro_batches) is int else \
        json.dumps(micro_batches)
    return calls if wall_time is None else \
        f'{calls}, "wall_time": {float.__repr__(float(wall_time))}'


class StepLines:
    """Steps as lines of steps.jsonl: a report step (as report.json's "steps" hold it,
    StepRecord.to_json, character for character) plus how many losses() calls the step
    had (gradient accumulation: more than one)."""

    def __init__(self):
        self._losses, self._norms = _KeyedText(), _KeyedText()
        self._templates: dict[tuple, str] = {}   # (loss names, parameter names) -> text

    def __call__(self, record: StepRecord, micro_batches: int,
                 wall_time: float | None = None) -> str:
        fast = self._unsampled(record, micro_batches, wall_time)
        if fast is not None:
            return fast
        text = record.to_json(losses=self._losses(record.losses),
                              grad_norms=self._norms(record.grad_norms))
        return text[:-1] + f', "micro_batches": {_tail(micro_batches, wall_time)}}}\n'

    def _unsampled(self, r: StepRecord, micro_batches: int,
                   wall_time: float | None) -> str | None:
        """The line of a step that was not sampled (losses and gradient norms only, the
        usual step) by one template, the same text; None for any other step."""
        norms = r.grad_norms
        if norms is None or r.events or r.backward_calls or type(r.step) is not int or (
                r.junction_grad_norms, r.cosine, r.saved_bytes, r.saved_bytes_peak,
                r.graph_nodes, r.z_grad_norm, r.update_cosine, r.trunk_walks,
                r.backward_seconds, r.trunk_grad_norm, r.trunk_step, r.trunk_step_vs_sum,
                r.loss_change, r.loss_change_trunk, r.loss_change_head,
                r.all_reduces, r.amp_scale, r.amp_skipped,
                r.grad_fingerprint, r.loss_weights, r.saved_tensor_bytes,
                r.saved_tensor_bytes_peak, r.wall_time).count(None) != 23 \
                or type(micro_batches) is not int:
            return None
        template = self._template(tuple(r.losses), tuple(norms))
        try:   # a None norm (no .grad) or a number not a float: the general path
            texts = list(map(float.__repr__, [*r.losses.values(), r.total,
                                              r.global_grad_norm, *norms.values()]))
        except TypeError:
            return None
        if template is None or "n" in "".join(texts):   # nan or inf: json's null
            return None
        k = len(r.losses)
        return template % (int.__repr__(r.step), *texts[:k], texts[k], *texts[k + 2:],
                           texts[k + 1], SAMPLED_NULLS, _tail(micro_batches, wall_time))

    def numbers_key(self, losses: list[str], params: list[str]) -> tuple | None:
        """(template, loss names, parameter names) for numbers_line(), or None where a
        name is not a string."""
        template = self._template(tuple(losses), tuple(params))
        return None if template is None else (template, tuple(losses), tuple(params))

    def numbers_line(self, key: tuple, step: int, numbers: list, total: float,
                     global_norm: float, micro_batches: int,
                     wall_time: float | None = None, sampled: str = SAMPLED_NULLS) -> str:
        """The line of a step given by its plain numbers (StreamWriter.add_numbers),
        the same text as the record's: a template where every number is a finite
        float, else the record's own line; sampled is the text of its sampled fields
        (StepRecord.sampled_json's), nulls where it was not sampled. total is the
        losses' sum and global_norm the norms' root sum of squares, as the record's: a
        NaN or an infinity among the numbers makes one of the two NaN or infinite (and
        a norm whose square overflows makes global_norm infinite: the general path,
        still the same text)."""
        template, losses, params = key
        k = len(losses)
        if type(total) is float and type(global_norm) is float and \
                _isfinite(total) and _isfinite(global_norm) and \
                {*map(type, numbers)} == _FLOATS:
            # %s of a float is its repr, as json writes it: each formatted once, by the
            # template itself (no list of texts between)
            return template % (int.__repr__(step), *numbers[:k], total, *numbers[k:],
                               global_norm, sampled, _tail(micro_batches, wall_time))
        # nan or inf (json's null), or a number not a float (an int: json writes it its
        # own way): the record's own line
        record = StepRecord(step=step, losses=dict(zip(losses, numbers[:k])), total=total,
                            grad_norms=dict(zip(params, numbers[k:])),
                            global_grad_norm=global_norm)
        text = self(record, micro_batches, wall_time)
        if sampled != SAMPLED_NULLS:   # the sampled fields' text, where the nulls are
            text = text.replace(SAMPLED_NULLS, sampled, 1)
        return text

    def block(self, pending: list) -> str:
        """The text of lines kept by a StreamWriter: each a line, or add_numbers()'s
        arguments."""
        numbers_line = self.numbers_line
        return "".join([item if type(item) is str else numbers_line(*item)
                        for item in pending])

    def _template(self, losses: tuple, params: tuple) -> str | None:
        template = self._templates.get((losses, params))
        if template is None:
            if len(self._templates) > 64 or not all(type(k) is str for k in losses + params):
                return None
            template = self._templates[losses, params] = unsampled_template(
                [json.dumps(k) + ": " for k in losses], [json.dumps(k) + ": " for k in params],
                "[]", "null", "null", "%s")[:-1] + ', "micro_batches": %s}\n'
        return template


class StreamWriter:
    """The three files of one stream (one process, or one rank) in folder.

    The folder is the caller's to choose (watch_claim: never another's). Where it held a
    stream (overwrite=True), steps.jsonl and graphs.jsonl are emptied first, then the
    header with a new run id is put in place, so a reader that sees the new id knows
    every line it reads from then on is this run's.

    every_s: 0 writes each step's line before add_step() returns; above 0, steps'
    lines are written by a thread every every_s seconds, and the rest by flush() and
    close(), so a kill loses at most the steps added in the last every_s seconds (see
    StepFile).
    """

    def __init__(self, folder: Path, header: dict, every_s: float = 0.0):
        self.folder = folder
        self.run_id = f"{time.time_ns():x}-{secrets.token_hex(4)}"
        self.header = {"gradviz_report": 1, "gradviz_watch": WATCH_FORMAT,
                       "run_id": self.run_id, "started": time.time(),
                       "writer": this_writer(), **header}
        self.every_s = every_s
        self._steps: StepFile | None = None
        self._graphs: IO[str] | None = None
        self._line = StepLines()

    def open(self) -> StreamWriter:
        self.folder.mkdir(parents=True, exist_ok=True)
        self._steps = StepFile(self.folder / STEPS, self._line.block, self.every_s)
        self._graphs = open(self.folder / GRAPHS, "w", encoding="utf-8")
        self.write_header()
        return self

    def add_step(self, record: StepRecord, micro_batches: int,
                 wall_time: float | None = None) -> None:
        """The step's line, formatted now (the record may change after the call)."""
        assert self._steps is not None, "StreamWriter.open() first"
        if self.every_s:
            self._steps.add(self._line(record, micro_batches, wall_time))
        else:
            self._steps.write(self._line(record, micro_batches, wall_time))

    def numbers_key(self, losses: list[str], params: list[str]) -> tuple | None:
        """What add_numbers() takes for steps whose losses and gradient norms are named
        so (formatted by one template), or None where the names do not suit one."""
        return self._line.numbers_key(losses, params)

    def add_numbers(self, key: tuple, step: int, numbers: list, total: float,
                    global_norm: float, micro_batches: int,
                    wall_time: float | None = None, sampled: str = SAMPLED_NULLS) -> None:
        """A step by its plain numbers: each loss, then each parameter's gradient norm
        (every parameter's), as floats, formatted when written; sampled: the text of
        its sampled fields (StepRecord.sampled_json's), where it was sampled."""
        assert self._steps is not None, "StreamWriter.open() first"
        if self.every_s:
            self._steps.add((key, step, numbers, total, global_norm, micro_batches,
                             wall_time, sampled))
        else:   # the line now: before the step returns (the watch's default)
            self._steps.write(self._line.numbers_line(key, step, numbers, total,
                                                      global_norm, micro_batches,
                                                      wall_time, sampled))

    def flush(self) -> None:
        """Every step added so far, written now."""
        if self._steps is not None:
            self._steps.flush()

    def add_graph(self, step: int, graph: dict) -> None:
        assert self._graphs is not None, "StreamWriter.open() first"
        self._graphs.write(json.dumps({"step": step, "graph": graph}, allow_nan=False) + "\n")
        self._graphs.flush()

    def gone(self) -> bool:
        """Whether the stream's files were removed under it (its folder deleted)."""
        return self._steps is not None and self._steps.gone()

    def close(self, steps: int, ended: dict | None = None) -> None:
        """Write what is kept, close the files and say in the header that the run ended,
        after how many steps, and how (ended: {"how": "finished" | "exception" |
        "signal", "what": words}; the reader shows it)."""
        try:
            if self._steps is not None:
                self._steps.close()
        finally:
            self._close_files()
            self.header.update(finished=time.time(), steps=steps,
                               ended=ended or {"how": "finished"})
            self.write_header()

    def abandon(self, steps: int, why: str) -> None:
        """Stop writing (a full disk, a removed folder): the files are closed as they
        are (steps.jsonl ends with its last whole line) and the header, where it can
        still be written, says after which step recording stopped, and why."""
        self._close_files(keep=False)
        self.header["recording_stopped"] = {"steps": steps, "why": why}
        with contextlib.suppress(OSError):
            self.write_header()

    def _close_files(self, keep: bool = True) -> None:
        steps, graphs, self._steps, self._graphs = self._steps, self._graphs, None, None
        with contextlib.suppress(OSError):
            if steps is not None and not keep:
                steps.discard()
        with contextlib.suppress(OSError):
            if graphs is not None:
                graphs.close()

    def write_header(self) -> None:
        """The header, replaced whole; where the disk has no room for its new copy, it
        is rewritten in place (the few hundred bytes fit where the old ones were)."""
        text = json.dumps(self.header, allow_nan=False) + "\n"
        try:
            write_text(self.folder / HEADER, text)
        except OSError as exc:
            if exc.errno not in DISK_FULL:
                raise
            with open(self.folder / HEADER, "r+", encoding="utf-8") as f:
                f.write(text)
                f.truncate()
