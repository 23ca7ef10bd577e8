"""The plain PyTorch training loop that a config amounts to, as Python source text.

Shown beside the pictures so a room can connect them to code; it follows the engine's
choices (session.py) line for line, so a toggle changes exactly the lines it changes.
"""
from __future__ import annotations

from .config import Config


def _fmt(values) -> str:
    return ", ".join(repr(float(v)) for v in values)


def _header(cfg: Config) -> list[str]:
    opt = "SGD" if cfg.optimizer == "sgd" else "Adam"
    return [
        f"model = MultiHeadNet(heads={cfg.heads}, width={cfg.trunk_width}, "
        f"depth={cfg.trunk_depth}).to(device)",
        f"optimizer = torch.optim.{opt}(model.parameters(), lr={cfg.lr:g})",
        f"weights = [{_fmt(cfg.weights())}]",
        "running_loss = 0.0",
        "",
        f"for step, (x, targets) in enumerate(loader):   # {cfg.batch_size} examples",
    ]


def _forward(cfg: Config, indent: str) -> list[str]:
    lines = [f"{indent}z = model.trunk(x)                  # the junction, shared by all heads",
             f"{indent}losses = []",
             f"{indent}for k, head in enumerate(model.heads):"]
    inner = indent + "    "
    detached = sorted(cfg.detach)
    if detached and cfg.detach_mode == "detach":
        lines.append(f"{inner}zk = z.detach() if k in {tuple(detached)!r} else z"
                     "   # a copy cut off from the trunk")
        lines.append(f"{inner}losses.append(loss_fn[k](head(zk), targets[k]))")
    elif detached:
        lines.append(f"{inner}if k in {tuple(detached)!r}:")
        lines.append(f"{inner}    z.detach_()   # in place: every head from here on, "
                     "and heads that already saved z")
        lines.append(f"{inner}losses.append(loss_fn[k](head(z), targets[k]))")
    else:
        lines.append(f"{inner}losses.append(loss_fn[k](head(z), targets[k]))")
    return lines


def _scale_suffix(cfg: Config) -> str:
    return f" / {cfg.accumulate}" if cfg.accumulate > 1 and cfg.scale else ""


def _retain_arg(cfg: Config, last_expr: str) -> str:
    if cfg.retain_graph == "always":
        return "retain_graph=True"
    if cfg.retain_graph == "never":
        return ""
    return f"retain_graph={last_expr}"


def _backward(cfg: Config, indent: str) -> list[str]:
    scale = _scale_suffix(cfg)
    keep = "total" if cfg.keep_graphs else "total.item()"
    keep_note = ("   # keeps every step's graph alive" if cfg.keep_graphs
                 else "   # .item(): a float, the graph can be freed")
    if cfg.strategy == "sum":
        retain = "retain_graph=True" if cfg.retain_graph == "always" else ""
        return [f"{indent}total = sum(w * L for w, L in zip(weights, losses)){scale}",
                f"{indent}total.backward({retain})",
                f"{indent}running_loss += {keep}{keep_note}"]
    if cfg.strategy == "separate":
        retain = _retain_arg(cfg, "k < len(losses) - 1")
        return [f"{indent}for k, L in enumerate(losses):   # one backward per loss",
                f"{indent}    (weights[k] * L{scale}).backward({retain})",
                f"{indent}total = sum(w * L for w, L in zip(weights, losses)){scale}",
                f"{indent}running_loss += {keep}{keep_note}"]
    retain = _retain_arg(cfg, "k < len(losses) - 1")
    return [f"{indent}total = 0",
            f"{indent}for k, L in enumerate(losses):",
            f"{indent}    total += weights[k] * L{scale}",
            f"{indent}    total.backward({retain})   # runs through heads 0..k again",
            f"{indent}running_loss += {keep}{keep_note}"]


def loop_code(cfg: Config) -> str:
    """Python source of the training loop these settings amount to."""
    lines = _header(cfg)
    body = "    "
    if cfg.zero_grad:
        lines.append(f"{body}optimizer.zero_grad()")
    else:
        lines.append(f"{body}# optimizer.zero_grad()   <- off: .grad keeps summing across steps")
    if cfg.accumulate > 1:
        micro = cfg.batch_size // cfg.accumulate
        lines.append(f"{body}for x, targets in micro_batches(x, targets, {cfg.accumulate}):"
                     f"   # {cfg.accumulate} x {micro} examples")
        body += "    "
    lines += _forward(cfg, body)
    lines += _backward(cfg, body)
    lines.append("    optimizer.step()")
    return "\n".join(lines) + "\n"
