"""The model-file contract: a file that fits is built; one that does not is refused
with one line naming what is missing or wrong, never a traceback."""
import textwrap

import pytest
import torch
import torch.nn.functional as F
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from torch import nn

from gradviz.core.model_file import ModelFile, ModelFileError

GOOD = """
import torch
import torch.nn.functional as F
from torch import nn

def build(seed):
    torch.manual_seed(seed)
    def batch(step, batch_size, generator):
        x = torch.randn(batch_size, 4, generator=generator)
        return x, [x[:, :2], x.sum(1).gt(0).long()]
    return {{"trunk": {trunk}, "heads": {heads}, "losses": {losses}, "batch": {batch},
            "taps": {taps}, "names": {names}}}
"""
DEFAULTS = dict(trunk="nn.Linear(4, 8)", heads="[nn.Linear(8, 2), nn.Linear(8, 3)]",
                losses="[F.mse_loss, F.cross_entropy]", batch="batch", taps="None",
                names='["value", "sign"]')
DEEP_TRUNK = "nn.ModuleList([nn.Linear(4, 8)])"


def model_text(**changes) -> str:
    return GOOD.format(**{**DEFAULTS, **changes})


def load(tmp_path, text: str) -> ModelFile:
    path = tmp_path / "mine.py"
    path.write_text(textwrap.dedent(text))
    return ModelFile(path)


def refusal(tmp_path, text: str) -> str:
    with pytest.raises(ModelFileError) as caught:
        load(tmp_path, text).build(0, 8)
    message = str(caught.value)
    assert "\n" not in message and message.startswith("model file ")
    return message


def test_a_file_that_fits_builds_its_trunk_heads_and_names(tmp_path):
    spec = load(tmp_path, model_text()).build(0, 8)
    assert isinstance(spec.trunk, nn.Linear) and len(spec.heads) == 2
    assert spec.names == ["value", "sign"] and spec.taps == [0, 0]
    assert spec.losses == [F.mse_loss, F.cross_entropy]


def test_the_trial_moves_no_running_statistics_and_leaves_training_mode(tmp_path):
    mf = load(tmp_path, model_text(trunk="nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8))"))
    spec = mf.build(0, 8)
    norm = spec.trunk[1]
    assert norm.training and int(norm.num_batches_tracked) == 0
    assert torch.equal(norm.running_mean, torch.zeros(8))


@pytest.mark.parametrize("text,words", [
    ("def build(seed)\n    return {}\n", "SyntaxError: expected ':' (mine.py:1)"),
    ("raise ValueError('no data here')\n", "ValueError: no data here (mine.py:1)"),
    ("import torch\nx = 1\n", "has no build(seed) function"),
    ("build = 3\n", "has no build(seed) function"),
    ("def build(seed):\n    x = 1\n    return x / 0\n",
     "build(seed) raised ZeroDivisionError: division by zero (mine.py:3)"),
    ("def build(seed):\n    return [1, 2]\n", "build(seed) must return a dict, not list"),
    ("def build(seed):\n    return {'trunk': 1, 'heads': []}\n",
     "build(seed)'s dict has no 'losses', 'batch'"),
])
def test_a_file_without_a_usable_build_is_refused_in_one_line(tmp_path, text, words):
    assert words in refusal(tmp_path, text)


