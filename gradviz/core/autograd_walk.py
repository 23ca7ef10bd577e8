"""Read-only walks over live autograd graphs: saved tensors, node counts, reachability.

Everything here inspects `grad_fn` objects without hooks, so it neither keeps tensors
alive nor changes what PyTorch does. Saved-tensor hooks would do both: a pack hook that
keeps its tensor makes a reference cycle through C++ that gc never frees, and while such
hooks are active PyTorch no longer raises the `detach_()` error the app must show.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Protocol, TypeGuard

import torch
from torch.autograd.graph import Node

from ..plain.graph.graph_data import ALIVE, DETACHED, FREED, STALE  # noqa: F401  (the states, re-exported)

_SAVED_PREFIX = "_saved_"
_saved_names_by_type: dict[type, tuple[str, ...]] = {}
_raw_names_by_type: dict[type, tuple[str, ...]] = {}


def saved_attr_names(fn: object) -> tuple[str, ...]:
    """The `_saved_*` names of an autograd node's type that hold tensors (cached: dir()
    is slow, and most saved attributes are sizes or scalars). Tensor ones are those that
    also have a `_raw_saved_*` SavedVariable."""
    names = _saved_names_by_type.get(type(fn))
    if names is None:
        attrs = set(dir(fn))
        names = tuple(a for a in sorted(attrs) if a.startswith(_SAVED_PREFIX)
                      and "_raw" + a in attrs)
        _saved_names_by_type[type(fn)] = names
        _raw_names_by_type[type(fn)] = tuple("_raw" + a for a in names)
    return names


def _raw_names(fn: object) -> tuple[str, ...]:
    """The `_raw_saved_*` names of saved_attr_names(fn), cached the same way."""
    names = _raw_names_by_type.get(type(fn))
    if names is None:
        saved_attr_names(fn)
        names = _raw_names_by_type[type(fn)]
    return names


def _raw_data(raw: object) -> Iterator[torch.Tensor]:
    if isinstance(raw, (list, tuple)):
        for item in raw:
            yield from _raw_data(item)
        return
    data = getattr(raw, "data", None)
    if isinstance(data, torch.Tensor):
        yield data


def _unpack_state(fn: object, attr: str) -> str:
    """Whether backward could still use a held saved tensor: unpacking runs PyTorch's
    checks (a weight changed by optimizer.step() since it was saved fails them)."""
    try:
        getattr(fn, attr)
    except RuntimeError as exc:
        text = str(exc)
        if "detached in-place" in text:
            return DETACHED
        if "modified by an inplace operation" in text:
            return STALE
        return FREED
    return ALIVE


def saved_tensors(fn: object) -> Iterator[tuple[str, torch.Tensor | None, str]]:
    """Yield (name, tensor or None, state) for each tensor a node saved for backward.

    The tensor is the held buffer (None once backward freed it); state says whether
    backward could still use it.
    """
    for attr in saved_attr_names(fn):
        name = attr[len(_SAVED_PREFIX):]
        held = list(_raw_data(getattr(fn, "_raw" + attr)))
        if not held:
            if _unpack_state(fn, attr) != ALIVE:  # freed; else it never held one
                yield name, None, FREED
            continue
        state = _unpack_state(fn, attr)
        if len(held) == 1:
            yield name, held[0], state
        else:
            for i, tensor in enumerate(held):
                yield f"{name}[{i}]", tensor, state


class AccumulateGradNode(Protocol):
    """What gradviz reads of an AccumulateGrad node: the parameter it accumulates into."""
    variable: torch.Tensor


def is_accumulate_grad(fn: object) -> TypeGuard[AccumulateGradNode]:
    """A parameter's AccumulateGrad node: it lives as long as the parameter, not the step
    (hooks on it would pile up), and it stands for the parameter in a drawn graph."""
    return hasattr(fn, "variable")


def next_nodes(fn: object) -> Iterator[Node]:
    for nxt, _ in getattr(fn, "next_functions", ()):
        if nxt is not None:
            yield nxt


def reachable_nodes(roots: Iterable[Node | None]) -> list[Node]:
    """Every autograd node reachable from roots, each once, in depth-first order."""
    seen: set[int] = set()
    order: list[Node] = []
    stack = [r for r in roots if r is not None][::-1]
    while stack:   # the memory probe's walk on sampled steps: kept to plain loops
        fn = stack.pop()
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        order.append(fn)
        stack += [nxt for nxt, _ in reversed(getattr(fn, "next_functions", ()))
                  if nxt is not None]
    return order


def storage_key(t: torch.Tensor) -> tuple[torch.device, int]:
    """What tells a tensor's storage from every other one alive: its device and address."""
    return (t.device, t.untyped_storage().data_ptr())


def storage_bytes(t: torch.Tensor) -> int:
    return t.untyped_storage().nbytes()


def held_saved_memory(nodes: Iterable[object],
                      exclude_storages: set[tuple[torch.device, int]]) -> tuple[int, int]:
    """(storage bytes, tensor bytes) that nodes' saved tensors still hold; storages in
    exclude_storages (the parameters', which exist anyway) are not counted.

    Storage bytes: the distinct storages the saved tensors keep alive, each whole: a
    saved view counts its base storage (an 8-row slice of a 100,000-row dataset counts
    the dataset), since that stays allocated while the graph holds it. Tensor bytes:
    what backward needs, each saved tensor's own elements (numel x element size), each
    distinct view (storage, offset, dtype, shape, strides) once; per storage at most its
    size, so views that overlap (x and x.t()) are not counted past the bytes there are.

    Read without unpacking: `_raw_saved_*.data` is None once backward freed the buffer,
    and reading it runs no version or detach check, about 50x cheaper than unpacking a
    freed tensor, which raises (saved_tensors() unpacks, to tell the states apart).
    """
    storages: dict[tuple[torch.device, int], int] = {}   # kept alive: its bytes
    own: dict[tuple[torch.device, int], int] = {}        # its saved views' own bytes
    views: set[tuple] = set()
    for fn in nodes:
        for raw_name in _raw_names(fn):   # (the memory probe's: plain loops)
            raw = getattr(fn, raw_name)
            if isinstance(raw, (list, tuple)):   # a list of SavedVariables
                tensors: Iterable[torch.Tensor] = list(_raw_data(raw))
            else:   # one SavedVariable: its .data, None once backward freed it
                data = getattr(raw, "data", None)
                if not isinstance(data, torch.Tensor):
                    continue
                tensors = (data,)
            for tensor in tensors:
                storage = tensor.untyped_storage()
                key = (tensor.device, storage.data_ptr())
                if key in exclude_storages:
                    continue
                if key not in storages:
                    storages[key] = storage.nbytes()
                    own[key] = 0
                view = (key, tensor.storage_offset(), tensor.dtype, tensor.shape,
                        tensor.stride())
                if view not in views:
                    views.add(view)
                    own[key] += tensor.numel() * tensor.element_size()
    return (sum(storages.values()),
            sum(min(n, storages[key]) for key, n in own.items()))
