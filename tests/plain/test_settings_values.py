"""The settings file's values checked without Qt or a file: any JSON at all, in any key,
in the config or as the whole file, gives values the app can use (a bad one its default,
with a warning line; tests/qt/test_settings_security.py counts the lines)."""
import json
import math

from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from gradviz.plain.config.config import Config, validate
from gradviz.plain.window.settings_values import parse_document, read_values
from gradviz.plain.window.window_model import PACES_MS

KEYS = ("config", "theme", "zoom", "pace_ms", "geometry", "window_state")
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=12), inner,
                                                                 max_size=5),
    max_leaves=30)
CONFIG_KEYS = st.sampled_from(sorted(Config().to_dict()) + ["no_scale", "x"])


def assert_usable(values: dict) -> None:
    validate(values.get("config", Config()))
    assert values.get("theme", "light") in ("light", "dark")
    zoom = values.get("zoom", 1.0)
    assert isinstance(zoom, float) and math.isfinite(zoom) and 0.6 <= zoom <= 3.0
    pace_ms = values.get("pace_ms", PACES_MS[0])
    assert type(pace_ms) is int and pace_ms in PACES_MS
    for key in ("geometry", "window_state"):
        data = values.get(key)
        assert data is None or (type(data) is bytes and data)


def values_of(document) -> dict:
    """What the app takes from a file holding document as JSON ({} where the file is
    not gradviz settings of this version: then everything is its default)."""
    ours, _problem = parse_document(json.dumps(document).encode())
    return {} if ours is None else read_values(ours, Config())


@hsettings(max_examples=300, deadline=None)
@given(key=st.sampled_from(KEYS + ("version",)), value=JSON,
       config=st.dictionaries(CONFIG_KEYS, JSON, max_size=4))
def test_any_json_in_any_key_gives_usable_values(key, value, config):
    for document in ({"version": 2, key: value}, {"version": 2, "config": config}, value):
        assert_usable(values_of(document))


def test_a_value_the_app_can_use_is_kept_as_it_is():
    document = {"version": 2, "config": Config(heads=2).to_dict(), "theme": "dark",
                "zoom": 1.5, "pace_ms": 50, "geometry": "AAEC", "speed": 3}
    values = values_of(document)
    assert values.pop("config").heads == 2
    assert values == {"theme": "dark", "zoom": 1.5, "pace_ms": 50,
                      "geometry": b"\x00\x01\x02"}   # pace_ms, not the older "speed"
