"""A sampled step's measurements, at each losses() call before the user's backward: each
loss's push at the features (a Gram block of the call's losses, of the weighted terms
where weights were given), the memory the graph holds, and the graph itself when its
structure changed. Each failure is one line; the step's other numbers are still kept."""
from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from torch import nn

from ..plain.graph.graph_data import GraphData
from .watch_features import FeatureHooks
from .watch_graph import saved_memory, step_graph
from .watch_probe import feature_list, junction_gram
from .watch_step import StepCalls, Weight

# PyTorch's words for a graph already freed by a backward
_FREED = ("backward through the graph a second time", "already been freed")


class StepSampler:
    def __init__(self, model: nn.Module, params: Sequence[tuple[str, torch.Tensor]],
                 dtype: torch.dtype, say: Callable[[str, str], None], features: object):
        """features: the watch's own features= (modules hooked from the start)."""
        self.params, self.dtype, self._say = list(params), dtype, say
        self._tensors = [p for _, p in params]
        self._hooks = FeatureHooks(model)
        self._modules: dict[str, nn.Module] = {}
        self._last_graph_key: tuple | None = None
        if features is not None:
            try:
                self._modules = self._hooks.watch(features)   # type: ignore[arg-type]
            except ValueError as exc:
                say("features-name", f"{exc}; no push is recorded")

    def remove(self) -> None:
        self._hooks.remove()

    def features(self, features: object) -> list[torch.Tensor]:
        """The features the push is measured at: the call's, or the hooked modules'."""
        if isinstance(features, (str, nn.Module)) or (
                isinstance(features, (list, tuple, dict)) and features and all(
                    isinstance(v, (str, nn.Module)) for v in (
                        features.values() if isinstance(features, dict) else features))):
            return feature_list(self._hooks.take(self._hooks.watch(features)))
        if features is None and self._modules:
            return feature_list(self._hooks.take(self._modules))
        return feature_list(features)   # type: ignore[arg-type]  # refused there

    def measure(self, calls: StepCalls, losses: dict, index: list[int],
                weights: list[Weight] | None, features: object) -> GraphData | None:
        """Into calls: the Gram block, the memory; returns the graph where its structure
        is new (the step's first call only)."""
        tensors = list(losses.values())
        try:
            given = self.features(features)
            if (features is not None or self._modules) and not given:
                self._say("features-grad", "the features given to watch.losses() do not "
                          "require grad: no loss can push on them, so no push is recorded")
            if given:
                self._push(calls, tensors, index, weights, given)
            held, own, calls.nodes, fingerprint = saved_memory(tensors, self._tensors,
                                                               given)
        except RuntimeError as exc:
            if any(words in str(exc) for words in _FREED):
                self._say("after-backward", "watch.losses() came after backward (the "
                          "step's graph was already freed): call watch.losses before "
                          "backward; this step's push and memory are not recorded")
            else:
                self._say("probe", f"measuring the push failed "
                          f"({str(exc).splitlines()[0][:200]}); not recorded on that step")
            return None
        calls.saved.append(held)
        calls.own.append(own)
        if calls.calls == 1 and fingerprint != self._last_graph_key:
            self._last_graph_key = fingerprint
            return step_graph(losses, self.params, given)
        return None

    def _push(self, calls: StepCalls, tensors: list[torch.Tensor], index: list[int],
              weights: list[Weight] | None, given: list[torch.Tensor]) -> None:
        gram = junction_gram(tensors, given, self.dtype)
        if gram is None:
            self._say("features-reach", "no loss reaches the features given to "
                      "watch.losses(): pass the tensor the heads read (the trunk's "
                      "output); no push is recorded")
            return
        if weights is not None:   # the weighted terms: what is backpropagated
            w = torch.stack([torch.as_tensor(x, dtype=gram.dtype).to(gram.device)
                             for x in weights])
            gram = gram * w[:, None] * w[None, :]
        calls.grams.append((index, gram))
