"""The explanations say what is true in plain PyTorch: each test checks the PyTorch fact
an explanation rests on, then that the explanation says it (and not the old untruth)."""
from __future__ import annotations

import pytest
import torch
from torch import nn

from gradviz.core.session import Session
from gradviz.plain.config.config import Config
from gradviz.plain.records import events as ev


def _first_steps(optimizer: str, scale: float) -> torch.Tensor:
    """One optimizer step on a fixed least-squares loss times scale: the change of w."""
    torch.manual_seed(0)
    a, y = torch.randn(20, 10), torch.randn(20)
    w = torch.zeros(10, requires_grad=True)
    opt = (torch.optim.Adam([w], lr=0.01) if optimizer == "adam"
           else torch.optim.SGD([w], lr=0.01))
    ((a @ w - y) ** 2).mean().mul(scale).backward()
    opt.step()
    return w.detach().clone()


def test_a_larger_gradient_makes_a_larger_step_for_sgd_only():
    # the fact: SGD's step scales with the gradient, Adam's does not (up to its eps)
    sgd = _first_steps("sgd", 4.0).norm() / _first_steps("sgd", 1.0).norm()
    adam = _first_steps("adam", 4.0).norm() / _first_steps("adam", 1.0).norm()
    assert sgd == pytest.approx(4.0, rel=1e-5)
    assert adam == pytest.approx(1.0, rel=1e-5)
    # and the words follow it
    sgd_why = ev.divergence(3, "optimizer step", "x", "nan", "sgd").explanation
    adam_why = ev.divergence(3, "optimizer step", "x", "nan", "adam").explanation
    assert "makes the step larger" in sgd_why and "unscaled accumulation" in sgd_why
    assert "does not make a larger step" in adam_why
    assert "makes the step larger" not in adam_why


def test_the_session_explains_a_divergence_for_its_own_optimizer():
    s = Session(Config(lr=1000.0, steps=6, heads=2, trunk_width=8))
    for _ in range(6):
        if s.step() is None:
            break
    assert s.error is not None and s.error.type == "Divergence"
    assert "SGD's step is lr times the gradient" in s.error.explanation


def _no_grad_fn_errors() -> dict[str, RuntimeError]:
    """backward on outputs made four ways that leave no graph to the weights."""
    m, x = nn.Linear(3, 1), torch.randn(4, 3)
    frozen = nn.Linear(3, 1).requires_grad_(False)
    with torch.no_grad():
        under_no_grad = m(x)
    with torch.inference_mode():
        under_inference = m(x)
    made = {"detached": m(x).detach(), "no_grad": under_no_grad,
            "inference_mode": under_inference, "frozen": frozen(x)}
    errors = {}
    for name, out in made.items():
        with pytest.raises(RuntimeError) as caught:
            out.sum().backward()
        errors[name] = caught.value
    return errors


def test_one_message_for_detach_no_grad_inference_mode_and_frozen_weights():
    errors = _no_grad_fn_errors()
    messages = {str(e) for e in errors.values()}
    assert len(messages) == 1     # PyTorch cannot tell the four apart: nor can we
    event = ev.from_exception(errors["no_grad"], 0, "backward", "backward")
    assert event.title == "Nothing to differentiate"
    for cause in ("detached", "torch.no_grad()", "torch.inference_mode()", "frozen"):
        assert cause in event.explanation


def test_the_detach_in_place_hint_says_what_detaching_first_costs():
    trunk, heads = nn.Linear(4, 5), [nn.Linear(5, 1) for _ in range(3)]
    z = trunk(torch.randn(8, 4))
    z.detach_()                       # before the first head: no head saved the old z
    sum(h(z).sum() for h in heads).backward()
    assert trunk.weight.grad is None  # no error, and no gradient reaches the trunk
    z = trunk(torch.randn(8, 4))
    first = heads[0](z)               # this head saved z for its weight's gradient
    z.detach_()
    with pytest.raises(RuntimeError, match="detached in-place") as caught:
        first.sum().backward()
    hint = ev.from_exception(caught.value, 0, "backward", "backward").hint
    assert "cutting every head off the trunk" in hint
    assert "so that no head saved" not in hint


def test_meta_only_simulates_a_device_error_through_the_bias():
    x = torch.randn(4, 5)
    w, b = torch.randn(3, 5, device="meta"), torch.randn(3, device="meta")
    assert torch.mm(x, w.t()).device.type == "cpu"     # no error: a tensor of garbage
    with pytest.raises(RuntimeError, match="is not on the expected device"):
        torch.addmm(b, x, w.t())
    event = ev.from_exception(RuntimeError("Tensor on device meta is not on the expected "
                                           "device cpu!"), 0, "forward", "head1",
                              "misplaced-meta")
    assert "simulated" in event.explanation and "bias" in event.explanation
    assert "same kind of error" not in event.explanation
