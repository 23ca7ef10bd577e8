"""atomic_open: a file appears whole or not at all, a new one with the mode the umask
gives (as open() would), a replaced one with the mode it had."""
import os
import stat
import sys

import pytest

from gradviz.plain.files.atomic_write import atomic_open, remove_stale_parts, write_text

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX permission bits")


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@posix_only
@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002, 0o027])
def test_a_new_file_gets_0666_less_the_umask(tmp_path, umask):
    previous = os.umask(umask)
    try:
        write_text(tmp_path / "a.txt", "text")
    finally:
        os.umask(previous)
    assert mode(tmp_path / "a.txt") == 0o666 & ~umask


@posix_only
@pytest.mark.parametrize("old_mode", [0o755, 0o644, 0o600, 0o640])
def test_a_replaced_file_keeps_its_mode(tmp_path, old_mode):
    path = tmp_path / "loop.py"
    path.write_text("old")
    path.chmod(old_mode)
    previous = os.umask(0o077)
    try:
        write_text(path, "new")
    finally:
        os.umask(previous)
    assert path.read_text() == "new" and mode(path) == old_mode


def test_an_error_mid_write_keeps_the_old_file_and_leaves_nothing(tmp_path):
    path = tmp_path / "report.json"
    path.write_text("old")
    with pytest.raises(KeyboardInterrupt):
        with atomic_open(path) as f:
            f.write("half")
            raise KeyboardInterrupt
    assert path.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]


def test_stale_parts_of_named_files_only_are_removed(tmp_path):
    for name in (".report.json.abcd1234.part", ".notes.txt.abcd1234.part", "report.json"):
        (tmp_path / name).write_text("x")
    assert remove_stale_parts(tmp_path, ["report.json", "metrics.csv"]) == [
        ".report.json.abcd1234.part"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [".notes.txt.abcd1234.part",
                                                          "report.json"]
