"""A run folder in a few lines of text (`gradviz report DIR`): its streams, steps, last
losses, the parameters without a gradient, the last push, and whether ranks agree."""
from __future__ import annotations

from pathlib import Path

from .rank_agreement import gradient_line
from .records import StepRecord
from .run_view import cosine_words
from .watch_read import StreamReader, history_for, stream_folders

SHOWN_NAMES = 6     # parameters without a gradient named, then a count


def _number(value: float | None) -> str:
    return "none" if value is None else f"{value:.4g}"


def _stream_lines(name: str, records: list[StepRecord], reader: StreamReader) -> list[str]:
    label = name or "run"
    if not records:
        return [f"{label}: no finished step yet; {reader.state}"]
    last = records[-1]
    micro = set(reader.micro_batches)
    count = f"{len(records)} step" + ("" if len(records) == 1 else "s")
    lines = [f"{label}: {count} ({records[0].step} to {last.step})"
             + ("" if micro == {1} else f", {'/'.join(map(str, sorted(micro)))} losses() "
                "calls per step (accumulation)")
             + f"; {reader.state}",
             "  last losses: " + ", ".join(f"{k} {_number(v)}" for k, v in last.losses.items())
             + f" (total {_number(last.total)}); global grad norm "
             + _number(last.global_grad_norm)]
    if last.loss_weights:   # the curves are the losses as named; the total weighs them
        lines.append("  weights: " + ", ".join(f"{k} {_number(v)}"
                                              for k, v in last.loss_weights.items())
                     + " (the total is the sum of weight x loss, as backpropagated)")
    if last.amp_scale is not None:
        skipped = [r.step for r in records if r.amp_skipped]
        lines.append(f"  AMP: scale {_number(last.amp_scale)} at the last step; "
                     f"{len(skipped)} of {len(records)} steps skipped by the GradScaler "
                     "(an inf or a NaN among the gradients)"
                     + (f", the last at step {skipped[-1]}" if skipped else ""))
    # a skipped step's norms are infinite or NaN (json's null): not a missing .grad
    missing = [] if last.amp_skipped else [
        p for p, v in (last.grad_norms or {}).items() if v is None]
    if missing:
        shown = ", ".join(missing[:SHOWN_NAMES])
        more = f" and {len(missing) - SHOWN_NAMES} more" if len(missing) > SHOWN_NAMES else ""
        lines.append(f"  no gradient (.grad None) at the last step: {shown}{more}")
    pushed = next((r for r in reversed(records) if r.junction_grad_norms), None)
    if pushed is not None:
        lines.append(f"  push at the features (step {pushed.step}): " + ", ".join(
            f"{k} {_number(v)}" for k, v in (pushed.junction_grad_norms or {}).items()))
    cosined = next((r for r in reversed(records) if r.cosine), None)
    if cosined is not None:   # each pair of losses' cosine at the last sampled step
        lines.append(f"  cosines (step {cosined.step}): {cosine_words(cosined)}")
    return lines


def summary_lines(folder: str | Path) -> list[str]:
    """The summary; RunFolderError (one line) where the folder holds no run."""
    streams, readers, lines = {}, {}, []
    for name, path in stream_folders(folder).items():
        reader = readers[name] = StreamReader(path)
        streams[name] = reader.read()
        lines += _stream_lines(name, streams[name], reader)
    if len(streams) > 1:
        lines.insert(0, f"{folder}: {len(streams)} ranks ({', '.join(streams)})")
        lines.append(gradient_line({name: history_for(readers[name].header or {}, records)
                                    for name, records in streams.items() if records}))
    return lines
