"""How fast the reader decodes and checks step lines: msgspec Structs (the reader's
decoder, gradviz.plain.run_files.folder_records) against json.loads followed by the same checks
written by hand, on 100,000 realistic step lines (run_folder_lines). Run alone:

    .venv/bin/python tests/plain/reader_bench.py [LINES]

Prints the best of 5 runs of each, per line and per second; docs/benchmarks.md ("Reading
a run folder") records what it printed."""
from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from gradviz.plain.run_files.folder_records import (
    MAX_COUNT,
    MAX_FINGERPRINT,
    MAX_MICRO_BATCHES,
    MAX_NAME_CHARS,
    MAX_NAMES,
    MAX_STEP,
    RecordError,
    decode_step,
)

from run_folder_lines import lines  # noqa: E402


class Wrong(ValueError):
    pass


def _int(data: dict, key: str, low: int, high: int, default=None):
    v = data.get(key, default)
    if v is None:
        return v
    if type(v) is not int or not low <= v <= high:
        raise Wrong(key)
    return v


def _float(data: dict, key: str, low: float = -math.inf, required=False):
    if required and key not in data:
        raise Wrong(key)
    v = data.get(key)
    if v is None:
        return v
    t = type(v)
    if t is int:
        v = float(v)
    elif t is not float or not math.isfinite(v):
        raise Wrong(key)
    if v < low:
        raise Wrong(key)
    return v


def _named(data: dict, key: str, low: float = -math.inf):
    d = data.get(key)
    if d is None:
        return d
    if type(d) is not dict or len(d) > MAX_NAMES:
        raise Wrong(key)
    out = {}
    for k, v in d.items():
        if len(k) > MAX_NAME_CHARS:
            raise Wrong(key)
        if v is not None:
            t = type(v)
            if t is int:
                v = float(v)
            elif t is not float or not math.isfinite(v) or v < low:
                raise Wrong(key)
        out[k] = v
    return out


def by_hand(line: bytes) -> dict:
    """json.loads, then every field StepLine checks, checked the same way."""
    try:
        data = json.loads(line)
    except (ValueError, RecursionError) as exc:
        raise Wrong("not JSON") from exc
    if type(data) is not dict:
        raise Wrong("not an object")
    out = {"step": _int(data, "step", 0, MAX_STEP)}
    if out["step"] is None or "losses" not in data:
        raise Wrong("step")
    out["losses"] = _named(data, "losses")
    if out["losses"] is None:
        raise Wrong("losses")
    out["total"] = _float(data, "total", required=True)
    for key in ("grad_norms", "junction_grad_norms"):
        out[key] = _named(data, key, 0.0)
    for key in ("update_cosine", "loss_change", "loss_change_trunk", "loss_change_head"):
        out[key] = _named(data, key)
    for key in ("global_grad_norm", "z_grad_norm", "backward_seconds", "trunk_grad_norm",
                "trunk_step", "trunk_step_vs_sum"):
        out[key] = _float(data, key, 0.0)
    for key in ("saved_bytes", "saved_bytes_peak", "graph_nodes", "trunk_walks",
                "all_reduces"):
        out[key] = _int(data, key, 0, MAX_COUNT)
    out["micro_batches"] = _int(data, "micro_batches", 1, MAX_MICRO_BATCHES, 1)
    cosine = data.get("cosine")
    if cosine is not None:
        if type(cosine) is not list or len(cosine) != len(out["losses"]):
            raise Wrong("cosine")
        for row in cosine:
            if type(row) is not list or len(row) != len(cosine):
                raise Wrong("cosine")
            for v in row:
                if v is not None and (type(v) not in (int, float) or not math.isfinite(v)):
                    raise Wrong("cosine")
    prints = data.get("grad_fingerprint")
    if prints is not None:
        if type(prints) is not dict:
            raise Wrong("grad_fingerprint")
        for v in prints.values():
            if v is not None and (type(v) is not list or len(v) > MAX_FINGERPRINT or not all(
                    n is None or type(n) in (int, float) for n in v)):
                raise Wrong("grad_fingerprint")
    for key in ("backward_calls", "events"):
        if type(data.get(key, [])) is not list:
            raise Wrong(key)
    for call in data.get("backward_calls", []):
        if type(call) is not dict or type(call.get("micro_batch")) is not int or \
                type(call.get("loss")) is not str or type(call.get("retain_graph")) is not bool:
            raise Wrong("backward_calls")
    amp = data.get("amp_skipped")
    if amp is not None and type(amp) is not bool:
        raise Wrong("amp_skipped")
    out["amp_scale"] = _float(data, "amp_scale", 0.0)
    return out


def _best(decode, data: list[bytes], runs: int = 5) -> float:
    best = math.inf
    for _ in range(runs):
        start = time.perf_counter()
        for line in data:
            decode(line)
        best = min(best, time.perf_counter() - start)
    return best


def main(n: int) -> None:
    data = lines(n)
    assert all(decode_step(line).step == json.loads(line)["step"] for line in data[:100])
    for bad in (b'{"step": 1, "losses": [], "total": 1}', b'{"step": "a"}', b"[" * 100000):
        for decode in (decode_step, by_hand):
            try:
                decode(bad)
            except (RecordError, Wrong):
                continue
            raise AssertionError(f"{decode.__name__} took {bad[:30]!r}")
    mb = sum(map(len, data)) / 1e6
    print(f"{n} lines, {mb:.0f} MB")
    for name, decode in (("msgspec Struct", decode_step), ("json.loads + checks", by_hand),
                         ("json.loads alone", json.loads)):
        seconds = _best(decode, data)
        print(f"{name:22s} {seconds / n * 1e6:6.2f} us/line  {n / seconds:10,.0f} lines/s  "
              f"{mb / seconds:6.0f} MB/s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
