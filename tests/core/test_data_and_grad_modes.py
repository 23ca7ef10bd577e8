""".data vs detach(), and no_grad / inference_mode beside detach: what each does to the
gradient, checked against the same loop written in plain PyTorch here."""
import pytest
import torch
from torch.nn import functional as F

from gradviz.core.compare import compare
from gradviz.core.session import Session
from gradviz.plain.config.config import Config, ConfigError
from gradviz.plain.config.config_toml import from_mapping
from gradviz.plain.records.events import from_exception

from core_reference import assert_grads, batch, ref_net, session_grads, snapshot, weights

BASE = Config(device="cpu", heads=3, trunk_width=16, batch_size=32, steps=4,
              probes="default", sample_every=1)


def _loss(k, out, target):
    return F.mse_loss(out, target) if k % 2 == 0 else F.cross_entropy(out, target)


def _plain_grads(net, losses, ws):
    net.zero_grad(set_to_none=True)
    total = sum(w * L for w, L in zip(ws, losses))
    total.backward()
    return {n: torch.zeros_like(p) if p.grad is None else p.grad.clone()
            for n, p in net.named_parameters()}


# ---- .data: no error, a wrong gradient -------------------------------------------------
def _edit_data_reference(cfg, session, init, k_edit):
    """The loop an old codebase has: after head K, z.data.mul_(0.5)."""
    net = ref_net(cfg, init)
    x, targets = batch(session, 0, cfg.batch_size)
    z = net.trunk(x)
    losses = []
    for k, head in enumerate(net.heads):
        losses.append(_loss(k, head(z), targets[k]))
        if k == k_edit:
            z.data.mul_(0.5)
    return net, losses


@pytest.mark.parametrize("k_edit", [0, 1, 2])
def test_edit_data_gives_plain_pytorchs_wrong_gradient_without_an_error(k_edit):
    cfg = BASE.replace(edit_data=k_edit)
    s = Session(cfg)
    init = snapshot(s)
    record = s.step()
    assert record is not None and s.error is None
    net, losses = _edit_data_reference(cfg, s, init, k_edit)
    assert_grads(s, _plain_grads(net, losses, weights(cfg)))
    for k, L in enumerate(losses):
        assert record.losses[f"head{k}"] == pytest.approx(L.item(), rel=1e-6)


def test_edit_data_halves_the_saved_z_of_the_heads_before_it():
    """A head's first Linear saved z for its weight gradient: .data halved the values
    behind it, so that gradient comes out at exactly half the clean run's."""
    clean, edited = Session(BASE), Session(BASE.replace(edit_data=1))
    clean.step()
    edited.step()
    a, b = session_grads(clean), session_grads(edited)
    for k in (0, 1):
        torch.testing.assert_close(b[f"heads.{k}.0.weight"], 0.5 * a[f"heads.{k}.0.weight"])
        torch.testing.assert_close(b[f"heads.{k}.0.bias"], a[f"heads.{k}.0.bias"])
    assert not torch.allclose(b["trunk.0.weight"], a["trunk.0.weight"], rtol=1e-3)


def test_edit_data_never_bumps_the_version_where_edit_detached_raises():
    z = torch.ones(3, requires_grad=True) * 2
    before = z._version
    z.data.mul_(0.5)
    assert z._version == before              # .data: a version counter of its own
    z.detach().mul_(1.0)
    assert z._version == before + 1          # detach(): z's own counter
    # and the engine: edit-data trains, edit-detached stops
    assert Session(BASE.replace(edit_data=1)).step() is not None
    s = Session(BASE.replace(detach=(1,), edit_detached=1))
    assert s.step() is None and "modified by an inplace operation" in s.error.message


def test_compare_says_edit_data_differs_from_the_clean_run():
    result = compare(BASE, BASE.replace(edit_data=1), steps=2)
    assert not result.same


