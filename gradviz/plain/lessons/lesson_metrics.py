"""The metric names a lesson's promises use, checked against a slide's config without
torch: which names exist for its model, and which of them a check of it measures."""
from __future__ import annotations

from typing import Any

from ..config.config import Config, shown
from .lesson_format import did_you_mean

# one pass vs K passes: measured every step, whatever the probes
PASSES: tuple[str, ...] = ("trunk_walks", "backward_seconds")
# what optimizer.step() did, sampled with the update cosine (core.step_effect)
STEP: tuple[str, ...] = ("trunk_grad_norm", "trunk_step", "trunk_step_vs_sum")
CHANGES: tuple[str, ...] = ("loss_change", "loss_change_trunk", "loss_change_head")
# DistributedDataParallel: counted by a communication hook every step (ddp-ranks 2+)
DDP: tuple[str, ...] = ("all_reduces",)
# the graph's memory (plain.run_files.report's MEMORY_FIELDS): storages kept alive, and the saved
# tensors' own bytes, at the step's end and at its peak
MEMORY: tuple[str, ...] = ("saved_bytes", "saved_bytes_peak", "saved_tensor_bytes",
                           "saved_tensor_bytes_peak")
PLAIN: tuple[str, ...] = ("total", "global_grad_norm", *MEMORY, "graph_nodes",
                          "z_grad_norm", *PASSES, *STEP, *DDP)
FORMS: tuple[str, ...] = ("total", "loss.headK", "junction.headK", "cosine.I.J",
                          "global_grad_norm", "grad_norm.PARAM", *MEMORY, "graph_nodes",
                          "z_grad_norm", *PASSES,
                          "update_cosine.headK", "update_cosine.min", *STEP,
                          *(f"{c}.headK" for c in CHANGES), *DDP)
# every step has its losses, whatever the probes
ALWAYS_MEASURED: tuple[str, ...] = ("total", "loss", *PASSES)


def parameter_names(cfg: Config) -> list[str]:
    """The model's parameter names in model order, as named_parameters() gives them."""
    if cfg.model == "rnn":
        trunk = [f"trunk.{layer}" for layer in ("ih", "hh", "readout")]
    else:   # Linear layers at even places: a Tanh sits between two of them
        trunk = [f"trunk.{2 * i}" for i in range(cfg.trunk_depth)]
    heads = [f"heads.{k}.{layer}" for k in range(cfg.heads) for layer in (0, 2)]
    return [f"{m}.{p}" for m in trunk + heads for p in ("weight", "bias")]


def metric_names(cfg: Config) -> list[str]:
    """Every metric name this config's model has."""
    heads = cfg.head_names()
    return [*PLAIN, *(f"loss.{h}" for h in heads), *(f"junction.{h}" for h in heads),
            *(f"cosine.{i}.{j}" for i in range(cfg.heads) for j in range(cfg.heads)),
            *(f"grad_norm.{p}" for p in parameter_names(cfg)),
            *(f"update_cosine.{h}" for h in heads), "update_cosine.min",
            *(f"{c}.{h}" for c in CHANGES for h in heads)]


def metric_problem(name: Any, cfg: Config) -> str | None:
    """None if name is a metric of cfg's model, else what is wrong with it, in words."""
    if not isinstance(name, str) or not name:
        return f"a metric is a name such as \"total\" (got {shown(name)})"
    if name in metric_names(cfg):
        return None
    family = name.partition(".")[0]
    last = cfg.heads - 1
    if family in ("loss", "junction", "update_cosine", *CHANGES):
        return f"{shown(name)} names no head of this slide's (head0..head{last})"
    if family == "cosine":
        return f"{shown(name)} is not cosine.I.J with I and J heads 0..{last}"
    if family == "grad_norm":
        hint = did_you_mean(name, [f"grad_norm.{p}" for p in parameter_names(cfg)])
        return f"{shown(name)} names no parameter of this slide's model{hint}"
    return (f"unknown metric {shown(name)}{did_you_mean(name, metric_names(cfg))}; "
            f"metrics are {', '.join(FORMS)}")


def unmeasured(name: str, cfg: Config) -> str | None:
    """Why a check of a slide with cfg never measures this (valid) metric, or None."""
    if name in DDP:   # whatever the probes: the ranks count their all-reduces every step
        return None if cfg.ddp_ranks > 1 else \
            f"{name} is measured only with ddp-ranks 2 or more (one process all-reduces nothing)"
    if name.partition(".")[0] in ALWAYS_MEASURED:
        return None
    if cfg.probes == "none":
        return f"{name} is not measured with probes = \"none\" (only the losses are)"
    if name == "z_grad_norm" and not cfg.retain_grad:
        return "z_grad_norm is measured only with retain-grad = true"
    if name == "trunk_step_vs_sum" and cfg.optimizer != "sgd":
        return "trunk_step_vs_sum is measured only with optimizer = \"sgd\""
    return None
