"""The narration limits: what a lesson's Markdown may be before the window will show it.
They refuse the attacks (a huge table, nesting 20-30 deep) with one line and pass every
bundled lesson."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradviz.plain.lessons.lessons import bundled_names, find_lesson
from gradviz.plain.lessons.narration_limits import (
    MAX_NARRATION_CHARS,
    MAX_NESTING,
    line_depth,
    narration_problem,
)


def nested_list(depth: int) -> str:
    return "".join("  " * i + f"- level {i + 1}\n" for i in range(depth))


def table(rows: int, columns: int) -> str:
    head = "| " + " | ".join(f"h{c}" for c in range(columns)) + " |\n"
    rule = "|" + "---|" * columns + "\n"
    body = ("| " + " | ".join("cell" for _ in range(columns)) + " |\n") * rows
    return head + rule + body


def test_every_bundled_narration_is_within_the_limits():
    for name in bundled_names():
        for slide in find_lesson(name).slides:
            assert narration_problem(slide.narration) is None, (name, slide.title)


@pytest.mark.parametrize("text, depth", [
    ("plain", 0), ("- a", 1), ("  - b", 2), ("> quote", 1), (">> twice", 2),
    ("> - > - x", 4), ("- - - x", 3), ("1. one", 1), ("2) two", 1), ("*emphasis*", 0),
    ("-1 is negative", 0), ("    - four spaces in", 3)])
def test_line_depth_counts_quotes_and_lists(text, depth):
    assert line_depth(text) == depth


@pytest.mark.parametrize("depth", [MAX_NESTING + 1, 20, 30])
def test_deep_nesting_is_refused(depth):
    for text in (nested_list(depth), "> " * depth + "deep", "- " * depth + "deep"):
        problem = narration_problem(text)
        assert problem == (f"it nests lists or quotes {depth} levels deep; a narration "
                           f"may nest them at most {MAX_NESTING} deep")


def test_nesting_up_to_the_limit_passes():
    assert narration_problem(nested_list(MAX_NESTING)) is None
    assert narration_problem("> " * MAX_NESTING + "deep") is None


def test_code_in_a_fence_is_not_counted_as_nesting():
    code = "```\n" + "\n".join(" " * 20 + "x = 1" for _ in range(3)) + "\n```\nAfter."
    assert narration_problem(code) is None


def test_a_63_kb_table_is_refused_for_its_size():
    text = table(rows=1500, columns=8)
    assert len(text) > 63_000
    assert narration_problem(text) == (
        f"it is {len(text):,} characters long; a slide's narration may have at most "
        f"{MAX_NARRATION_CHARS:,}")


def test_a_table_with_too_many_cells_is_refused_within_the_size():
    text = table(rows=60, columns=6)         # 366 cells in under 4,000 characters
    assert len(text) <= MAX_NARRATION_CHARS
    problem = narration_problem(text)
    assert problem is not None and problem.startswith("its tables have up to ")
    assert narration_problem(table(rows=9, columns=6)) is None    # 60 cells: fine


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=5000))
def test_any_text_gives_none_or_one_line(text):
    problem = narration_problem(text)
    assert problem is None or (isinstance(problem, str) and "\n" not in problem)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["> ", "- ", "* ", "1. ", "  ", "\t", "x", "|", "\n"]),
                max_size=400))
def test_markdown_shaped_text_gives_none_or_one_line(parts):
    problem = narration_problem("".join(parts))
    assert problem is None or "\n" not in problem
