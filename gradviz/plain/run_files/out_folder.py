"""Whose files an --out folder holds. A command writes only into a folder that is empty or
holds files gradviz wrote (a run's manifest lists them, or their own header says so):
another tool's `report.json` or `metrics.csv` is never overwritten unless --force."""
from __future__ import annotations

import fnmatch
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from .run_folder import COMMITTING, MANIFEST, STAGING, read_made, read_manifest

# a file gradviz writes starts with this key (report.json, compare.json): older runs,
# written before the manifest, are still gradviz's
HEADER_KEYS = {"report.json": "gradviz_report", "compare.json": "gradviz_compare"}
HEADER_BYTES = 64


def _ours_by_header(folder: Path, name: str) -> bool:
    try:
        with open(folder / name, "rb") as f:
            head = f.read(HEADER_BYTES).decode("utf-8", "replace")
    except OSError:
        return False
    return head.lstrip().startswith("{") and \
        head.lstrip("{ \n\r\t").startswith(json.dumps(HEADER_KEYS[name]))


def _hidden_ours(name: str) -> bool:
    """gradviz's own working files: a run's staging folder, its manifest, a .part file
    of a write a kill interrupted, a writability check's file."""
    return name.startswith((STAGING, COMMITTING, ".gradviz-check.")) or name == MANIFEST \
        or fnmatch.fnmatch(name, ".*.*.part")


def ours(folder: Path, owned: Iterable[str], companions: Mapping[str, Iterable[str]]) -> set[str]:
    """The names in folder gradviz wrote: the last run's manifest (files and what it made
    besides them), and a header file (report.json, compare.json) with the files gradviz
    writes beside it (companions[header])."""
    names = set(read_manifest(folder, frozenset(owned))) | set(read_made(folder))
    for header, beside in companions.items():
        if _ours_by_header(folder, header):
            names |= {header, *beside}
    return names


def foreign(folder: Path, owned: Iterable[str],
            companions: Mapping[str, Iterable[str]]) -> list[str]:
    """The entries of folder gradviz did not write, sorted ([] for a folder not there)."""
    try:
        with os.scandir(folder) as scan:
            names = [entry.name for entry in scan]
    except FileNotFoundError:
        return []
    known = ours(folder, owned, companions)
    return sorted(n for n in names if n not in known and not _hidden_ours(n))

