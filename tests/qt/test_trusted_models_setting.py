"""The settings file's trusted_models (the model files the user agreed to run, as
'sha256 path' strings): whatever the file holds there, loading never fails, keeps only
strings and never makes anything run."""
import json

from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from gradviz.plain.config.config import Config
from gradviz.qt.settings import MAX_TRUSTED, VERSION, AppSettings, Remembered

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                    | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=5)
                    | st.dictionaries(st.text(max_size=5), inner, max_size=5),
                    max_leaves=20)


@hsettings(max_examples=60, deadline=None)
@given(value=JSON)
def test_any_value_loads_as_strings_or_nothing(tmp_path_factory, value):
    path = tmp_path_factory.mktemp("s") / "settings.json"
    path.write_text(json.dumps({"version": VERSION, "trusted_models": value}))
    got = AppSettings(path).load(Config()).trusted_models
    assert isinstance(got, tuple) and all(isinstance(k, str) and k for k in got)
    if isinstance(value, list) and value and all(isinstance(v, str) and v for v in value):
        assert got == tuple(value)
    else:
        assert got == ()


def test_the_answers_are_saved_as_plain_strings_and_read_back(tmp_path):
    keys = tuple(f"{i:064x} /home/me/net{i}.py" for i in range(MAX_TRUSTED + 5))
    s = AppSettings(tmp_path / "settings.json")
    s.load(Config())
    assert s.save(Remembered(Config(), trusted_models=keys))
    on_disk = json.loads((tmp_path / "settings.json").read_text())["trusted_models"]
    assert on_disk == list(keys[-MAX_TRUSTED:])        # the newest, as strings
    assert AppSettings(tmp_path / "settings.json").load(Config()).trusted_models == \
        keys[-MAX_TRUSTED:]
