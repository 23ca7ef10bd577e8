"""`gradviz run`: train headless, print a summary, write a report.

Exit status: 0 done, 2 bad arguments/config/device, 3 the run hit the autograd error
(or divergence) it demonstrates; the report is written in every case but 2.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..core.atomic_write import check_writable
from ..core.config import ConfigError, shown
from ..core.report import write_metrics_csv, write_report
from ..core.session import Session
from ..core.threads import leave_a_core_free
from .options import EXIT_AUTOGRAD_ERROR, EXIT_OK, add_training_options, config_from_args, fail


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("run", help="train headless and write a report",
                              description="Train headless and write a report.")
    add_training_options(p)
    p.add_argument("--out", metavar="DIR",
                   help="write report.json, metrics.csv, graph.dot, graph.svg, graph.png here")
    p.add_argument("--quiet", action="store_true", help="print only the summary")
    p.set_defaults(func=main)


def _progress_every(steps: int) -> int:
    return max(1, steps // 10)


def train(session: Session, steps: int, quiet: bool) -> list:
    records = []
    every = _progress_every(steps)
    while len(records) < steps:
        record = session.step()
        if record is None:  # PyTorch raised, or the loss diverged
            break
        records.append(record)
        if not quiet and (record.step % every == 0 or len(records) == steps):
            print(f"step {record.step:>6}  total {record.total:.5g}", flush=True)
    return records


PNG_DPI = 96
PNG_MAX_PIXELS = 40e6   # a 1,000-node graph at full size is ~750 Mpx and 20 s of rasterising


def _export(out: Path, session: Session) -> None:
    from ..render.engine import RenderError
    from ..render.export import export_graph
    graph = session.graph()
    roots = session.root_tensors()
    try:
        export_graph(graph, out, roots=roots,
                     params=dict(zip(session.param_names, session.params)))
    except RenderError as exc:
        print(f"gradviz: graph.svg and graph.png not written: {exc}", file=sys.stderr)
        return
    try:
        _write_png(graph, out / "graph.png")
    except RenderError as exc:
        print(f"gradviz: graph.png not written: {exc}", file=sys.stderr)


def _write_png(graph, path: Path) -> None:
    """graph.png at 96 dpi, or less where that would be more than PNG_MAX_PIXELS."""
    from ..render.export import write_png
    from ..render.layout import layout_graph
    box = layout_graph(graph)       # the size without the legend: close enough to cap it
    area_in2 = max(1.0, box.width * box.height) / 72.0 ** 2
    dpi = min(PNG_DPI, (PNG_MAX_PIXELS / area_in2) ** 0.5)
    write_png(graph, path, dpi=max(10, int(dpi)))


# the files --out writes; a folder already there under one of these names is refused
OUT_FILES = ("report.json", "metrics.csv", "graph.dot", "graph.svg", "graph.png",
             "graph_torchviz.dot")


def _prepare_out(name: str) -> Path:
    """The output folder, made and shown writable before any training is spent."""
    if not name.strip():
        fail("gradviz: --out needs a folder name, e.g. --out out/")
    out = Path(name)
    try:
        out.mkdir(parents=True, exist_ok=True)
        if not out.is_dir():
            fail(f"gradviz: --out {shown(name)} is not a folder")
        check_writable(out)
    except OSError as exc:
        fail(f"gradviz: cannot write to output folder {shown(name)}: {exc.strerror or exc}")
    for file in OUT_FILES:
        if (out / file).is_dir():
            fail(f"gradviz: cannot write {file}: {shown(str(out / file))} is a folder")
    return out


def _write_outputs(out: Path, config, session: Session, records: list) -> None:
    """Every file whole or not at all; a failed write is exit 2 with one line."""
    try:
        write_report(out, config, str(session.device), records, session.events)
        write_metrics_csv(out, config, session.param_names, records)
        _export(out, session)
    except OSError as exc:
        where = f" ({shown(exc.filename)})" if exc.filename else ""
        fail(f"gradviz: could not write the report to {shown(str(out))}{where}: "
             f"{exc.strerror or exc}")


def main(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    out = _prepare_out(args.out) if args.out is not None else None
    try:
        session = Session(config)
    except ConfigError as exc:
        fail(f"gradviz: {exc}")
    except (RuntimeError, MemoryError) as exc:   # e.g. a model too big to allocate
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
        fail(f"gradviz: cannot build that model: {reason}")
    leave_a_core_free()
    records = train(session, config.steps, args.quiet)
    if out is not None:
        _write_outputs(out, config, session, records)
    if session.error is not None:
        e = session.error
        print(f"gradviz: {e.one_line()}", file=sys.stderr)
        print(f"  why: {e.explanation}", file=sys.stderr)
        print(f"  what to do: {e.hint}", file=sys.stderr)
        return EXIT_AUTOGRAD_ERROR
    if not records:
        print(f"trained 0 steps on {session.device}")
    else:
        first, last = records[0], records[-1]
        print(f"trained {len(records)} steps on {session.device}: total loss "
              f"{first.total:.5g} -> {last.total:.5g}"
              + (f"; report in {out}" if out else ""))
    return EXIT_OK
