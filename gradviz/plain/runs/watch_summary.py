"""A run folder in a few lines of text (`gradviz report DIR`): its streams, steps, last
losses, the parameters without a gradient, the last push, whether ranks agree, and what
was skipped in the folder (a line each: "FILE:LINE: FIELD: what is wrong").

The folder is read as a stream (FolderFollower): a step's numbers are kept only where
the summary needs them (the first, the last, the last push), so a run of a million
steps is summed up in seconds and in the memory of a few thousand; the ranks' gradients
are compared on their histories, which past REPORT_ROWS rows keep every 2nd, 4th...
step (history_thinning), as the agreement line then says. Every name is shown escaped
and cut (shown_text): a loss named with an escape sequence prints as \\x1b..., never
as a command to the terminal."""
from __future__ import annotations

from pathlib import Path

from ..run_files.history_thinning import kept_words
from ..run_files.watch_read import FolderFollower, StreamReader, stream_folders
from ..text.shown_text import escaped, shown_name, shown_path
from .rank_agreement import gradient_line
from .run_view import cosine_words

SHOWN_NAMES = 6     # parameters without a gradient named, then a count
SHOWN_LOSSES = 12   # losses (and pushes) named in a line, then a count
REPORT_ROWS = 1 << 14   # rows of each rank's history the agreement is checked on


def _number(value: float | None) -> str:
    return "none" if value is None else f"{value:.4g}"


def _named(values: dict[str, float | None]) -> str:
    shown = ", ".join(f"{shown_name(k)} {_number(v)}"
                      for k, v in list(values.items())[:SHOWN_LOSSES])
    more = len(values) - SHOWN_LOSSES
    return shown + (f" and {more} more" if more > 0 else "")


def _stream_lines(name: str, reader: StreamReader) -> list[str]:
    label = name or "run"
    state = escaped(reader.state)
    last = reader.last
    if last is None:
        return [f"{label}: no finished step yet; {state}"]
    micro = sorted(reader.micro_batches)
    count = f"{reader.steps_read} step" + ("" if reader.steps_read == 1 else "s")
    lines = [f"{label}: {count} ({reader.first_step} to {last.step})"
             + ("" if micro == [1] else f", {'/'.join(map(str, micro))} losses() "
                "calls per step (accumulation)")
             + f"; {state}",
             f"  last losses: {_named(last.losses)} (total {_number(last.total)}); "
             f"global grad norm {_number(last.global_grad_norm)}"]
    if last.loss_weights:   # the curves are the losses as named; the total weighs them
        lines.append(f"  weights: {_named(last.loss_weights)} (the total is the sum of "
                     "weight x loss, as backpropagated)")
    if last.amp_scale is not None:
        lines.append(f"  AMP: scale {_number(last.amp_scale)} at the last step; "
                     f"{reader.amp_skipped} of {reader.steps_read} steps skipped by the "
                     "GradScaler (an inf or a NaN among the gradients)"
                     + (f", the last at step {reader.last_skipped}"
                        if reader.last_skipped is not None else ""))
    # a skipped step's norms are infinite or NaN (json's null): not a missing .grad
    missing = [] if last.amp_skipped else [
        p for p, v in (last.grad_norms or {}).items() if v is None]
    if missing:
        shown = ", ".join(shown_name(p) for p in missing[:SHOWN_NAMES])
        more = f" and {len(missing) - SHOWN_NAMES} more" if len(missing) > SHOWN_NAMES else ""
        lines.append(f"  no gradient (.grad None) at the last step: {shown}{more}")
    pushed = reader.last_pushed
    if pushed is not None:
        lines.append(f"  push at the features (step {pushed.step}): "
                     + _named(pushed.junction_grad_norms or {}))
        if pushed.cosine:   # each pair of losses' cosine at the last sampled step
            lines.append(f"  cosines (step {pushed.step}): "
                         f"{escaped(cosine_words(pushed.record()))}")
    return lines


def summary_lines(folder: str | Path) -> list[str]:
    """The summary; RunFolderError (one line) where the folder holds no run."""
    # one stream compares nothing: its steps are counted, not kept
    follower = FolderFollower(folder, max_rows=REPORT_ROWS,
                              keep_histories=len(stream_folders(folder)) > 1)
    follower.read()
    lines = []
    for name, reader in follower.readers.items():
        lines += _stream_lines(name, reader)
        lines += [f"  {note}" for note in reader.notes.all()]
    readers = follower.readers
    if len(readers) > 1:
        lines.insert(0, f"{shown_path(folder)}: {len(readers)} ranks ({', '.join(readers)})")
        histories = {n: h for n, h in follower.histories.items() if len(h)}
        if histories:
            lines.append(gradient_line(histories))
            kept = kept_words(max(histories.values(), key=lambda h: h.kept_every))
            if kept:
                lines.append(f"  (compared at {kept}: each rank's history keeps "
                             f"{REPORT_ROWS:,} rows at most)")
    if follower.unread_ranks:
        lines.append(f"{follower.unread_ranks} rank folders past the first "
                     f"{len(readers)} not read")
    return lines
