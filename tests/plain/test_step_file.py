"""steps.jsonl's writer: at once, or a block at a time by its own thread; what is kept
is written in the order added, once, by flush() and close(); a failed write in the
thread is raised in the loop's."""
from __future__ import annotations

import threading

import pytest

from gradviz.plain.run_files.step_file import StepFile


def _text(items: list) -> str:
    """An int item is the line of that number; a str item is a line already."""
    return "".join(item if isinstance(item, str) else f"{item}\n" for item in items)


def test_every_0_writes_each_line_before_add_returns(tmp_path):
    path = tmp_path / "steps.jsonl"
    f = StepFile(path, _text)
    for i in range(3):
        f.add(i)
        assert path.read_text() == "".join(f"{j}\n" for j in range(i + 1))
    f.close()


def test_kept_lines_wait_for_the_block_then_close_writes_them(tmp_path):
    path = tmp_path / "steps.jsonl"
    f = StepFile(path, _text, every_s=3600)   # no block in this test's time
    f.add(0)
    f.add("1\n")
    assert path.read_text() == ""
    f.flush()
    assert path.read_text() == "0\n1\n"
    f.add(2)
    f.close()
    assert path.read_text() == "0\n1\n2\n"
    with pytest.raises(OSError):
        StepFile(tmp_path / "missing" / "steps.jsonl", _text)


def test_the_thread_writes_without_another_add(tmp_path):
    path = tmp_path / "steps.jsonl"
    by_thread = threading.Event()

    def text(items: list) -> str:
        if items and threading.current_thread() is not threading.main_thread():
            by_thread.set()
        return _text(items)

    f = StepFile(path, text, every_s=0.01)
    f.add(0)
    assert by_thread.wait(60)   # the thread formatted the line...
    f.flush()                   # ...and wrote it: flush waits for its write's lock
    assert path.read_text() == "0\n"
    f.close()


def test_lines_added_while_blocks_are_written_keep_their_order_once(tmp_path):
    path = tmp_path / "steps.jsonl"
    f = StepFile(path, _text, every_s=0.001)
    flushes = threading.Thread(target=lambda: [f.flush() for _ in range(200)])
    flushes.start()   # a second writer too: flush() from another thread
    for i in range(20000):
        f.add(i)
    flushes.join()
    f.close()
    assert path.read_text().splitlines() == [str(i) for i in range(20000)]


def test_a_write_that_fails_in_the_thread_is_raised_by_the_next_add(tmp_path):
    failing, raised = threading.Event(), threading.Event()

    def text(items: list) -> str:
        if failing.is_set():
            raised.set()
            raise OSError(28, "No space left on device")
        return _text(items)

    f = StepFile(tmp_path / "steps.jsonl", text, every_s=0.001)
    failing.set()
    f.add(0)
    assert raised.wait(60)
    f._stop.set()          # the thread ends after recording the error it met
    assert f._thread is not None
    f._thread.join()
    assert f._error is not None
    with pytest.raises(OSError, match="No space"):
        f.add(1)   # raised before 1 is kept
    failing.clear()
    f.add(2)
    f.close()
    assert (tmp_path / "steps.jsonl").read_text() == "2\n"   # 0 was lost with the write
