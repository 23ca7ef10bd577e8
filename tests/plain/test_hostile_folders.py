"""Run folders made to break a reader, each read as `gradviz report` and as the window's
RecordedRun read it: every one ends in a shown run or one line, never a traceback, a
hang or a read outside the folder, in bounded memory.

The folders are made at test time (the large files sparse, by truncate). They are all
read by one child process (folder_reader_child.py) whose address space is capped at
CAP_MIB above what it holds once imported: a reader that held a 2 GB file, a 64 MiB line
or a /dev/zero in memory fails there with MemoryError, which the child reports as the
traceback it is. A FIFO that blocked the reader would end the child's time instead."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import gradviz
from gradviz.plain.run_files.watch_stream import GRAPHS, HEADER, STEPS

from run_folder_lines import lines, write_stream

CAP_MIB = 200          # address space a reading may add to the child's
CHILD_SECONDS = 120    # all cases together take a few seconds
CHILD = Path(__file__).with_name("folder_reader_child.py")
GIB = 1 << 30
SECRET = "SECRET_OUTSIDE"   # a name only the files outside the folders hold


def _append(folder: Path, *raw: bytes, name: str = STEPS) -> None:
    with open(folder / name, "ab") as f:
        for line in raw:
            f.write(line if line.endswith(b"\n") else line + b"\n")


def _step(number: int, **changes) -> bytes:
    data = json.loads(lines(1, number)[0])
    data.update(changes)
    return json.dumps(data).encode()


def _stream(folder: Path, steps: int = 2) -> Path:
    return write_stream(folder, steps)


def _header(folder: Path, **changes) -> None:
    data = json.loads((folder / HEADER).read_text())
    data.update(changes)
    (folder / HEADER).write_text(json.dumps(data))


def _outside(tmp: Path) -> Path:
    """A good stream outside every case's folder, whose loss is named SECRET."""
    folder = tmp / "outside"
    if not folder.exists():
        _stream(folder)
        text = (folder / STEPS).read_text().replace('"head0"', f'"{SECRET}"')
        (folder / STEPS).write_text(text)
    return folder


def bad_utf8(f: Path) -> None:
    _stream(f)
    _append(f, b'{"step": 2, "losses": {"\xff\xfe": 1.0}, "total": 1.0}', _step(3))


def losses_a_list(f: Path) -> None:
    _stream(f)
    _append(f, _step(2, losses=[1, 2]), _step(3))


def grad_norms_a_string(f: Path) -> None:
    _stream(f)
    _append(f, _step(2, grad_norms="big"), _step(3))


def nested_deeply(f: Path) -> None:
    _stream(f)
    _append(f, b"[" * 200_000, b'{"step": 2, "deep": ' + b"[" * 200_000 + b"}", _step(3))


def step_too_large(f: Path) -> None:
    _stream(f)
    _append(f, _step(2).replace(b'"step": 2', b'"step": 1e999'), _step(3))


def step_a_string(f: Path) -> None:
    _stream(f)
    _append(f, _step(2, step="abc"), _step(3))


def count_too_large(f: Path) -> None:
    _stream(f)
    _append(f, _step(2).replace(b'"saved_bytes": null', b'"saved_bytes": 1' + b"0" * 400),
            _step(3))


def micro_batches_zero(f: Path) -> None:
    _stream(f)
    _append(f, _step(2, micro_batches=0), _step(3))


def cosine_not_square(f: Path) -> None:
    _stream(f)
    _append(f, _step(2, cosine=[[1.0, 0.5]]), _step(3))


def steps_going_back(f: Path) -> None:
    _stream(f)
    _append(f, _step(1), _step(3))


def losses_renamed(f: Path) -> None:
    _stream(f)
    _append(f, _step(2, losses={"other": 1.0}), _step(3))


def unknown_fields(f: Path) -> None:
    _stream(f)
    _append(f, _step(2, future_field={"a": [1, 2]}, another=None), _step(3))


def param_names_an_int(f: Path) -> None:
    _stream(f)
    _header(f, param_names=7)


