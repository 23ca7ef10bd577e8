"""The manifest in an --out folder is read from disk, so it is input: whatever it holds,
a commit removes only files gradviz writes, of the last run, and never one outside."""
import json
import shutil
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from gradviz.plain.run_files.run_folder import MANIFEST, RunFolder, read_manifest

OWNED = frozenset({"report.json", "metrics.csv", "graph.svg"})
BYSTANDERS = ("notes.txt", "graph.svg.bak", "report.json~", "Report.json")

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats()
                    | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=5)
                    | st.dictionaries(st.text(max_size=8), inner, max_size=5), max_leaves=20)
NAMES = st.sampled_from(sorted(OWNED) + list(BYSTANDERS) + ["../outside.txt", "/etc/passwd",
                                                             "", ".", "..", MANIFEST])
MANIFESTS = st.one_of(JSON, st.fixed_dictionaries({"files": st.lists(NAMES | JSON)}))


@settings(max_examples=150, deadline=None)
@given(MANIFESTS, st.booleans())
def test_any_manifest_removes_only_owned_files_of_the_last_run(manifest, as_text):
    root = Path(tempfile.mkdtemp())
    try:
        folder, outside = root / "out", root / "outside.txt"
        folder.mkdir()
        outside.write_text("outside")
        for name in (*OWNED, *BYSTANDERS):
            (folder / name).write_text("old " + name)
        text = json.dumps(manifest) if as_text else "[" * 50_000   # JSON, or nonsense
        (folder / MANIFEST).write_text(text)
        listed = set(read_manifest(folder, OWNED))
        with RunFolder(folder, OWNED) as run:
            run.path("report.json").write_text("new")
            run.commit()
        assert outside.read_text() == "outside"
        for name in BYSTANDERS:
            assert (folder / name).read_text() == "old " + name
        assert (folder / "report.json").read_text() == "new"
        for name in OWNED - {"report.json"}:
            assert (folder / name).exists() == (name not in listed)
        assert json.loads((folder / MANIFEST).read_text())["files"] == ["report.json"]
        assert sorted(p.name for p in folder.iterdir() if p.name.startswith(".")) \
            == [MANIFEST]
    finally:
        shutil.rmtree(root)


def test_leaving_without_commit_discards_the_staged_files(tmp_path):
    (tmp_path / "report.json").write_text("old")
    try:
        with RunFolder(tmp_path, OWNED) as run:
            run.path("report.json").write_text("new")
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]
    assert (tmp_path / "report.json").read_text() == "old"
