"""Lesson 12's `.data` slide and lesson 09's clipping slide draw what they say: their
reference lines' values, their promises and the numbers behind their words, each checked
against the same loop written in plain PyTorch here; and a reference `lessons --check`
cannot draw is a broken promise in one line."""
import pytest
import torch
from lesson_text import problems, slide

from gradviz.core.session import Session
from gradviz.plain.config.config import Config
from gradviz.plain.lessons.lesson_references import reference_lines
from gradviz.plain.lessons.lessons import find_lesson
from gradviz.plain.records.history import History

from core_reference import batch, global_norm, loss_k, norm, ref_net, snapshot

# lesson 12's and lesson 09's shared config (heads 3, batch 64), on the CPU
BASE = Config(device="cpu", heads=3, batch_size=64, steps=20)


def _history(cfg: Config, steps: int) -> History:
    """The run a slide leaves behind, as the window keeps it."""
    s = Session(cfg.replace(sample_every=1))
    h = History(cfg.head_names(), s.param_names)
    for _ in range(steps):
        h.append(s.step())
    return h


def _step0(edit_data: bool):
    """Plain PyTorch, step 0: each parameter's gradient of the summed losses, and each
    head's push at z as backward hands it on (the gradient at the head's input)."""
    s = Session(BASE)
    net = ref_net(BASE, snapshot(s))
    x, targets = batch(s, 0, BASE.batch_size)
    z = net.trunk(x)
    losses = []
    for k, head in enumerate(net.heads):
        losses.append(loss_k(k, head(z), targets[k]))
        if edit_data and k == 1:
            z.data.mul_(0.5)
    pushes = [torch.autograd.grad(L, z, retain_graph=True)[0] for L in losses]
    sum(losses).backward()
    return {n: p.grad.clone() for n, p in net.named_parameters()}, pushes, (net, x, targets)


def test_the_data_slides_words_hold_in_plain_pytorch():
    clean, clean_push, _ = _step0(False)
    data, data_push, (net, x, targets) = _step0(True)
    for k in (0, 1):   # exactly half: their first layer's weights, at step 0
        assert torch.equal(data[f"heads.{k}.0.weight"], 0.5 * clean[f"heads.{k}.0.weight"])
        for rest in ("0.bias", "2.weight", "2.bias"):   # unchanged
            assert torch.equal(data[f"heads.{k}.{rest}"], clean[f"heads.{k}.{rest}"])
        assert torch.equal(data_push[k], clean_push[k])   # their pushes too
    for name in ("0.weight", "0.bias", "2.weight", "2.bias"):   # all of head 2 changes
        assert not torch.allclose(data[f"heads.2.{name}"], clean[f"heads.2.{name}"], rtol=0.01)
    # head 2's push is 2x the true derivative of its loss, L2(head2(z / 2)), at z
    z = net.trunk(x)
    (true,) = torch.autograd.grad(loss_k(2, net.heads[2](0.5 * z), targets[2]), z)
    assert torch.equal(data_push[2], 2 * true)
    # ...yet near the clean run's (2.5% above it here): the reference line shows it
    assert norm(data_push[2]) / norm(clean_push[2]) == pytest.approx(1.025, abs=0.005)
    trunk = [n for n in clean if n.startswith("trunk")]
    moved = norm(torch.cat([(data[n] - clean[n]).reshape(-1) for n in trunk])) / \
        norm(torch.cat([clean[n].reshape(-1) for n in trunk]))
    assert moved == pytest.approx(0.04, abs=0.005)                    # "~4%"
    assert norm(data["trunk.0.weight"]) / norm(clean["trunk.0.weight"]) == \
        pytest.approx(1.013, abs=0.0005)                              # "+1.3%"


def test_the_data_slide_draws_the_clean_runs_push_of_head_2():
    lesson = find_lesson("12-one-pass-or-k")
    data_slide = lesson.slides[4]
    assert data_slide.config.edit_data == 1 and data_slide.keep == "ghost"
    _, clean_push, _ = _step0(False)
    kept = {0: _history(lesson.slides[0].config, 2)}   # slide 1 (the sum), as left
    lines = reference_lines(data_slide, kept)
    (line,) = lines["junction"]
    assert lines["global_norm"] == []
    assert line.metric == "junction.head2"
    assert line.value == pytest.approx(norm(clean_push[2]), rel=1e-5)
    assert reference_lines(data_slide, {}) == {"junction": [], "global_norm": []}


def test_the_clipping_slide_draws_the_norm_before_clipping():
    lesson = find_lesson("09-accumulation")
    clip_slide = lesson.slides[7]
    assert clip_slide.config.clip == 0.5 and "about 1.4" in clip_slide.narration
    clean, _, _ = _step0(False)
    before = global_norm(clean)
    assert before == pytest.approx(1.4, abs=0.05)                     # "about 1.4"
    (line,) = reference_lines(clip_slide, {0: _history(lesson.slides[0].config, 1)}
                              )["global_norm"]
    assert line.value == pytest.approx(before, rel=1e-5)
    clipped = _history(clip_slide.config, 2).column("global_grad_norm")
    assert clipped == pytest.approx([0.5, 0.5], rel=1e-5)   # what the chart shows beside it


def test_a_reference_to_a_run_that_stopped_at_step_0_breaks_in_one_line():
    ref = ('panels = ["junction"]\nreference = [{ metric = "junction.head0", '
           'value = { slide = 1 }, label = "clean" }]')
    found = problems(slide("refused", 'config = { detach = [1], detach-mode = "no_grad", '
                                      'strategy = "separate" }'),
                     slide("drawn", ref))
    assert found == ["slide 2 (drawn): reference 'clean': slide 1 has no junction.head0 at "
                     "step 0 to draw"]
    assert problems(slide("clean"), slide("drawn", ref)) == []


def test_a_false_promise_on_the_data_slide_fails_in_one_line():
    """The promise that pins trunk.0.weight's +1.3% on the .data slide: written false,
    --check says so."""
    lines = 'expect = [{ ratio = { of = "grad_norm.trunk.0.weight", slide = 1, is = 1.0 } }]'
    # two heads here: halved after head 0, head 1 reads it and the trunk's gradient moves
    found = problems(slide("clean"), slide("data", "config = { edit-data = 0 }\n" + lines))
    assert len(found) == 1
    assert found[0].startswith("slide 2 (data): grad_norm.trunk.0.weight is 1.") and \
        found[0].endswith("× slide 1's, not 1×")
