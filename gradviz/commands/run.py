"""`gradviz run`: train headless, print a summary, write a report.

Exit status: 0 done, 2 bad arguments/config/device, out of memory or a file that could
not be written, 3 the run hit the autograd error (or divergence) it demonstrates or the
model file's error at a step, 4 done but a model file left threads or processes.
"""
from __future__ import annotations

import argparse
import gc
import json
import sys
from pathlib import Path

from ..core.model_file import ModelFile
from ..core.session import Session
from ..core.threads import leave_a_core_free
from ..exit_codes import EXIT_AUTOGRAD_ERROR, EXIT_OK
from ..plain.config.config import SHOWN_PATH_CHARS, ConfigError, shown
from ..plain.files.atomic_write import check_writable, remove_stale_parts, write_text
from ..plain.program.model_script import model_script_text
from ..plain.program.script import script_text
from ..plain.records.events import first_line
from ..plain.records.records import StepRecord
from ..plain.run_files.report import ReportWriter
from ..plain.run_files.run_folder import MoveUnfinished, RunFolder, foreign
from ..plain.run_files.watch_read import GRAPH_KEY, REPORT_GRAPH
from .model_option import config_for, model_file_from_args
from .options import RUN_DEFAULTS, fail
from .stdout_gone import stdout_to_devnull

# gradviz run measures each head's cosine with the trunk update every this many steps
# at the least (`--probes all`: every step): it walks the trunk once more per head, and
# on the bundled CNN, every step, it more than halved the speed. The app samples its
# costly probes as often when it trains at full speed.
UPDATE_COSINE_EVERY = 20


def run_session(config, model_file: ModelFile | None = None) -> Session:
    """The session `gradviz run` trains (and `gradviz bench` times): its update cosine
    sampled (see UPDATE_COSINE_EVERY)."""
    session = Session(config, model_file)
    session.update_cosine_every = UPDATE_COSINE_EVERY
    return session


def _say(line: str) -> None:
    """A line on stdout. A reader that has gone (`gradviz run | head`) is not an error:
    the run goes on, quietly, to write its files and exit 0 (stdout_gone)."""
    try:
        print(line, flush=True)
    except BrokenPipeError:
        stdout_to_devnull()