def header_not_json(f: Path) -> None:
    _stream(f)
    (f / HEADER).write_bytes(b"\x00\x01 not json")


def header_too_big(f: Path) -> None:
    _stream(f)
    os.truncate(f / HEADER, 5 << 20)


def header_ended_with_escapes(f: Path) -> None:
    _stream(f)
    _header(f, ended={"how": "exception", "what": "\x1b]0;owned\x07 boom\r"})


def names_with_escapes(f: Path) -> None:
    names = ["\x1b[2J\x1b[H", "\x1b]0;retitled\x07", "\x1b]8;;http://x.test/\x1b\\link"
             "\x1b]8;;\x1b\\", "\rover", "\u202eevil", "long" * 200]
    _stream(f)
    (f / STEPS).write_bytes(b"")
    for step in range(2):
        _append(f, _step(step, losses={n: 1.0 for n in names}, junction_grad_norms={
            n: 0.5 for n in names}, cosine=None, grad_norms={n: None for n in names}))


def many_names(f: Path) -> None:
    """As many losses and parameters as a line may name: the history holds fewer rows."""
    names = [f"n{i}" for i in range(16384)]
    _stream(f)
    _header(f, param_names=names)
    (f / STEPS).write_bytes(b"")
    for step in range(3):
        _append(f, _step(step, losses={n: 1.0 for n in names}, cosine=None,
                         grad_norms={n: 0.5 for n in names}, grad_fingerprint=None,
                         junction_grad_norms=None))


def steps_a_fifo(f: Path) -> None:
    _stream(f)
    (f / STEPS).unlink()
    os.mkfifo(f / STEPS)


def steps_to_dev_zero(f: Path) -> None:
    _stream(f)
    (f / STEPS).unlink()
    (f / STEPS).symlink_to("/dev/zero")


def steps_to_a_file_outside(f: Path) -> None:
    _stream(f)
    (f / STEPS).unlink()
    (f / STEPS).symlink_to(_outside(f.parent) / STEPS)


def rank_linked_outside(f: Path) -> None:
    _stream(f / "rank-0")
    (f / "rank-1").symlink_to(_outside(f.parent), target_is_directory=True)


def rank_superscript(f: Path) -> None:
    _stream(f / "rank-0")
    _stream(f / "rank-²")
    _stream(f / "rank-01")


def only_rank_superscript(f: Path) -> None:
    _stream(f / "rank-²")


def sparse_2gb_line(f: Path) -> None:
    _stream(f)
    size = (f / STEPS).stat().st_size
    os.truncate(f / STEPS, size + 2 * GIB)   # a hole: a 2 GB line of NUL bytes
    _append(f, b"\n" + _step(2))


def sparse_2gb_no_newline(f: Path) -> None:
    _stream(f)
    (f / STEPS).write_bytes(b"")
    os.truncate(f / STEPS, 2 * GIB)


def line_of_64mib(f: Path) -> None:
    _stream(f)
    _append(f, b'{"step": 2, "x": "' + b"x" * (64 << 20) + b'"}', _step(3))


def graph_edge_to_nowhere(f: Path) -> None:
    _stream(f)
    graph = {"nodes": [{"id": "a", "kind": "param", "label": "w"}],
             "edges": [{"src": "a", "dst": "b"}]}
    _append(f, json.dumps({"step": 0, "graph": graph}).encode(), name=GRAPHS)


def graph_wrong_types(f: Path) -> None:
    _stream(f)
    _append(f, b'{"step": 0, "graph": {"nodes": [{"id": 1}]}}', name=GRAPHS)


def report_a_fifo(f: Path) -> None:
    f.mkdir()
    os.mkfifo(f / "report.json")


def report_whole_with_a_bad_step(f: Path) -> None:
    f.mkdir()
    steps = [json.loads(line) for line in lines(3)]
    steps[1]["losses"] = [1.0]
    (f / "report.json").write_text(json.dumps({"gradviz_report": 1, "config": {},
                                               "steps": steps}))


def report_cut_short(f: Path) -> None:
    f.mkdir()
    head = b'{"gradviz_report": 1, "config": {}, "device": "cpu", "steps": [\n'
    body = b",\n".join(line.rstrip() for line in lines(3))
    (f / "report.json").write_bytes(head + body + b"\n")


