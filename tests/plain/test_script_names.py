"""A --script file name is outside input: whatever it holds (triple quotes, \\N{x},
backslashes, newlines, NUL, surrogates from a non-UTF-8 command line), the program still
compiles, names the file exactly in its docstring, and runs no code the name brought."""
import ast

from hypothesis import example, given, settings
from hypothesis import strategies as st

from gradviz.plain.config.config import Config
from gradviz.plain.program.script import docstring_literal, script_text

PIECES = st.sampled_from(['"""', "'''", '"', "'", "\\", "\\N{x}", "\\N{", "\\x", "\\u12",
                          "\n", "\r", "\r\n", "\t", "\0", "\x0c", "\u2028", "\udcff", "é",
                          "🙂", "{", "}", "{name}", "#", "__import__('os')", " "])
NAMES = st.lists(st.one_of(PIECES, st.text(max_size=8)), max_size=12).map("".join)

# a name that injects code would add statements before or after the docstring
BASE_CONFIG = Config()


def _statements(tree: ast.Module) -> list[str]:
    return [type(node).__name__ for node in tree.body]


BASELINE = _statements(ast.parse(script_text(BASE_CONFIG)))


def _as_shown(text: str) -> str:
    """text as the docstring holds it: a lone surrogate as its escape, written out (no
    docstring may hold one: Python 3.13 encodes docstrings as it compiles)."""
    return "".join(f"\\u{ord(ch):04x}" if "\ud800" <= ch <= "\udfff" else ch
                   for ch in text)


@settings(max_examples=300, deadline=None)
@given(NAMES)
@example('x"""; __import__("os").system("touch pwned"); """.py')
@example("\\N{x}.py")
@example('ends with a quote".py')
@example("back\\")
def test_any_file_name_gives_a_program_that_compiles_and_names_it_exactly(name):
    text = script_text(BASE_CONFIG, name)
    compile(text, "<generated>", "exec")          # a SyntaxError here fails the test
    tree = ast.parse(text)
    doc = ast.get_docstring(tree, clean=False)
    assert f"Run: python {_as_shown(name)} [--grad-norms]\n" in doc   # round-tripped
    assert _statements(tree) == BASELINE           # nothing added, nothing cut off


@given(st.text())
def test_the_docstring_literal_evaluates_to_its_text(text):
    literal = docstring_literal(text)
    assert ast.literal_eval(literal) == _as_shown(text)
    compile(literal, "<docstring>", "exec")
    assert literal.isascii() or all(ch.isprintable() or ch == "\n" for ch in literal)


def test_an_injecting_name_stays_inside_the_docstring(tmp_path):
    marker = str(tmp_path / "pwned")
    name = f'x"""\nopen({marker!r}, "w").close()\n"""'
    tree = ast.parse(script_text(BASE_CONFIG, name))
    doc_node = tree.body[0].value
    holders = [node for node in ast.walk(tree) if marker in ast.unparse(node)
               and not isinstance(node, ast.Module)]
    # the only node whose source holds the marker is the docstring (and its Expr)
    assert all(node is doc_node or node is tree.body[0] for node in holders), holders
    assert not any(isinstance(n, ast.Call) and getattr(n.func, "id", "") == "open"
                   for n in ast.walk(tree))


def test_an_ordinary_name_reads_as_before():
    text = script_text(BASE_CONFIG, "loop.py")
    assert text.startswith('"""The training loop gradviz shows')
    assert "Run: python loop.py [--grad-norms]\n" in text