@pytest.mark.parametrize("value", [3, -1, True, "1", 1.0])
def test_edit_data_names_a_head(value):
    with pytest.raises(ConfigError) as error:
        from_mapping({"edit-data": value}, BASE)
    assert "edit-data" in str(error.value) and "\n" not in str(error.value)


# ---- no_grad and inference_mode -----------------------------------------------------------
MODES = {"no_grad": torch.no_grad, "inference_mode": torch.inference_mode}


def _mode_reference(cfg, session, init, mode, k_cut):
    net = ref_net(cfg, init)
    x, targets = batch(session, 0, cfg.batch_size)
    z = net.trunk(x)
    losses = []
    for k, head in enumerate(net.heads):
        if k == k_cut:
            with MODES[mode]():
                out = head(z)
        else:
            out = head(z)
        losses.append(_loss(k, out, targets[k]))
    return net, losses


@pytest.mark.parametrize("mode", list(MODES))
def test_under_sum_the_head_silently_learns_nothing(mode):
    cfg = BASE.replace(detach=(1,), detach_mode=mode)
    s = Session(cfg)
    init = snapshot(s)
    record = s.step()
    assert record is not None, s.error
    net, losses = _mode_reference(cfg, s, init, mode, 1)
    assert losses[1].grad_fn is None          # the truth the mode rests on
    others = [L for k, L in enumerate(losses) if k != 1]
    expected = _plain_grads(net, others, [1.0, 1.0])
    assert_grads(s, expected)
    assert all(p.grad is None for p in s.model.heads[1].parameters())
    assert record.junction_grad_norms["head1"] == 0.0
    assert record.losses["head1"] == pytest.approx(losses[1].item(), rel=1e-6)


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("strategy,call,element", [
    ("separate", "backward 2 of 3", "element 0"), ("autograd-grad", "backward 2 of 3", "element 0"),
    # torch.autograd.backward checks every tensor of its list: it refuses where sum is silent
    ("backward-list", "backward 1 of 1", "element 1")])
def test_a_backward_from_that_loss_is_refused_and_explained(mode, strategy, call, element):
    s = Session(BASE.replace(detach=(1,), detach_mode=mode, strategy=strategy))
    assert s.step() is None
    assert f"{element} of tensors does not require grad" in s.error.message
    assert s.error.call.startswith(call)
    assert f"torch.{mode}()" in s.error.title
    # plain PyTorch raises the same for a loss computed this way
    with MODES[mode]():
        out = torch.nn.Linear(2, 1)(torch.ones(1, 2))
    with pytest.raises(RuntimeError, match="does not require grad"):
        out.sum().backward()


def test_inference_mode_outputs_refuse_later_use_no_grad_outputs_do_not():
    layer = torch.nn.Linear(2, 2)
    with torch.no_grad():
        plain = layer(torch.ones(1, 2))
    with torch.inference_mode():
        frozen = layer(torch.ones(1, 2))
    w = torch.ones(2, requires_grad=True)
    plain.mul_(2.0)                      # no_grad's result is an ordinary tensor
    (plain * w).sum().backward()
    assert not plain.is_inference() and frozen.is_inference()
    for use in (lambda: frozen.mul_(2.0), lambda: (frozen * w).sum().backward()):
        with pytest.raises(RuntimeError) as raised:
            use()
        event = from_exception(raised.value, 0, "backward", "x")
        assert "inference tensor" in event.title.lower(), event.title


def test_both_modes_give_one_gradient_and_a_graph_with_no_head_1_in_it():
    runs = {m: Session(BASE.replace(detach=(1,), detach_mode=m)) for m in MODES}
    for s in runs.values():
        assert s.step() is not None
    a, b = (session_grads(s) for s in runs.values())
    for name, g in a.items():
        torch.testing.assert_close(b[name], g)
    for s in runs.values():
        graph = s.graph()   # head 1 recorded nothing: no node of it, no cut edge to it
        assert not any(n.module.startswith("heads.1") for n in graph.nodes)
        assert any(n.module.startswith("heads.0") for n in graph.nodes)
