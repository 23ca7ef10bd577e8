"""The settings file on disk: telling ours (a JSON object of our version) from anyone
else's, where ours goes when the path holds someone else's file, merging a save into
what another gradviz may have written there meanwhile, and one gradviz at a time doing
so (a lock on the folder)."""
from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..plain.files.atomic_write import remove_stale_parts
from ..plain.window.settings_values import MAX_BYTES, VERSION, parse_document


def beside(path: Path) -> Path:
    """Where our settings go when path holds a file that is not ours (or a newer
    version's): settings.json -> settings.gradviz-v2.json, in the same folder."""
    return path.with_name(f"{path.stem}.gradviz-v{VERSION}{path.suffix}")


def read_document(path: Path) -> tuple[dict | None, str | None]:
    """(our settings document, None); (None, None) when there is no file; (None, why
    not) for a file that is not gradviz settings of this version, which must be left be."""
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):   # a FIFO or /dev/zero would block or never end
            return None, "is not a regular file"
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return None, None                    # a first launch
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror or exc})"
    return parse_document(data)


_MISSING = object()


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON text (1 and 1.0, true and 1 differ; so does a value and its absence)."""
    if a is _MISSING or b is _MISSING:
        return a is b
    try:
        return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    except (ValueError, TypeError, RecursionError):
        return False


def _on_keys_of(value: Any, other: Any) -> Any:
    """other cut to value's keys, where value is an object (a config): keys a newer
    version added to other do not make it differ."""
    if not isinstance(value, dict) or not isinstance(other, dict):
        return other
    return {k: other[k] for k in value if k in other}


def merge(disk: dict, base: dict | None, ours: dict) -> tuple[dict, list[str]]:
    """disk with the keys ours changed since base (what this instance loaded; None: it
    loaded nothing, so every key is ours); keys nobody here changed keep disk's value,
    another instance's. Also the keys that both changed, differently. The config is one
    key: its settings depend on each other (loss weights on heads), so two half-configs
    never mix; keys a newer version added to it are kept."""
    merged, clashes = dict(disk), []
    for key, value in ours.items():
        was = _MISSING if base is None else _on_keys_of(value, base.get(key, _MISSING))
        now = disk.get(key, _MISSING)
        if base is not None and _same(value, was) and now is not _MISSING:
            continue                         # not changed here: disk's may be another's
        if base is not None and now is not _MISSING and not _same(_on_keys_of(value, now), was) \
                and not _same(_on_keys_of(value, now), value):
            clashes.append(key)
        if isinstance(value, dict) and isinstance(now, dict):
            value = {**{k: v for k, v in now.items() if k not in value}, **value}
        merged[key] = value
    return merged, clashes


@contextlib.contextmanager
def one_at_a_time(path: Path) -> Iterator[None]:
    """Held while one gradviz reads, merges and writes the settings at path, so two
    windows saving at once never merge into the same old file (the later would drop the
    earlier's change). The lock is on the folder (flock: released when the process
    ends, however it ends), not on the file, which each save replaces. Without a folder
    to lock (not made yet, or not on POSIX) the save goes on unlocked."""
    if sys.platform == "win32":
        yield
        return
    import fcntl
    try:
        fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)   # closing the last descriptor releases the lock


def remove_killed_writes(path: Path) -> None:
    """The .NAME.*.part files a save killed mid-write left beside path (and beside the
    file ours go to when path is someone else's). Called holding one_at_a_time(path):
    no other gradviz is writing one of them then."""
    with contextlib.suppress(OSError):
        remove_stale_parts(path.parent, [path.name, beside(path).name])
