"""Independent plain-PyTorch references for the engine's lessons.

Nothing here imports gradviz: the network, the losses, the backward calls and the
memory count are written out again, so the numbers a test expects never come from the
code under test. Only data (the initial weights, the batch) is taken from a session.
(Named core_reference, not reference: test folders have no __init__.py, so a helper
module's name must not clash with one in tests/render or tests/qt.)
"""
from __future__ import annotations

import weakref

import torch
from torch import nn
from torch.nn import functional as F

HEAD_HIDDEN = 16
TIGHT = dict(rtol=1e-5, atol=1e-6)   # float32, summation order may differ


def out_dim(k: int) -> int:
    """Even heads are regressions (1 output), odd heads 3-way classifications."""
    return 1 if k % 2 == 0 else 3


class RefNet(nn.Module):
    """The same layout and parameter names as the engine's model, written again."""

    def __init__(self, heads: int, width: int, depth: int, in_dim: int = 8):
        super().__init__()
        layers: list[nn.Module] = []
        size = in_dim
        for i in range(depth):
            layers.append(nn.Linear(size, width))
            if i < depth - 1:
                layers.append(nn.Tanh())
            size = width
        self.trunk = nn.Sequential(*layers)
        self.heads = nn.ModuleList(
            nn.Sequential(nn.Linear(width, HEAD_HIDDEN), nn.Tanh(),
                          nn.Linear(HEAD_HIDDEN, out_dim(k)))
            for k in range(heads))


def snapshot(session) -> dict[str, torch.Tensor]:
    """The session's weights right now (call before the first step for the initial ones)."""
    return {k: v.detach().clone() for k, v in session.model.state_dict().items()}


def ref_net(cfg, state: dict[str, torch.Tensor]) -> RefNet:
    net = RefNet(cfg.heads, cfg.trunk_width, cfg.trunk_depth)
    net.load_state_dict(state)  # strict: the names and shapes must match the engine's
    return net


def batch(session, step: int, batch_size: int):
    """(x, [target per head]) of optimizer step `step`: data, so fine to take."""
    idx = session.data.batch_indices(step, batch_size).cpu()
    x = session.data.x.cpu()[idx]
    return x, [t.cpu()[idx] for t in session.data.targets]


def micro_batches(session, step: int, batch_size: int, n: int):
    """[(x, [targets])] per micro-batch: the step's examples in n equal consecutive parts,
    each gathered into its own tensors as a plain accumulation loop would."""
    idx = session.data.batch_indices(step, batch_size).cpu()
    x, targets = session.data.x.cpu(), [t.cpu() for t in session.data.targets]
    return [(x[part], [t[part] for t in targets]) for part in idx.chunk(n)]


