"""The no_gradient promise: a parameter's .grad is None at every step (not a gradient
of zeros), as plain PyTorch leaves a head run under torch.no_grad(); a promise of a
norm on such a parameter says it had no gradient, not that it was not measured."""
import pytest
import torch
from lesson_text import HEAD, problems, slide
from torch import nn

from gradviz.plain.lessons.lessons import LessonError, parse_lesson

NO_GRAD_HEAD1 = 'config = { detach = [1], detach-mode = "no_grad" }\n'


def test_a_head_under_no_grad_gets_no_grad_at_all_in_plain_pytorch():
    """The fact the next tests lean on: .grad stays None, not zeros."""
    trunk, head0, head1 = nn.Linear(4, 3), nn.Linear(3, 1), nn.Linear(3, 1)
    z = trunk(torch.randn(5, 4))
    with torch.no_grad():
        out1 = head1(z)
    (head0(z).sum() + out1.sum()).backward()
    assert head1.weight.grad is None and head0.weight.grad is not None


def test_no_gradient_holds_for_a_no_grad_heads_weights():
    assert problems(slide("cut", NO_GRAD_HEAD1 + 'expect = [{ no_gradient = '
                                                 '"grad_norm.heads.1.0.weight" }]')) == []


def test_no_gradient_breaks_where_the_parameter_has_one():
    found = problems(slide("whole", 'expect = [{ no_gradient = '
                                    '"grad_norm.heads.1.0.weight" }]'))
    assert len(found) == 1
    assert found[0].startswith("slide 1 (whole): grad_norm.heads.1.0.weight had a gradient "
                               "at step 0 (norm ")


def test_a_norm_promise_on_a_parameter_without_a_gradient_says_so():
    found = problems(slide("cut", NO_GRAD_HEAD1 + 'expect = [{ zero = '
                                                  '"grad_norm.heads.1.0.weight" }]'))
    assert found == ["slide 1 (cut): grad_norm.heads.1.0.weight: no gradient (.grad is "
                     "None) at step 0"]


def test_no_gradient_takes_only_a_parameters_norm():
    text = HEAD + slide("s", 'expect = [{ no_gradient = "total" }]')
    with pytest.raises(LessonError, match="no_gradient takes a parameter's grad_norm.PARAM"):
        parse_lesson("x", text)