def folder_a_fifo(f: Path) -> None:
    os.mkfifo(f)


def folder_named_with_escapes(f: Path) -> None:
    f.mkdir()


# name: (how the folder is made, report's exit code, words its output holds)
CASES = {
    "bad-utf8": (bad_utf8, 0, ["steps.jsonl:3: not JSON", "run: 3 steps (0 to 3)"]),
    "losses-a-list": (losses_a_list, 0, ["steps.jsonl:3: losses: expected object, got "
                                         "array", "run: 3 steps (0 to 3)"]),
    "grad-norms-a-string": (grad_norms_a_string, 0, ["steps.jsonl:3: grad_norms: expected "
                                                     "object | null, got str"]),
    "nested-deeply": (nested_deeply, 0, ["steps.jsonl:3: expected object, got array",
                                         "steps.jsonl:4: nested too deeply",
                                         "run: 3 steps (0 to 3)"]),
    "step-1e999": (step_too_large, 0, ["steps.jsonl:3: step: number out of range"]),
    "step-abc": (step_a_string, 0, ["steps.jsonl:3: step: expected int, got str"]),
    "count-too-large": (count_too_large, 0, ["steps.jsonl:3: saved_bytes: "]),
    "micro-batches-zero": (micro_batches_zero, 0, ["steps.jsonl:3: micro_batches: expected "
                                                   "int >= 1"]),
    "cosine-not-square": (cosine_not_square, 0, ["steps.jsonl:3: cosine: not a matrix"]),
    "steps-going-back": (steps_going_back, 0, ["steps.jsonl:3: step: 1 is not after the "
                                               "step before it (1)", "run: 3 steps"]),
    "losses-renamed": (losses_renamed, 0, ["steps.jsonl:3: losses: not the losses of the "
                                           "stream's first step (head0, head1, head2)"]),
    "unknown-fields": (unknown_fields, 0, ["run: 4 steps (0 to 3)"]),
    "param-names-an-int": (param_names_an_int, 0, ["watch.json: param_names: expected "
                                                   "array, got int", "run: 2 steps"]),
    "header-not-json": (header_not_json, 0, ["watch.json: not JSON", "no finished step"]),
    "header-too-big": (header_too_big, 0, ["watch.json: 5,242,880 bytes, over the 4 MiB"]),
    "header-ended-with-escapes": (header_ended_with_escapes, 0, [
        "ended by an exception (\\x1b]0;owned\\x07 boom\\x0d)"]),
    "names-with-escapes": (names_with_escapes, 0, [
        "\\x1b[2J\\x1b[H 1", "\\x1b]0;retitled\\x07 1", "\\x0dover", "\\u202eevil",
        "longlong", "…"]),
    "many-names": (many_names, 0, ["run: 3 steps (0 to 2)", "n11 1 and 16372 more"]),
    "steps-a-fifo": (steps_a_fifo, 0, ["steps.jsonl: a FIFO, not a regular file"]),
    "steps-to-dev-zero": (steps_to_dev_zero, 0, ["steps.jsonl: a symbolic link, not "
                                                 "followed"]),
    "steps-to-a-file-outside": (steps_to_a_file_outside, 0, ["a symbolic link, not "
                                                             "followed"]),
    "rank-linked-outside": (rank_linked_outside, 0, ["rank-0: 2 steps"]),
    "rank-superscript": (rank_superscript, 0, ["rank-0: 2 steps"]),
    "only-rank-superscript": (only_rank_superscript, 2, ["no gradviz run in it"]),
    "sparse-2gb-line": (sparse_2gb_line, 0, ["steps.jsonl:3: a line over 1 MiB: skipped",
                                             "run: 3 steps (0 to 2)"]),
    "sparse-2gb-no-newline": (sparse_2gb_no_newline, 0, [
        "steps.jsonl:1: a line over 1 MiB: skipped", "no finished step yet"]),
    "line-of-64mib": (line_of_64mib, 0, ["steps.jsonl:3: a line over 1 MiB: skipped",
                                         "run: 3 steps (0 to 3)"]),
    "graph-edge-to-nowhere": (graph_edge_to_nowhere, 0, [
        "graphs.jsonl:1: graph.edges: an edge to a node the graph does not have"]),
    "graph-wrong-types": (graph_wrong_types, 0, ["graphs.jsonl:1: graph.nodes[0].id: "
                                                 "expected str, got int"]),
    "report-a-fifo": (report_a_fifo, 0, ["report.json: a FIFO, not a regular file"]),
    "report-whole-with-a-bad-step": (report_whole_with_a_bad_step, 0, [
        "report.json: steps[1]: losses: expected object, got array",
        "run: 2 steps (0 to 2)"]),
    "report-cut-short": (report_cut_short, 0, ["report.json: ends before its steps' "
                                               "closing ]", "run: 3 steps (0 to 2)"]),
    "folder-a-fifo": (folder_a_fifo, 2, ["not a folder"]),
    "folder-\x1b[31mred": (folder_named_with_escapes, 2, ["folder-\\x1b[31mred: no gradviz "
                                                          "run in it"]),
}


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict:
    base = tmp_path_factory.mktemp("hostile")
    folders = {}
    for name, (make, _, _) in CASES.items():
        folders[name] = str(base / name)
        make(base / name)
    (base / "cases.json").write_text(json.dumps(folders))
    env = {**os.environ, "PYTHONPATH": str(Path(gradviz.__file__).parents[1]),
           "OPENBLAS_NUM_THREADS": "1"}
    try:
        child = subprocess.run(
            [sys.executable, str(CHILD), str(base / "cases.json"), str(base / "out.json"),
             str(CAP_MIB)], capture_output=True, text=True, timeout=CHILD_SECONDS, env=env)
    except subprocess.TimeoutExpired as exc:
        last = (exc.stderr or b"").decode(errors="replace").strip().splitlines()[-1:]
        pytest.fail(f"the reader hung: {last}")
    assert child.returncode == 0, child.stderr[-3000:]
    return json.loads((base / "out.json").read_text())