def loss_k(k: int, out: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    return F.mse_loss(out, target) if k % 2 == 0 else F.cross_entropy(out, target)


def forward(net: RefNet, x, targets, detach=(), mode: str = "detach"):
    """(z, [L_k]) with head k reading z.detach() or after z.detach_() where asked."""
    z = net.trunk(x)
    losses = []
    for k, head in enumerate(net.heads):
        zk = z
        if k in detach:
            if mode == "detach":
                zk = z.detach()
            else:
                z.detach_()
        losses.append(loss_k(k, head(zk), targets[k]))
    return z, losses


def grads_of(net: RefNet, loss: torch.Tensor, retain: bool = True) -> dict[str, torch.Tensor]:
    """Every parameter's gradient of `loss` by a plain backward (zeros where none)."""
    net.zero_grad(set_to_none=True)
    loss.backward(retain_graph=retain)
    out = {n: p.grad.clone() if p.grad is not None else torch.zeros_like(p)
           for n, p in net.named_parameters()}
    net.zero_grad(set_to_none=True)
    return out


def weights(cfg) -> tuple[float, ...]:
    return tuple(cfg.loss_weights) or (1.0,) * cfg.heads


def weighted_sum(ws, losses):
    total = ws[0] * losses[0]
    for w, loss in zip(ws[1:], losses[1:]):
        total = total + w * loss
    return total


def session_grads(session) -> dict[str, torch.Tensor]:
    return {n: p.grad.detach().cpu().clone() if p.grad is not None else torch.zeros_like(p).cpu()
            for n, p in zip(session.param_names, session.params)}


def assert_grads(session, expected: dict[str, torch.Tensor], names=None, **tol) -> None:
    """The session's .grad equals expected for every parameter (or those in names)."""
    tol = tol or TIGHT
    got = session_grads(session)
    assert set(got) == set(expected)
    for name in names or got:
        torch.testing.assert_close(got[name], expected[name], **tol,
                                   msg=lambda m, name=name: f"{name}: {m}")


def norm(t: torch.Tensor) -> float:
    return torch.linalg.vector_norm(t).item()


def global_norm(grads: dict[str, torch.Tensor]) -> float:
    return norm(torch.cat([g.reshape(-1) for g in grads.values()]))


def junction_grads(z: torch.Tensor, terms) -> list[torch.Tensor]:
    """d term_k / dz for each weighted loss term, flattened (zeros where z is not used)."""
    rows = []
    for t in terms:
        (g,) = torch.autograd.grad(t, z, retain_graph=True, allow_unused=True)
        rows.append(torch.zeros_like(z).reshape(-1) if g is None else g.reshape(-1))
    return rows


def cosines(rows: list[torch.Tensor]) -> list[list[float]]:
    """Pairwise cosines, NaN where either gradient is zero."""
    out = []
    for a in rows:
        line = []
        for b in rows:
            na, nb = norm(a), norm(b)
            line.append(float("nan") if na == 0 or nb == 0 else (a @ b).item() / (na * nb))
        out.append(line)
    return out


class _Box:
    """What the pack hook hands autograd: alive exactly as long as the graph holds it."""
    __slots__ = ("tensor", "__weakref__")

    def __init__(self, tensor: torch.Tensor):
        self.tensor = tensor


class SavedTracker:
    """Records each tensor saved for backward while `tracking()` is active, and says
    which of them the graph still holds (a backward without retain_graph drops them).

    The box holds a detached alias, so there is no reference cycle through the tensor's
    own grad_fn and nothing leaks. Saved-tensor hooks never see Python scalars that an
    op saved as 0-dim "wrapped number" tensors (e.g. the 0.5 of `0.5 * loss`): count
    those with `scalar_bytes`.
    """

    def __init__(self, net: nn.Module):
        self._params = {p.untyped_storage().data_ptr() for p in net.parameters()}
        # (box alive?, storage address, storage bytes, the view's place and layout,
        # the view's own bytes)
        self._saved: list[tuple[weakref.ref, int, int, tuple, int]] = []

    def _pack(self, t: torch.Tensor) -> _Box:
        s = t.untyped_storage()
        box = _Box(t.detach())
        view = (s.data_ptr(), t.storage_offset(), t.dtype, tuple(t.shape), t.stride())
        self._saved.append((weakref.ref(box), s.data_ptr(), s.nbytes(), view,
                            t.numel() * t.element_size()))
        return box

    def tracking(self):
        return torch.autograd.graph.saved_tensors_hooks(self._pack, lambda box: box.tensor)

    def bytes_held(self) -> int:
        """Bytes of the distinct storages still held, parameters' storages excluded."""
        held = {ptr: n for ref, ptr, n, _, _ in self._saved if ref() is not None}
        return sum(n for ptr, n in held.items() if ptr not in self._params)

    def tensor_bytes_held(self) -> int:
        """The saved tensors' own bytes (elements x element size) still held, each
        distinct view once, per storage at most the storage's bytes; parameters'
        storages excluded."""
        views = {view: (ptr, n, own) for ref, ptr, n, view, own in self._saved
                 if ref() is not None and ptr not in self._params}
        per_storage: dict[int, list[int]] = {}
        for ptr, n, own in views.values():
            per_storage.setdefault(ptr, [n, 0])[1] += own
        return sum(min(n, own) for n, own in per_storage.values())


def scalar_bytes(terms) -> int:
    """Bytes of the Python scalars that `w * loss` saved (as 0-dim float64 tensors)."""
    total = 0
    for t in terms:
        other = getattr(t.grad_fn, "_saved_other", None)
        if isinstance(other, torch.Tensor) and other.dim() == 0:
            total += other.untyped_storage().nbytes()
    return total


def reachable_nodes(roots) -> int:
    """How many distinct autograd nodes are reachable from these grad_fns."""
    seen: dict[int, object] = {}
    stack = [r for r in roots if r is not None]
    while stack:
        fn = stack.pop()
        if id(fn) in seen:
            continue
        seen[id(fn)] = fn  # holding fn keeps its id from being reused mid-walk
        stack.extend(n for n, _ in fn.next_functions if n is not None)
    return len(seen)


def sequence_marker() -> int:
    """The autograd creation counter now: a throwaway node's sequence number (nodes a
    module call makes lie between the markers taken before and after it)."""
    return (torch.zeros(1, requires_grad=True) * 1).grad_fn._sequence_nr()


def made_nodes(losses) -> list:
    """Every autograd node below the losses but the leaves' AccumulateGrad."""
    seen, stack, found = set(), [loss.grad_fn for loss in losses], []
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        stack.extend(f for f, _ in fn.next_functions)
        if type(fn).__name__ != "AccumulateGrad":
            found.append(fn)
    return found