@pytest.mark.parametrize("changes,words", [
    (dict(trunk="3"), "trunk must be an nn.Module, not int"),
    (dict(heads="nn.Linear(8, 2)"), "heads must be a list of nn.Module"),
    (dict(heads="[nn.Linear(8, 2), 'head']"), "heads must be a list of nn.Module"),
    (dict(heads="[]", losses="[]"), "heads has 0 modules; gradviz takes 1 to 8"),
    (dict(heads="[nn.Linear(8, 2)] * 9", losses="[F.mse_loss] * 9"), "heads has 9 modules"),
    (dict(losses="[F.mse_loss]"), "losses has 1 functions for 2 heads"),
    (dict(losses="F.mse_loss"), "losses must be a list of functions, one per head"),
    (dict(batch="None"), "batch must be a function (step, batch_size, generator)"),
    (dict(taps="[0]"), "taps must be None or a list of 2 whole numbers, one per head"),
    (dict(taps="[0, 1]"), "taps[1] is 1, but the trunk returns 1 tensor (0..0)"),
    (dict(taps="[0, -1]"), "taps[1] is -1"),
    (dict(names='["only one"]'), "names has 1 names for 2 heads"),
    (dict(names='"value"'), "names must be None or a list of strings, one per head"),
    (dict(trunk="nn.Identity()", heads="[nn.Identity(), nn.Identity()]"),
     "the model has no parameters to train"),
    (dict(heads="[nn.Linear(8, 2), nn.Linear(7, 3)]"), "head 1 raised RuntimeError: mat1"),
    (dict(heads="[nn.Linear(8, 2), nn.Linear(8, 2)]", losses="[F.mse_loss, lambda y, t: y]"),
     "losses[1] must return a scalar tensor (got (2, 2))"),
    (dict(losses="[F.mse_loss, lambda y, t: y.no_such()]"),
     "losses[1] raised AttributeError: 'Tensor' object has no attribute 'no_such' (mine.py:11)"),
    (dict(batch="lambda s, n, g: torch.zeros(n, 4)"),
     "batch must return (x, [target_0, ..., target_1])"),
    (dict(batch="lambda s, n, g: (torch.zeros(n, 4), [torch.zeros(n, 2)])"),
     "batch returned 1 targets for 2 heads"),
    (dict(batch="lambda s, n, g: (torch.zeros(n + 1, 4), [torch.zeros(n, 2)] * 2)"),
     "batch(step, 8, generator) returned x with 9 rows; it must have 8"),
    (dict(batch="lambda s, n, g: (torch.zeros(n, 4), (torch.zeros(n, 2), 'y'))"),
     "batch must return (x, [target_0, ..., target_1]): a tensor and a list of tensors"),
    (dict(batch="lambda s, n, g: 1 / 0"), "batch(step, batch_size, generator) raised "
                                          "ZeroDivisionError"),
])
def test_a_dict_that_does_not_fit_is_refused_naming_what(tmp_path, changes, words):
    assert words in refusal(tmp_path, model_text(**changes))


def test_an_unknown_key_is_named_with_the_keys_there_are(tmp_path):
    text = model_text().replace('"names":', '"head": 1, "names":')
    assert "unknown key 'head' (keys: trunk, heads, losses, batch, taps, names)" in \
        refusal(tmp_path, text)


def test_several_trunk_outputs_need_taps_saying_which_each_head_reads(tmp_path):
    trunk = "type('T', (nn.Linear,), {'forward': lambda s, x: (s.weight.sum() * x, x)})(1, 1)"
    assert "the trunk returns 2 tensors: give taps" in refusal(tmp_path, model_text(trunk=trunk))


def test_the_file_is_loaded_from_its_path_not_from_sys_path(tmp_path, monkeypatch):
    """A file named like a module the process has (json) is still the user's file."""
    (tmp_path / "json.py").write_text(textwrap.dedent(model_text()))
    monkeypatch.chdir(tmp_path)
    mf = ModelFile(tmp_path / "json.py")
    import json
    assert mf.module is not json and hasattr(json, "dumps") and mf.build(0, 4).heads


# ---- any dict build() may return: built, or refused in one line ----------------------
def _batch(step, batch_size, generator):
    x = torch.randn(batch_size, 4, generator=generator)
    return x, [x[:, :2]]


TRUNKS = st.sampled_from([nn.Linear(4, 8), 1, "trunk", None, [nn.Linear(4, 8)]])
HEADS = st.sampled_from([[nn.Linear(8, 2)], [], [1], nn.Linear(8, 2), [nn.Linear(3, 2)],
                         (nn.Linear(8, 2),), [nn.Linear(8, 2)] * 2])
