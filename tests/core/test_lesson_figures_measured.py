"""The figures bundled slides draw are measured values: each slide's engine run for one
step, read as the stage reads it (plain.lessons.lesson_figures), against plain PyTorch written
out again here (01/3's pushes into z, 12's walks of the trunk)."""
import math

import torch

from gradviz.core.session import Session
from gradviz.plain.lessons.lesson_figures import figure_value
from gradviz.plain.lessons.lessons import find_lesson
from gradviz.plain.records.history import History

from core_reference import batch, forward, norm, ref_net, snapshot


def one_step(config) -> tuple[History, Session]:
    session = Session(config)
    record = session.step()
    history = History(config.head_names(), list(session.param_names))
    history.append(record)
    return history, session


def test_lesson_01_slide_3_heads_push_3_2_1_times_the_sums_at_step_0():
    lesson = find_lesson("01-add-or-separate")
    summed, _ = one_step(lesson.slides[0].config)
    in_loop = Session(lesson.slides[2].config)
    start = snapshot(in_loop)
    history = History(lesson.slides[2].config.head_names(), list(in_loop.param_names))
    history.append(in_loop.step())
    # plain PyTorch: `total += L_k; total.backward()` inside the loop; head k's push
    # into z summed over the calls whose total holds L_k, over its push in one sum
    cfg = lesson.slides[2].config
    net = ref_net(cfg, start)
    x, targets = batch(in_loop, 0, cfg.batch_size)
    z, losses = forward(net, x, targets)
    one = [torch.autograd.grad(loss, z, retain_graph=True)[0] for loss in losses]
    pushed = [torch.zeros_like(z) for _ in losses]
    for call in range(len(losses)):
        for k in range(call + 1):
            pushed[k] += one[k]
    for k, figure in enumerate(lesson.slides[2].figures):
        expected = norm(pushed[k]) / norm(one[k])
        got = figure_value(figure, history, {0: summed})
        assert got is not None and math.isclose(got, expected, rel_tol=1e-4), (k, got)
        assert math.isclose(expected, 3 - k, rel_tol=1e-5)


def walks(strategy: str) -> int:
    """How many times plain PyTorch's backward walks a trunk layer: a hook counts."""
    torch.manual_seed(0)
    trunk = torch.nn.Linear(4, 4)
    heads = [torch.nn.Linear(4, 1) for _ in range(3)]
    count = [0]
    trunk.weight.register_hook(lambda g: count.__setitem__(0, count[0] + 1))
    z = trunk(torch.randn(8, 4))
    losses = [h(z).pow(2).mean() for h in heads]
    if strategy == "sum":
        sum(losses).backward()
    elif strategy == "list":
        torch.autograd.backward(losses)
    elif strategy == "grad":
        for k, loss in enumerate(losses):
            torch.autograd.grad(loss, [trunk.weight], retain_graph=k < len(losses) - 1)
    else:
        for k, loss in enumerate(losses):
            loss.backward(retain_graph=k < len(losses) - 1)
    return count[0]


def test_lesson_12_trunk_walks_are_the_ones_plain_pytorch_makes():
    lesson = find_lesson("12-one-pass-or-k")
    expected = {1: walks("sum"), 2: walks("separate"), 3: walks("list"), 4: walks("grad")}
    assert expected == {1: 1, 2: 3, 3: 1, 4: 3}
    for n, walked in expected.items():
        history, _ = one_step(lesson.slides[n - 1].config)
        (figure,) = lesson.slides[n - 1].figures
        assert figure_value(figure, history, {}) == walked, n


def test_lesson_14s_above_zero_reads_as_a_number_other_than_its_exact_zero():
    """14/1 says each head's push at z is above zero; on the chart the image head's
    (about 0.001 beside the quadrant head's 0.07) lay along 0 as 14/2's exact zero
    does. Its figure tells the two apart: a number above zero, and 0.0000 once the
    image head reads z.detach()."""
    from gradviz.core.lesson_check import slide_model
    from gradviz.plain.lessons.lesson_figures import figure_text

    lesson = find_lesson("14-cnn-two-heads")
    shown = []
    for slide in lesson.slides:
        session = Session(slide.config, slide_model(slide))
        history = History(slide.config.head_names(), list(session.param_names))
        history.append(session.step())
        image = next(f for f in slide.figures if f.metric == "junction.head1")
        shown.append((figure_value(image, history, {}), figure_text(image, history, {})))
    (above, above_text), (cut, cut_text) = shown
    assert above is not None and above > 0 and cut == 0.0
    assert cut_text == "image head's push at z: 0.0000"
    assert above_text != cut_text and float(above_text.rsplit(" ", 1)[1]) > 0
