"""What happened for an error raised through a model file's code says who raised it
(PyTorch, in a torch op the file called, or the file's own code) and at which line of the
file: checked against the same head run in plain PyTorch here, and the line looked up in
the text the test wrote. No setting of gradviz's was combined: the file's code met it."""
import runpy
import textwrap

import pytest
import torch

from gradviz.core.model_file import ModelFile
from gradviz.core.session import Session
from gradviz.plain.config.config import Config

# a head that goes wrong in training mode only (the build's trial runs in eval mode, so
# the file opens, and the error comes at the first step): its training branch is BODY
MODEL = textwrap.dedent('''
    import torch
    import torch.nn.functional as F
    from torch import nn


    class WidthNorm(nn.Module):
        """The file's own layer: a layer norm, given the wrong width."""

        def __init__(self, width):
            super().__init__()
            self.width = width

        def forward(self, z):
            return F.layer_norm(z, (self.width,))


    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.randn(12, 1))
            self.wrong = torch.randn(7, 1)
            self.wrong_linear = nn.Linear(7, 1)
            self.norm = WidthNorm(7)

        def refuse(self, kind):
            raise kind("the head refuses")

        def forward(self, z):
            if not self.training:
                return z @ self.w
            return BODY


    def build(seed):
        torch.manual_seed(seed)
        def batch(step, batch_size, generator):
            x = torch.randn(batch_size, 5, generator=generator)
            return x, [x[:, :1]]
        return {"trunk": nn.Linear(5, 12), "heads": [Head()], "batch": batch,
                "losses": [F.mse_loss]}
''')
BATCH = 8
# case: (the training branch, the file's line the error is raised at, who raised it)
CASES = {
    "z @ w": ("z @ self.wrong", "return z @ self.wrong", "PyTorch"),
    "nn.Linear": ("self.wrong_linear(z)", "return self.wrong_linear(z)", "PyTorch"),
    "own layer": ("self.norm(z)", "return F.layer_norm(z, (self.width,))", "PyTorch"),
    "own raise": ("self.refuse(ValueError)", 'raise kind("the head refuses")', "file"),
    # a RuntimeError, as torch's C++ raises, but from the file's own `raise`
    "own RuntimeError": ("self.refuse(RuntimeError)", 'raise kind("the head refuses")', "file"),
    "own NameError": ("undefined_name(z)", "return undefined_name(z)", "file"),
}


def plain_error(path) -> BaseException:
    """The error the file's head raises in training mode on step 0's batch, in plain
    PyTorch (the file run by runpy, not through gradviz)."""
    built = runpy.run_path(str(path))["build"](0)
    x, _ = built["batch"](0, BATCH, torch.Generator().manual_seed(0))
    head = built["heads"][0].train()
    with pytest.raises(Exception) as caught:
        head(built["trunk"](x))
    return caught.value


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_an_error_through_the_file_says_who_raised_it_and_its_line(tmp_path, case):
    body, raising_line, who = CASES[case]
    text = MODEL.replace("BODY", body)
    path = tmp_path / "theirs.py"
    path.write_text(text)
    line = [s.strip() for s in text.splitlines()].index(raising_line) + 1
    expected = plain_error(path)

    session = Session(Config(device="cpu", heads=1, batch_size=BATCH), ModelFile(path))
    assert session.step() is None
    event = session.error
    assert event.type == type(expected).__name__
    assert event.message.splitlines()[0] == str(expected).splitlines()[0]
    assert event.message.splitlines()[-1].startswith(f"theirs.py:{line} in ")   # innermost
    where = f"at theirs.py:{line} (in "
    if who == "PyTorch":
        assert isinstance(expected, RuntimeError)   # as plain PyTorch raised it
        assert event.source == "PyTorch"
        assert event.explanation.startswith("PyTorch raised this error, in a torch operation")
        assert where in event.explanation and "not PyTorch" not in event.explanation
    else:
        assert event.source == f"model file {str(path)!r}"
        assert event.one_line().startswith(f"model file {str(path)!r} raised "
                                           f"{type(expected).__name__} at step 0")
        assert f"The code of model file {str(path)!r} raised this error itself {where}" \
            in event.explanation and "not PyTorch" in event.explanation
    assert "combination of settings" not in event.explanation + event.hint
    assert event.hint.startswith("Fix the file, then open it again")