LOSSES = st.sampled_from([[F.mse_loss], [], [1], F.mse_loss, [F.cross_entropy],
                          [F.mse_loss] * 2, [lambda y, t: y]])
BATCHES = st.sampled_from([_batch, None, 3, lambda s, n, g: None,
                           lambda s, n, g: (torch.zeros(n, 4), []),
                           lambda s, n, g: (torch.zeros(2, 4), [torch.zeros(2, 2)]),
                           lambda s, n, g: (torch.zeros(n, 4), [torch.zeros(n, 2)] * 2)])
TAPS = st.sampled_from([None, [0], [1], [-1], ["0"], 0, [0, 0], [True]])
NAMES = st.sampled_from([None, ["a"], ["a", "b"], "a", [1]])
KEYS = {"trunk": TRUNKS, "heads": HEADS, "losses": LOSSES, "batch": BATCHES,
        "taps": TAPS, "names": NAMES, "extra": st.just(1)}


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(built=st.one_of(st.dictionaries(st.sampled_from(sorted(KEYS)), st.none())
                       .flatmap(lambda d: st.fixed_dictionaries({k: KEYS[k] for k in d})),
                       st.sampled_from([None, 1, "build", [], ()])))
def test_whatever_build_returns_is_built_or_refused_in_one_line(tmp_path, built):
    path = tmp_path / "any.py"
    if not path.exists():
        path.write_text("BUILT = None\ndef build(seed):\n    return BUILT\n")
    mf = ModelFile(path)
    mf.module.BUILT = built
    try:
        spec = mf.build(0, 4)
    except ModelFileError as exc:
        assert "\n" not in str(exc) and str(exc).startswith("model file ")
        return
    # built: then it really is the contract's shape
    assert isinstance(built, dict) and len(spec.heads) == len(spec.losses) == len(spec.names)
    assert isinstance(spec.trunk, nn.Module) and all(t == 0 for t in spec.taps)


def test_a_model_file_imports_its_own_helpers_from_beside_it(tmp_path):
    (tmp_path / "blocks_for_gradviz_test.py").write_text(
        "from torch import nn\n\ndef block():\n    return nn.Linear(4, 8)\n")
    spec = load(tmp_path, model_text(trunk="__import__('blocks_for_gradviz_test').block()")
                ).build(0, 4)
    assert isinstance(spec.trunk, nn.Linear)


def test_a_file_beside_it_never_stands_in_for_an_installed_module(tmp_path):
    import importlib
    import sys
    (tmp_path / "colorsys.py").write_text("raise SystemExit('the wrong colorsys')\n")
    load(tmp_path, model_text()).build(0, 4)
    sys.modules.pop("colorsys", None)   # imported afresh: found through sys.path now
    assert importlib.import_module("colorsys").__file__ != str(tmp_path / "colorsys.py")


def test_a_library_probing_for_a_module_never_finds_the_one_beside_the_model(tmp_path):
    """A module no one installed (as a QP solver's optional back end is) beside the
    model file: the model file imports it, a library asking for it is told it is not
    there, as if the folder were elsewhere."""
    import importlib
    import importlib.util
    import sys
    name = "gradviz_test_absent_solver"
    (tmp_path / f"{name}.py").write_text("MARK = 'beside the model'\n")
    mf = load(tmp_path, model_text(trunk=f"nn.Linear(4, 8 + 0 * len(__import__({name!r}).MARK))"))
    try:
        assert mf.build(0, 4).trunk.out_features == 8   # the model file's own import works
        library = sys.modules[name]                     # then as a library would ask for it
        del sys.modules[name]
        assert importlib.util.find_spec(name) is None
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(name)
        assert library.MARK == "beside the model"
    finally:
        sys.modules.pop(name, None)
