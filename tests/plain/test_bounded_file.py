"""A followed file is read from where the last look stopped (only what was appended), a
budget at a time; a line over its cap is skipped without being held; a file replaced
by a rename, or cut, is read again from its start; only regular files are opened."""
from __future__ import annotations

import os

import pytest

from gradviz.plain.run_files import bounded_file
from gradviz.plain.run_files.bounded_file import FileRefused, LineFile, Lines, read_whole


def _all(lines: LineFile) -> Lines:
    """Every look until the end of what is written, together."""
    together = Lines()
    while True:
        found = lines.read()
        together.lines += found.lines
        together.notes += found.notes
        together.replaced |= found.replaced
        if not found.more:
            return together


def _numbered(n: int, start: int = 0) -> bytes:
    return b"".join(b'{"n": %d}\n' % i for i in range(start, start + n))


def test_only_what_was_appended_is_read(tmp_path, monkeypatch):
    path = tmp_path / "steps.jsonl"
    path.write_bytes(_numbered(1000))
    read = []
    pread = os.pread
    monkeypatch.setattr(bounded_file.os, "pread",
                        lambda fd, n, at: read.append((at, n)) or pread(fd, n, at))
    lines = LineFile(path)
    first = _all(lines)
    assert [n for n, _ in first.lines] == list(range(1, 1001))
    size = path.stat().st_size
    read.clear()
    with open(path, "ab") as f:
        f.write(_numbered(2, 1000) + b'{"n": 10')   # a last line not yet ended
    second = lines.read()
    assert [raw for _, raw in second.lines] == [b'{"n": 1000}', b'{"n": 1001}']
    assert [n for n, _ in second.lines] == [1001, 1002]
    assert read and all(at >= size for at, _ in read)   # nothing before it again
    assert lines.offset == path.stat().st_size - len(b'{"n": 10')
    assert lines.read().lines == []


def test_a_budget_reads_a_part_and_says_there_is_more(tmp_path):
    path = tmp_path / "steps.jsonl"
    path.write_bytes(_numbered(100_000))
    lines, got = LineFile(path), []
    while True:
        found = lines.read(budget=64 << 10)
        got += [n for n, _ in found.lines]
        # held at once: the budget and the one chunk that crossed it, at most
        assert sum(len(raw) + 1 for _, raw in found.lines) <= 2 * (64 << 10)
        if not found.more:
            break
    assert got == list(range(1, 100_001))


def test_a_line_over_the_cap_is_skipped_in_one_line(tmp_path):
    path = tmp_path / "steps.jsonl"
    path.write_bytes(b"a\n" + b"x" * (3 << 20) + b"\nb\n" + b"y" * (2 << 20))
    lines = LineFile(path, max_line=1 << 20)
    found = _all(lines)
    assert [raw for _, raw in found.lines] == [b"a", b"b"]
    assert [n for n, _ in found.lines] == [1, 3]
    assert found.notes == [f"{path}:2: a line over 1 MiB: skipped",
                           f"{path}:4: a line over 1 MiB: skipped"]
    with open(path, "ab") as f:   # the long last line ends: the next is read
        f.write(b"yy\nc\n")
    again = _all(lines)
    assert [(n, raw) for n, raw in again.lines] == [(5, b"c")] and again.notes == []


def test_a_file_replaced_by_a_rename_is_read_from_its_start(tmp_path):
    path = tmp_path / "steps.jsonl"
    path.write_bytes(_numbered(3))
    lines = LineFile(path)
    assert len(lines.read().lines) == 3
    (tmp_path / "new").write_bytes(_numbered(4))
    os.replace(tmp_path / "new", path)   # as rsync puts a file in place: a new inode
    found = lines.read()
    assert found.replaced and [n for n, _ in found.lines] == [1, 2, 3, 4]
    path.write_bytes(_numbered(1))       # cut shorter in place
    found = lines.read()
    assert found.replaced and [raw for _, raw in found.lines] == [b'{"n": 0}']


@pytest.mark.parametrize("make, words", [
    (lambda p: os.mkfifo(p), "a FIFO, not a regular file"),
    (lambda p: p.symlink_to("/dev/zero"), "a symbolic link, not followed"),
    (lambda p: p.mkdir(), "a folder, not a regular file"),
])
def test_only_regular_files_are_opened(tmp_path, make, words):
    path = tmp_path / "steps.jsonl"
    make(path)
    with pytest.raises(FileRefused, match=words):
        LineFile(path).read()
    with pytest.raises(FileRefused, match=words):
        read_whole(path, 1 << 20)


def test_a_missing_file_is_nothing_yet(tmp_path):
    assert LineFile(tmp_path / "steps.jsonl").read().lines == []
    assert read_whole(tmp_path / "watch.json", 10) is None
