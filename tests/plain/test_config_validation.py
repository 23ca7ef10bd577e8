"""Config validation: bad values are refused with a one-line ConfigError; TOML works
with dashes."""
import pytest

from gradviz.plain.config.config import Config, ConfigError
from gradviz.plain.config.config_toml import from_mapping, load_toml

BAD = [
    dict(strategy="mean"),
    dict(heads=0),
    dict(heads=9),
    dict(accumulate=3),               # 64 examples do not split into 3 equal parts
    dict(accumulate=0),
    dict(loss_weights=(1.0, 2.0)),     # 3 heads
    dict(loss_weights=(1.0, -1.0, 1.0)),
    dict(detach=(3,)),
    dict(detach=(-1,)),
    dict(retain_graph="sometimes"),
    dict(detach_mode="detach__"),
    dict(lr=0.0),
    dict(batch_size=0),
    dict(optimizer="rmsprop"),
    dict(probes="some"),
    dict(zero_grad="no"),
]


@pytest.mark.parametrize("changes", BAD, ids=[next(iter(c)) + "=" + repr(next(iter(c.values())))
                                              for c in BAD])
def test_bad_values_raise_a_one_line_config_error(changes):
    with pytest.raises(ConfigError) as info:
        Config().replace(**changes)
    message = str(info.value)
    assert message and "\n" not in message


def test_good_values_pass():
    cfg = Config().replace(heads=8, accumulate=4, loss_weights=(1,) * 8, detach=(0, 7))
    assert cfg.weights() == (1,) * 8
    assert Config().replace(heads=1).heads == 1


def test_toml_with_dashes(tmp_path):
    path = tmp_path / "lesson.toml"
    path.write_text('[gradviz]\nstrategy = "separate"\nretain-graph = "always"\n'
                    'loss-weights = [1, 2, 0.5]\ntrunk-width = 16\ndetach = [1]\n'
                    'detach-mode = "detach_"\nzero_grad = false\nlr = 1\n')
    cfg = from_mapping(load_toml(path))
    assert cfg.strategy == "separate" and cfg.retain_graph == "always"
    assert cfg.loss_weights == (1.0, 2.0, 0.5)
    assert cfg.trunk_width == 16 and cfg.detach == (1,) and cfg.detach_mode == "detach_"
    assert cfg.zero_grad is False and cfg.lr == 1.0 and isinstance(cfg.lr, float)


def test_toml_without_a_table(tmp_path):
    path = tmp_path / "plain.toml"
    path.write_text('accumulate = 4\nbatch-size = 32\n')
    cfg = from_mapping(load_toml(path))
    assert (cfg.accumulate, cfg.batch_size) == (4, 32)


def test_unknown_key_is_a_one_line_error(tmp_path):
    path = tmp_path / "typo.toml"
    path.write_text('[gradviz]\nstrategi = "sum"\n')
    with pytest.raises(ConfigError) as info:
        from_mapping(load_toml(path))
    assert "strategi" in str(info.value) and "\n" not in str(info.value)


def test_a_bad_value_in_toml_is_a_config_error(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('heads = 9\n')
    with pytest.raises(ConfigError):
        from_mapping(load_toml(path))


def test_invalid_toml_and_missing_file_are_one_line_errors(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text('strategy = \n')
    for target in (path, tmp_path / "missing.toml"):
        with pytest.raises(ConfigError) as info:
            load_toml(target)
        assert "\n" not in str(info.value)