@pytest.mark.parametrize("name", list(CASES))
def test_a_hostile_folder_is_a_shown_run_or_one_line(results, name):
    _, code, words = CASES[name]
    got = results[name]
    assert got["raised"] is None, got["raised"]
    said = got["out"] + got["err"]
    assert got["code"] == code, said
    assert "Traceback" not in said
    assert got["err"].count("\n") == (1 if code else 0), got["err"]
    for word in words:
        assert word in said, (word, said)
    window = [got["status"], *got["notes"]]
    for text in [said, *window]:
        # nothing a terminal or a label would obey: ESC, BEL, CR, a bidi override
        assert not any(c in text for c in "\x1b\x07\r\u202e"), repr(text)
        assert SECRET not in text   # nothing read outside the folder
    assert all("\n" not in line for line in window)
    if code == 0:   # the window shows the same notes, and the run or why not
        assert got["notes"] == [line.strip() for line in got["out"].splitlines()
                                if line.strip() in got["notes"]]


def test_the_window_says_as_much_as_the_report(results):
    got = results["losses-a-list"]
    assert got["problem"] is None and got["rows"] == 3
    assert got["notes"][0].endswith("steps.jsonl:3: losses: expected object, got array")
    assert got["status"].endswith("3 steps (0 to 3); finished; 1 line about what was "
                                  "skipped")
    assert results["folder-a-fifo"]["problem"].endswith("not a folder")


def test_report_into_a_closed_pipe_ends_quietly(tmp_path):
    """`gradviz report DIR | head`: the reader gone before the lines are written."""
    write_stream(tmp_path, 3)
    env = {**os.environ, "PYTHONPATH": str(Path(gradviz.__file__).parents[1])}
    child = subprocess.Popen([sys.executable, "-m", "gradviz", "report", str(tmp_path)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert child.stdout is not None and child.stderr is not None
    child.stdout.close()    # no reader: the first write gets EPIPE
    err = child.stderr.read()
    assert child.wait(timeout=60) == 0 and err == b""
