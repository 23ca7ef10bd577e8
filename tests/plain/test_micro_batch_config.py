"""The settings of accumulation that is not the full batch, as flags and TOML: the sizes
list parses or is refused in one line, sets accumulate, and reads back equal."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradviz.plain.config.config import Config, ConfigError, parse_sizes
from gradviz.plain.config.config_toml import from_mapping, parse_toml, to_toml

sizes_lists = st.lists(st.integers(1, 64), min_size=1, max_size=8)


@settings(max_examples=200, deadline=None, database=None)
@given(sizes_lists)
def test_sizes_adding_up_to_the_batch_set_accumulate_from_a_flag_or_toml(sizes):
    batch = sum(sizes)
    for value in (",".join(map(str, sizes)), " , ".join(map(str, sizes)), list(sizes)):
        cfg = from_mapping({"micro-batch-sizes": value, "batch-size": batch})
        assert cfg.micro_batch_sizes == tuple(sizes)
        assert cfg.accumulate == len(sizes)
        assert cfg.micro_sizes() == tuple(sizes)
    text = f"batch-size = {batch}\nmicro-batch-sizes = {list(sizes)}\n"
    assert from_mapping(parse_toml(text)).micro_batch_sizes == tuple(sizes)


@settings(max_examples=200, deadline=None, database=None)
@given(sizes_lists, st.integers(1, 600))
def test_sizes_not_adding_up_to_the_batch_are_one_line(sizes, batch):
    if sum(sizes) == batch:
        return
    with pytest.raises(ConfigError) as error:
        from_mapping({"micro-batch-sizes": list(sizes), "batch-size": batch})
    assert "\n" not in str(error.value)
    assert f"add up to {sum(sizes)}, not batch-size {batch}" in str(error.value) or \
        "batch-norm" in str(error.value)


@settings(max_examples=300, deadline=None, database=None)
@given(st.text(max_size=40))
def test_any_flag_text_is_sizes_or_one_line(text):
    try:
        sizes = parse_sizes(text)
    except ConfigError as error:
        assert "\n" not in str(error) and "micro-batch-sizes" in str(error)
        return
    assert all(isinstance(n, int) for n in sizes)
    assert ",".join(map(str, sizes)) == ",".join(w.strip() for w in text.split(",")) or \
        not sizes


@settings(max_examples=200, deadline=None, database=None)
@given(st.one_of(st.lists(st.one_of(st.integers(-5, 5), st.floats(), st.booleans(),
                                    st.text(max_size=3)), max_size=4),
                 st.integers(), st.booleans(), st.floats(), st.dictionaries(st.text(), st.none())))
def test_any_toml_value_is_sizes_or_one_line(value):
    try:
        cfg = from_mapping({"micro-batch-sizes": value})
    except ConfigError as error:
        assert "\n" not in str(error)
        return
    assert cfg.micro_batch_sizes == () or sum(cfg.micro_batch_sizes) == cfg.batch_size


@settings(max_examples=150, deadline=None, database=None)
@given(sizes_lists, st.sampled_from(["mean", "size"]), st.booleans(),
       st.one_of(st.none(), st.floats(1e-3, 1e3)), st.sampled_from(["step", "micro-batch"]))
def test_the_new_settings_read_back_equal_from_toml(sizes, scale_by, batch_norm, clip, at):
    try:
        cfg = Config(batch_size=sum(sizes)).replace(
            micro_batch_sizes=tuple(sizes), accumulate=len(sizes), scale_by=scale_by,
            batch_norm=batch_norm, clip=clip, clip_at=at)
    except ConfigError:   # batch-norm with a micro-batch of one example
        assert batch_norm and min(sizes) == 1
        return
    assert from_mapping(parse_toml(to_toml(cfg))) == cfg


@pytest.mark.parametrize("changes, words", [
    ({"micro-batch-sizes": [40, 8, 8], "batch-size": 64}, "add up to 56, not batch-size 64"),
    ({"micro-batch-sizes": [40, 24], "accumulate": 4}, "gives 2 micro-batches but accumulate"),
    ({"micro-batch-sizes": [40, 0, 24]}, "whole numbers of 1 or more"),
    ({"micro-batch-sizes": [40, True, 23]}, "whole numbers of 1 or more"),
    ({"micro-batch-sizes": "40;24"}, "separated by commas"),
    ({"micro-batch-sizes": [32, 32], "model": "rnn"}, None),
    ({"micro-batch-sizes": [40, 24], "model": "rnn"}, "need --model mlp"),
    ({"scale-by": "sum"}, "scale-by must be one of mean, size"),
    ({"clip": 0}, "clip must be greater than 0"),
    ({"clip": "big"}, "clip must be a number"),
    ({"clip": float("inf")}, "clip must be a finite number"),
    ({"clip-at": "epoch"}, "clip-at must be one of step, micro-batch"),
    ({"batch-norm": 1}, "batch-norm must be true or false"),
    ({"batch-norm": True, "model": "rnn"}, "the rnn has none"),
    ({"batch-norm": True, "trunk-depth": 1}, "trunk-depth 2 or more"),
    ({"batch-norm": True, "micro-batch-sizes": [63, 1]}, "2 or more examples in every"),
    ({"batch-norm": True, "batch-size": 8, "accumulate": 8}, "2 or more examples in every"),
])
def test_bad_values_are_one_line(changes, words):
    if words is None:
        assert from_mapping(changes).micro_batch_sizes == (32, 32)
        return
    with pytest.raises(ConfigError) as error:
        from_mapping(changes)
    assert words in str(error.value) and "\n" not in str(error.value)


def test_accumulate_alone_means_equal_parts_again_and_sizes_alone_set_it():
    sized = from_mapping({"micro-batch-sizes": "40,8,8,8"})
    assert sized.accumulate == 4 and sized.micro_sizes() == (40, 8, 8, 8)
    equal = from_mapping({"accumulate": 2}, sized)
    assert equal.micro_batch_sizes == () and equal.micro_sizes() == (32, 32)
    assert from_mapping({"micro-batch-sizes": ""}, sized).micro_batch_sizes == ()


def test_batch_norm_needs_a_fresh_model_and_the_others_do_not():
    base = Config()
    assert base.needs_reset(base.replace(batch_norm=True))
    for change in (dict(clip=1.0), dict(clip_at="micro-batch"), dict(scale_by="size"),
                   dict(micro_batch_sizes=(40, 24), accumulate=2)):
        assert not base.needs_reset(base.replace(**change)), change
