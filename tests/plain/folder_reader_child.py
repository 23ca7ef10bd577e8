"""Reads each folder named in a JSON file as `gradviz report` and as the window's
RecordedRun do, in one process whose address space is capped (RLIMIT_AS, the given MiB
above what it holds once imported), and writes what each gave as JSON: the exit code,
stdout, stderr, the run's status and notes, and the traceback of anything raised. Run
by test_hostile_folders.py: python folder_reader_child.py CASES.json OUT.json MIB"""
from __future__ import annotations

import contextlib
import io
import json
import resource
import sys
import traceback

from gradviz.app import main
from gradviz.plain.runs.recorded_run import RecordedRun

POLLS = 1000    # a run is polled until it has read all there is, at most this often


def _address_space() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmSize in /proc/self/status")


def _report(folder: str) -> dict:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["report", folder])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    return {"code": code, "out": out.getvalue(), "err": err.getvalue()}


def _window(folder: str) -> dict:
    run = RecordedRun(folder)
    for _ in range(POLLS):
        if not run.poll().more:
            break
    return {"status": run.status(), "notes": run.notes(), "problem": run.problem,
            "rows": 0 if run.history is None else len(run.history)}


def run_case(folder: str) -> dict:
    try:
        return {**_report(folder), **_window(folder), "raised": None}
    except BaseException:   # noqa: B036 - what the test reports: anything at all
        return {"raised": traceback.format_exc()}


def main_child(cases_file: str, out_file: str, mib: int) -> None:
    with open(cases_file) as f:
        cases = json.load(f)
    limit = _address_space() + mib * (1 << 20)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    results = {}
    for name, folder in cases.items():
        print(f"case {name}", file=sys.stderr, flush=True)   # the last one, on a hang
        results[name] = run_case(folder)
    with open(out_file, "w") as f:
        json.dump(results, f)


if __name__ == "__main__":
    main_child(sys.argv[1], sys.argv[2], int(sys.argv[3]))
