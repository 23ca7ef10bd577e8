"""A run's files in its --out folder are replaced together or not at all: written into a
hidden staging folder inside it, then moved in at once, with a manifest of what the run
owns, so the folder never holds files of two runs and never loses a file gradviz did not write.

Whose files an --out folder holds (foreign): a command writes only into a folder that is
empty or holds files gradviz wrote (a run's manifest lists them, or their own header says
so): another tool's `report.json` or `metrics.csv` is never overwritten unless --force.
"""
from __future__ import annotations

import contextlib
import fnmatch
import hashlib
import json
import os
import shutil
import socket
import tempfile
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

from ..files.atomic_write import keep_mode, remove_stale_parts, write_text
from .stream_writer_process import process_ended

STAGING = ".gradviz-run-"      # being written: .gradviz-run-<pid>-<host>-XXXX
COMMITTING = ".gradviz-done-"  # complete, being moved in (finished by the next run if killed)
MANIFEST = ".gradviz-run.json"  # in the folder: the files the last run put there


def _manifest_list(folder: Path, key: str) -> list[str]:
    """The manifest's list under key, its strings only; [] when there is none."""
    try:
        with open(folder / MANIFEST, "rb") as f:
            document = json.loads(f.read(64 * 1024).decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return []
    names = document.get(key) if isinstance(document, dict) else None
    if not isinstance(names, list):
        return []
    return [name for name in names if isinstance(name, str)]


def read_manifest(folder: Path, owned: frozenset[str]) -> list[str]:
    """The names the last run left in folder, only those gradviz writes (a hand-edited or
    hostile manifest cannot make it delete anything else); [] when there is none."""
    return [name for name in _manifest_list(folder, "files") if name in owned]


def read_made(folder: Path) -> list[str]:
    """The files the last run wrote into folder besides its own (a --script), which a
    later run keeps: never deleted, only recognised as gradviz's."""
    return _manifest_list(folder, "made")


class MoveUnfinished(OSError):
    """Some of a complete run's files are in place, some not yet: recover() (the next
    run) finishes the move."""


STALE_SECONDS = 24 * 3600   # a staging folder whose owner cannot be asked is this old: dead


def staging_prefix(pid: int) -> str:
    """.gradviz-run-PID-HOST-: the process and the machine writing into it (a shared
    folder on a network drive may have runs of other machines in it)."""
    return f"{STAGING}{pid}-{_host()}-"


def _host() -> str:
    return hashlib.sha1(socket.gethostname().encode("utf-8", "replace")).hexdigest()[:8]


def _stale(entry: os.DirEntry) -> bool:
    """Whether the run that made this staging folder has ended (killed: it never will)."""
    pid, host, _ = (entry.name[len(STAGING):].split("-", 2) + ["", ""])[:3]
    if pid.isdigit() and host == _host():
        return process_ended(int(pid))
    # another machine's runs: only age tells
    try:
        return time.time() - entry.stat(follow_symlinks=False).st_mtime > STALE_SECONDS
    except OSError:
        return False


def recover(folder: Path, owned: frozenset[str]) -> None:
    """Finish a commit a kill interrupted; remove what killed runs left half-written
    (their staging folders, and the .NAME.*.part files of older gradviz versions)."""
    with os.scandir(folder) as scan:
        entries = sorted((e for e in scan if e.is_dir(follow_symlinks=False)),
                         key=lambda e: e.name)
    for entry in entries:
        if entry.name.startswith(COMMITTING):
            with contextlib.suppress(OSError):   # another run finishing it at once
                _move_in(Path(entry.path), folder, owned)
        elif entry.name.startswith(STAGING) and _stale(entry):
            shutil.rmtree(entry.path, ignore_errors=True)
    remove_stale_parts(folder, owned)


def _move_in(done: Path, folder: Path, owned: frozenset[str]) -> None:
    """Replace the last run's files by done's. Each step can be repeated, so a run killed
    half-way through is finished by the next one's recover()."""
    if not (done / MANIFEST).exists():   # moved in already: only the empty folder is left
        shutil.rmtree(done, ignore_errors=True)
        return
    for name in set(read_manifest(folder, owned)) - set(read_manifest(done, owned)):
        target = folder / name
        if target.is_file() and not target.is_symlink():
            with contextlib.suppress(FileNotFoundError):
                target.unlink()
    for name in _complete_files(done):   # a --script beside the report is moved, never deleted
        keep_mode(done / name, folder / name)
        os.replace(done / name, folder / name)
    os.replace(done / MANIFEST, folder / MANIFEST)   # the last step: the new run is whole
    shutil.rmtree(done, ignore_errors=True)


def _complete_files(folder: Path) -> list[str]:
    """The files written whole in a staging folder: hidden ones are .part or the manifest."""
    return sorted(entry.name for entry in os.scandir(folder)
                  if not entry.name.startswith(".") and entry.is_file(follow_symlinks=False))


class RunFolder:
    """Use as a context manager: files go to `path(name)`; commit() moves every file
    written into the folder; leaving without commit() (an error, Ctrl+C) discards them.
    owned: the names a later run may remove when it does not write them again."""

    def __init__(self, folder: Path, owned: Iterable[str]):
        self.folder, self.owned = folder, frozenset(owned)
        self._staging: Path | None = None

    @property
    def staging(self) -> Path:
        """The folder files are written to, from entering until commit() or leaving."""
        if self._staging is None:
            raise RuntimeError("a RunFolder stages files only inside its with block, "
                               "before commit()")
        return self._staging

    def __enter__(self) -> RunFolder:
        recover(self.folder, self.owned)
        self._staging = Path(tempfile.mkdtemp(prefix=staging_prefix(os.getpid()),
                                              dir=self.folder))
        os.chmod(self._staging, 0o700)
        return self

    def path(self, name: str) -> Path:
        return self.staging / name

    def written(self) -> list[str]:
        """The files staged so far, complete ones only."""
        return _complete_files(self.staging)

    def commit(self) -> list[str]:
        """Move the staged files in, in place of the last run's; returns their names."""
        names = self.written()
        owned = [name for name in names if name in self.owned]
        # what this run writes besides its own files, and what earlier runs wrote so
        # (still there): the folder stays recognisably gradviz's
        made = sorted({name for name in names if name not in self.owned} |
                      {name for name in read_made(self.folder) if (self.folder / name).is_file()})
        write_text(self.staging / MANIFEST,
                   json.dumps({"gradviz_run_files": 1, "files": owned, "made": made}) + "\n")
        staging = self.staging
        done = staging.with_name(COMMITTING + staging.name[len(STAGING):])
        os.replace(staging, done)   # from here on, a kill is finished by the next run
        self._staging = None
        try:
            _move_in(done, self.folder, self.owned)
        except OSError as exc:
            raise MoveUnfinished(exc.errno, exc.strerror or str(exc), exc.filename) from exc
        return names

    def __exit__(self, *exc_info) -> None:
        if self._staging is not None:
            shutil.rmtree(self._staging, ignore_errors=True)
            self._staging = None


# ---- whose files an --out folder holds: written into only where all of them are gradviz's

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

