"""A small lesson written as TOML text, and what `lessons --check` finds wrong with it:
shared by the tests of the check and of its promises."""
from gradviz.core.lesson_check import check_lesson
from gradviz.plain.lessons.lessons import parse_lesson

HEAD = 'title = "t"\nconfig = { device = "cpu", heads = 2, batch-size = 16, steps = 3 }\n'


def slide(title: str, lines: str = "") -> str:
    return f'[[slides]]\ntitle = "{title}"\nnarration = "n"\nstop = 2\n{lines}\n'


def problems(*slides: str) -> list[str]:
    """The broken promises of a lesson of these slides, each one line."""
    found = check_lesson(parse_lesson("x", HEAD + "".join(slides)))
    assert all("\n" not in p for p in found)
    return found
