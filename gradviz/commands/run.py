"""`gradviz run`: train headless, print a summary, write a report.

Exit status: 0 done, 2 bad arguments/config/device, 3 the run hit the autograd error
(or divergence) it demonstrates; the report is written in every case but 2.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..core.atomic_write import check_writable, write_text
from ..core.config import SHOWN_PATH_CHARS, ConfigError, shown
from ..core.events import first_line
from ..core.report import ReportWriter
from ..core.script import script_text
from ..core.session import Session
from ..core.threads import leave_a_core_free
from .options import EXIT_AUTOGRAD_ERROR, EXIT_OK, add_training_options, config_from_args, fail


def _progress_every(steps: int) -> int:
    return max(1, steps // 10)


class Trained:
    """What the summary line needs of a finished run (the steps themselves are streamed)."""

    def __init__(self):
        self.count, self.first, self.last = 0, None, None

    def add(self, record) -> None:
        self.count += 1
        self.first = self.first or record
        self.last = record


def train(session: Session, steps: int, quiet: bool, report: ReportWriter | None) -> Trained:
    trained = Trained()
    every = _progress_every(steps)
    while trained.count < steps:
        record = session.step()
        if record is None:  # PyTorch raised, or the loss diverged
            break
        trained.add(record)
        if report is not None:
            report.add(record)
        if not quiet and (record.step % every == 0 or trained.count == steps):
            print(f"step {record.step:>6}  total {record.total:.5g}", flush=True)
    return trained


def timed_run(config, steps: int) -> float:
    """Steps per second of this command's own loop (train()) with the report streamed to
    a temporary folder, progress printed (to nowhere) as usual; the graph files written
    once at the end are left out. For `gradviz bench`."""
    import contextlib
    import io
    import tempfile
    import time

    from ..core.bench import warm_up
    session = Session(config)
    warm_up(session, steps)
    with tempfile.TemporaryDirectory(prefix="gradviz-bench-") as folder, \
            contextlib.redirect_stdout(io.StringIO()):
        start = time.perf_counter()
        with ReportWriter(Path(folder), config, str(session.device),
                          session.param_names) as report:
            trained = train(session, steps, False, report)
            report.finish(session.events)
        if session.device.type == "cuda":
            import torch
            torch.cuda.synchronize(session.device)
        elapsed = time.perf_counter() - start
    return trained.count / elapsed if trained.count else 0.0


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
    out, named = Path(name), shown(name, SHOWN_PATH_CHARS)
    try:
        if out.exists() and not out.is_dir():
            fail(f"gradviz: --out {named} is not a folder")
        out.mkdir(parents=True, exist_ok=True)
        check_writable(out)
    except OSError as exc:
        fail(f"gradviz: cannot write to output folder {named}: {exc.strerror or exc}")
    for file in OUT_FILES:
        if (out / file).is_dir():
            fail(f"gradviz: cannot write {file}: {shown(str(out / file), SHOWN_PATH_CHARS)} "
                 "is a folder")
    return out


def _train_and_write(out: Path | None, config, session: Session, quiet: bool) -> Trained:
    """Train, streaming the report; every file whole or not at all, and a failed write
    is exit 2 with one line."""
    if out is None:
        return train(session, config.steps, quiet, None)
    try:
        with ReportWriter(out, config, str(session.device), session.param_names) as report:
            trained = train(session, config.steps, quiet, report)
            report.finish(session.events)
        _export(out, session)
    except OSError as exc:
        where = f" ({shown(exc.filename, SHOWN_PATH_CHARS)})" if exc.filename else ""
        fail(f"gradviz: could not write the report to {shown(str(out), SHOWN_PATH_CHARS)}{where}: "
             f"{exc.strerror or exc}")
    return trained


def _write_script(name: str, config) -> None:
    """The settings as a runnable program, whole or not at all; a failure is exit 2."""
    named = shown(name, SHOWN_PATH_CHARS)
    if not name.strip():
        fail("gradviz: --script needs a file name, e.g. --script loop.py")
    if Path(name).is_dir():
        fail(f"gradviz: cannot write --script {named}: it is a folder")
    try:
        write_text(name, script_text(config, Path(name).name))
    except OSError as exc:
        fail(f"gradviz: cannot write --script {named}: {exc.strerror or exc}")


def main(args: argparse.Namespace) -> int:
    script = vars(args).pop("script", None)
    config = config_from_args(args)
    out = _prepare_out(args.out) if args.out is not None else None
    if script is not None:
        _write_script(script, config)
    try:
        session = Session(config)
    except ConfigError as exc:
        fail(f"gradviz: {exc}")
    except (RuntimeError, MemoryError) as exc:   # e.g. a model too big to allocate
        fail(f"gradviz: cannot build that model: {first_line(exc)}")
    leave_a_core_free()
    trained = _train_and_write(out, config, session, args.quiet)
    if session.error is not None:
        e = session.error
        print(f"gradviz: {e.one_line()}", file=sys.stderr)
        print(f"  why: {e.explanation}", file=sys.stderr)
        print(f"  what to do: {e.hint}", file=sys.stderr)
        return EXIT_AUTOGRAD_ERROR
    if not trained.count:
        print(f"trained 0 steps on {session.device}")
    else:
        print(f"trained {trained.count} steps on {session.device}: total loss "
              f"{trained.first.total:.5g} -> {trained.last.total:.5g}"
              + (f"; report in {out}" if out else ""))
    return EXIT_OK
