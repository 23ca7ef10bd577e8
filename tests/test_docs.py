"""The README stays a newcomer's first page, and every relative link and image in it and in
docs/ leads somewhere: the file exists, and so does the heading an anchor names."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
# [text](target) and ![alt](target), an optional "title" after the target
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def _rendered(text: str) -> str:
    """The text a reader sees links in: no fenced blocks, code spans or HTML comments."""
    text = re.sub(r"^ *```.*?^ *```", "", text, flags=re.S | re.M)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    return re.sub(r"`[^`\n]*`", "", text)


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.replace("`", "").strip().lower()).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = re.sub(r"^ *```.*?^ *```", "", page.read_text(), flags=re.S | re.M)
    seen: dict[str, int] = {}
    anchors = set()
    for heading in re.findall(r"^#{1,6} +(.+?) *$", text, re.M):
        slug = _slug(heading)
        anchors.add(slug if slug not in seen else f"{slug}-{seen[slug]}")
        seen[slug] = seen.get(slug, 0) + 1
    return anchors


def _broken(page: Path) -> list[str]:
    broken = []
    for target in LINK.findall(_rendered(page.read_text())):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):        # https:, mailto: ...
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(target)
        elif anchor and (file.suffix != ".md" or anchor not in _anchors(file)):
            broken.append(target)
    return broken


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_and_image_resolves(page):
    assert _broken(page) == []


def test_the_link_check_finds_a_missing_file_and_a_missing_heading(tmp_path):
    page = tmp_path / "page.md"
    (tmp_path / "other.md").write_text("# Other page\n\n## A `code` heading: here\n")
    page.write_text("[ok](other.md#a-code-heading-here) [gone](none.md) ![img](x.png)\n"
                    "[bad anchor](other.md#nowhere) [self](#page) `[not](a-link.md)`\n"
                    "# Page\n<!-- [hidden](later.md) -->\n")
    assert _broken(page) == ["none.md", "x.png", "other.md#nowhere"]


def test_the_readme_is_a_first_page_not_the_reference():
    """What it is, the two commands, a tour, where to go next, in that order, under 250
    lines; the reference lives in docs/."""
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) < 250
    order = [text.index(h) for h in ("![", "## Start", "## A 60-second tour",
                                     "## Where to go next")]
    assert order == sorted(order)
    for page in ("app", "lessons", "command-line", "model-files", "benchmarks"):
        assert f"(docs/{page}.md)" in text


def test_the_model_files_page_lists_every_bundled_example():
    """CONTRIBUTING promises it for a new example: its row in the page's table."""
    from gradviz.plain.config.model_names import model_names
    text = (ROOT / "docs" / "model-files.md").read_text()
    listed = set(re.findall(r"^\| `([a-z_]+)` \|", text, re.M))
    assert listed == set(model_names())
