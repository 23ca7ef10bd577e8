"""A config written as TOML reads back equal (what "save settings" and "compare with"
hand to `gradviz run --config` and `gradviz compare`)."""
import tomllib

from hypothesis import given, settings
from hypothesis import strategies as st

from gradviz.plain.config.config import Config, ConfigError
from gradviz.plain.config.config_toml import from_mapping, parse_toml, to_toml


@st.composite
def configs(draw) -> Config:
    heads = draw(st.integers(1, 8))
    detach = tuple(sorted(draw(st.sets(st.integers(0, heads - 1), max_size=heads))))
    model = draw(st.sampled_from(["mlp", "rnn"]))
    changes = dict(
        heads=heads, detach=detach, model=model,
        truncate=draw(st.sampled_from([None, "every-step", "never"])) if model == "rnn" else None,
        strategy=draw(st.sampled_from(["sum", "separate", "in-loop"])),
        loss_weights=draw(st.one_of(st.just(()), st.lists(
            st.floats(0, 1000, allow_nan=False), min_size=heads, max_size=heads).map(tuple))),
        lr=draw(st.floats(1e-6, 1000)), seed=draw(st.integers(0, 2**31 - 1)),
        zero_grad=draw(st.booleans()), retain_grad=draw(st.booleans()),
        misplace_head=draw(st.one_of(st.none(), st.integers(0, heads - 1))))
    try:
        return Config().replace(**changes)
    except ConfigError:
        return Config()


@settings(max_examples=200, deadline=None, database=None)
@given(configs())
def test_to_toml_reads_back_equal(cfg):
    assert from_mapping(parse_toml(to_toml(cfg, "a comment\nover two lines"))) == cfg


def test_the_comment_heads_the_file_and_each_value_reads_back_as_it_was():
    cfg = Config().replace(heads=3, loss_weights=(1.0, 0.5, 2.0), detach=(0, 2), lr=1e-300,
                           device="cpu")
    text = to_toml(cfg, "gradviz settings\nsaved \"here\"")
    assert text.startswith('# gradviz settings\n# saved "here"\ndevice = "cpu"\n')
    read = tomllib.loads(text)
    assert read["loss-weights"] == [1.0, 0.5, 2.0] and read["detach"] == [0, 2]
    assert read["lr"] == 1e-300 and read["heads"] == 3 and read["zero-grad"] is True
    assert "truncate" not in read and "micro-batch-sizes" not in read   # None, and unset