def _warn(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _progress_every(steps: int) -> int:
    return max(1, steps // 10)


class Trained:
    """What the summary line needs of a finished run (the steps themselves are streamed)."""

    def __init__(self):
        self.count = 0
        self.first: StepRecord | None = None
        self.last: StepRecord | None = None

    def add(self, record) -> None:
        self.count += 1
        self.first = self.first or record
        self.last = record


def train(session: Session, steps: int, quiet: bool, report: ReportWriter | None,
          verbose: bool = False) -> Trained:
    trained = Trained()
    every = 1 if verbose else _progress_every(steps)
    frozen = False
    try:
        while trained.count < steps:
            record = session.step()
            if record is None:  # PyTorch raised, or the loss diverged
                break
            trained.add(record)
            if report is not None:
                report.add(record)
            if not quiet and (record.step % every == 0 or trained.count == steps):
                _say(f"step {record.step:>6}  total {record.total:.5g}")
            if not frozen:
                # what exists after the first step (torch, and what its first optimizer
                # step imports lazily: about 300,000 objects) is left out of the garbage
                # collector's passes while the run trains: a full pass over it took
                # 40-90 ms, once or more in a run, inside the loop (docs/benchmarks.md,
                # 4 December 2026). Given back to the collector when the run ends.
                gc.freeze()
                frozen = True
    finally:
        if frozen:
            gc.unfreeze()
    return trained


PNG_DPI = 96
PNG_MAX_PIXELS = 40e6   # a 1,000-node graph at full size is ~750 Mpx and 20 s of rasterising

# in write order; graph.json is the graph as `gradviz open` draws it, written even where
# Graphviz is missing
GRAPH_FILES = (REPORT_GRAPH, "graph.dot", "graph_torchviz.dot", "graph.svg", "graph.png")
# the files --out writes; a folder already there under one of these names is refused
OUT_FILES = ("report.json", "metrics.csv") + GRAPH_FILES
# the files that say whose a folder is (their header), with the ones written beside them:
# run's and compare's, so either command may reuse a folder the other wrote
COMPANIONS = {"report.json": OUT_FILES[1:], "compare.json": ("compare.csv",)}
SHOWN_FOREIGN = 3   # names of files gradviz did not write, in the refusal


def _export(run: RunFolder, session: Session) -> str | None:
    """The graph files, staged with the report. No Graphviz is a warning (the report is
    still the run's); a failed write comes back as words naming what was not written."""
    from ..render.export import export_graph
    from ..render.graphviz_program import RenderError
    graph = session.graph()
    try:
        write_text(run.path(REPORT_GRAPH), json.dumps(
            {GRAPH_KEY: 1, "step": session.step_index - 1, "graph": graph.to_dict()}) + "\n")
        try:
            export_graph(graph, run.staging, roots=session.root_tensors(),
                         params=dict(zip(session.param_names, session.params)))
        except RenderError as exc:
            _warn(f"gradviz: graph.svg and graph.png not written: {exc}")
            return None
        try:
            _write_png(graph, run.path("graph.png"))
        except RenderError as exc:
            _warn(f"gradviz: graph.png not written: {exc}")
    except OSError as exc:
        missing = [name for name in GRAPH_FILES if name not in run.written()]
        return f"could not write {_listed(missing)}: {exc.strerror or exc}"
    return None


def _write_png(graph, path: Path) -> None:
    """graph.png at 96 dpi, or less where that would be more than PNG_MAX_PIXELS."""
    from ..render.export import write_png
    from ..render.layout import layout_graph
    box = layout_graph(graph)       # the size without the legend: close enough to cap it
    area_in2 = max(1.0, box.width * box.height) / 72.0 ** 2
    dpi = min(PNG_DPI, (PNG_MAX_PIXELS / area_in2) ** 0.5)
    write_png(graph, path, dpi=max(10, int(dpi)))


def _in_write_order(name: str) -> tuple[int, str]:
    return (OUT_FILES.index(name) if name in OUT_FILES else len(OUT_FILES), name)


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _prepare_out(name: str, force: bool = False) -> Path:
    """The output folder, made and shown writable before any training is spent; one that
    holds files gradviz did not write is refused (--force: written into anyway)."""
    if not name.strip():
        fail("gradviz: --out needs a folder name, e.g. --out out/")
    out, named = Path(name), shown(name, SHOWN_PATH_CHARS)
    try:
        if out.exists() and not out.is_dir():
            fail(f"gradviz: --out {named} is not a folder")
        if not force:
            _refuse_foreign(out, named)
        out.mkdir(parents=True, exist_ok=True)
        check_writable(out)
    except OSError as exc:
        fail(f"gradviz: cannot write to output folder {named}: {exc.strerror or exc}")
    for file in OUT_FILES:
        if (out / file).is_dir():
            fail(f"gradviz: cannot write {file}: {shown(str(out / file), SHOWN_PATH_CHARS)} "
                 "is a folder")
    return out


def _refuse_foreign(out: Path, named: str) -> None:
    strangers = foreign(out, OUT_FILES, COMPANIONS)
    if strangers:
        more = len(strangers) - SHOWN_FOREIGN
        names = ", ".join(shown(n, 60) for n in strangers[:SHOWN_FOREIGN]) + \
            (f" and {more} more" if more > 0 else "")
        fail(f"gradviz: --out {named} holds files gradviz did not write ({names}); "
             "name an empty or new folder, or add --force to write there anyway")


def _train_and_write(out: Path | None, config, session: Session, quiet: bool,
                     script: Path | None = None, verbose: bool = False) -> Trained:
    """Train, streaming the report into a staging folder; then every file of the run
    (the script too, given one inside out) replaces the last run's at once. A failed
    write is exit 2 with one line saying exactly what was and was not written."""
    if out is None:
        return train(session, config.steps, quiet, None, verbose)
    where = shown(str(out), SHOWN_PATH_CHARS)
    try:
        with RunFolder(out, OUT_FILES) as run:
            with ReportWriter(run.staging, config, str(session.device),
                              session.param_names, _model_file_entry(session),
                              session.update_cosine_every) as report:
                trained = train(session, config.steps, quiet, report, verbose)
                report.finish(session.events)
            if script is not None:
                write_text(run.path(script.name),
                           _script_text(config, script.name, session.model_file))
            problem = _export(run, session)
            written = sorted(run.commit(), key=_in_write_order)
    except MoveUnfinished as exc:
        fail(f"gradviz: could not move every file of this run into {where}: "
             f"{exc.strerror or exc}; the next run into it finishes the move")
    except OSError as exc:
        name = f" ({shown(exc.filename, SHOWN_PATH_CHARS)})" if exc.filename else ""
        fail(f"gradviz: could not write the run to {where}{name}: {exc.strerror or exc}; "
             "the files there are as they were")
    if problem is not None:
        fail(f"gradviz: wrote {_listed(written)} to {where}; {problem}")
    return trained


def _model_file_entry(session: Session) -> dict | None:
    """report.json's word on the model file trained: which file (its content's hash too,
    as a file can change after the run) and what its heads are called."""
    if session.model_file is None or session.spec is None:
        return None
    return {"path": str(session.model_file.path), "sha256": session.model_file.digest,
            "names": session.spec.names}


def _script_target(name: str, out: Path | None) -> Path | None:
    """The script's path when it goes into the --out folder with the run's files."""
    path = Path(name)
    if out is None or path.parent.resolve() != out.resolve():
        return None
    if path.is_dir():
        fail(f"gradviz: cannot write --script {shown(name, SHOWN_PATH_CHARS)}: it is a folder")
    if path.name in OUT_FILES:
        fail(f"gradviz: --script cannot be {path.name} in the --out folder: "
             "the report's files have that name")
    return path


def _script_text(config, name: str, model_file: ModelFile | None) -> str:
    if model_file is None:
        return script_text(config, name)
    model_file.head_count()   # its taps
    return model_script_text(config, model_file.path, model_file.taps, name)


def _write_script(name: str, config, model_file: ModelFile | None = None) -> None:
    """The settings as a runnable program, whole or not at all; a failure is exit 2."""
    named = shown(name, SHOWN_PATH_CHARS)
    if not name.strip():
        fail("gradviz: --script needs a file name, e.g. --script loop.py")
    if Path(name).is_dir():
        fail(f"gradviz: cannot write --script {named}: it is a folder")
    path = Path(name)
    try:
        remove_stale_parts(path.parent, [path.name])   # what a killed earlier write left
        write_text(path, _script_text(config, path.name, model_file))
    except OSError as exc:
        fail(f"gradviz: cannot write --script {named}: {exc.strerror or exc}")


def _out_of_memory() -> tuple[type[BaseException], ...]:
    import torch
    return (torch.OutOfMemoryError, MemoryError)


def main(args: argparse.Namespace) -> int:
    script = vars(args).pop("script", None)
    model_file = model_file_from_args(args)
    config = config_for(args, model_file, RUN_DEFAULTS)
    out = _prepare_out(args.out, args.force) if args.out is not None else None
    staged = _script_target(script, out) if script is not None and script.strip() else None
    if script is not None and staged is None:
        _write_script(script, config, model_file)
    try:
        session = run_session(config, model_file)
    except ConfigError as exc:   # a model file's build() or batch() that does not fit too
        fail(f"gradviz: {exc}")
    except (RuntimeError, MemoryError) as exc:   # e.g. a model too big to allocate
        fail(f"gradviz: cannot build that model: {first_line(exc)}")
    leave_a_core_free()
    try:
        trained = _train_and_write(out, config, session, args.quiet, staged, args.verbose)
    except _out_of_memory() as exc:
        kept = f"the files in {shown(str(out), SHOWN_PATH_CHARS)} are as they were; " \
            if out else ""
        fail(f"gradviz: out of memory at step {session.step_index} ({first_line(exc)}); "
             f"{kept}try a smaller --batch-size or --trunk-width")
    finally:
        session.close()   # its DDP ranks (--ddp-ranks), if any
    if session.error is not None:
        e = session.error
        print(f"gradviz: {e.one_line()}", file=sys.stderr)
        print(f"  why: {e.explanation}", file=sys.stderr)
        print(f"  what to do: {e.hint}", file=sys.stderr)
        return EXIT_AUTOGRAD_ERROR
    if trained.first is None or trained.last is None:   # no step finished
        _say(f"trained 0 steps on {session.device}")
    else:
        _say(f"trained {trained.count} steps on {session.device}: total loss "
             f"{trained.first.total:.5g} -> {trained.last.total:.5g}"
             + (f"; report in {out}" if out else ""))
    return EXIT_OK
