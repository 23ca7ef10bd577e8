"""The device setting is checked for form where it is read (a file, a flag, the app's
settings), so a hostile string never travels on to be shown or used; torch itself is the
judge of what a well-formed name is."""
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from gradviz.plain.config.config import Config, ConfigError
from gradviz.plain.config.config_toml import from_mapping

WELL_FORMED = ["auto", "cpu", "cuda", "cuda:0", "cuda:7", "cuda:1234", "mps", "meta",
               "xpu", "xpu:2", "hpu", "hpu:0", "cpu:0"]
MALFORMED = ["", "gpu", "CPU", "Cuda", "cuda:", "cuda:-1", "cuda:01", "cuda: 0", " cpu",
             "cpu ", "cpu\n", "cuda:0\n", "cuda:٣", "auto:0", "npu", "cuda:0:1",
             "<img src=secret.png width=400 height=300>", "<img width=9999 height=9999>",
             "x" * 100_000]


@pytest.mark.parametrize("name", WELL_FORMED)
def test_a_name_torch_takes_is_accepted(name):
    if name != "auto":
        torch.device(name)                 # the independent judge: torch takes it
    assert from_mapping({"device": name}).device == name


@pytest.mark.parametrize("name", MALFORMED)
def test_a_malformed_name_is_refused_in_one_short_line(name):
    with pytest.raises(ConfigError) as caught:
        from_mapping({"device": name})
    message = str(caught.value)
    assert message.startswith("device must be auto, cpu, cuda, cuda:N")
    assert "\n" not in message and len(message) < 200


@pytest.mark.parametrize("value", [None, 0, 1.5, True, ["cpu"], {"type": "cpu"}])
def test_a_device_that_is_not_text_is_refused(value):
    with pytest.raises(ConfigError):
        Config(device=value).replace()


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=20),
                 st.from_regex(r"(cpu|cuda|mps|meta|xpu|hpu|auto)(:[0-9-]{0,6})?.?",
                               fullmatch=True)))
def test_whatever_is_accepted_torch_accepts_too(name):
    try:
        cfg = from_mapping({"device": name})
    except ConfigError as exc:
        assert "\n" not in str(exc)
        return
    if cfg.device != "auto":
        torch.device(cfg.device)           # raises (and fails the test) if torch refuses
