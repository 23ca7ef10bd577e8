"""The plain PyTorch training loop that a config amounts to, as Python source text.

It is the last part of the runnable program core.script writes, so the panel shows the
lines that run; it follows the engine (session.py) operation for operation.
"""
from __future__ import annotations

from .config import Config
from .jd_names import AGGREGATING, AGGREGATOR_CLASS, PCGRAD_SEED_STEP

COMMENT_COLUMN = 44   # where a line's comment starts, when the code leaves room


def _line(indent: str, code: str, comment: str = "") -> str:
    """One line of code, its comment (the why) lined up where there is room."""
    text = indent + code
    if not comment:
        return text
    return f"{text:<{COMMENT_COLUMN}}# {comment}" if len(text) < COMMENT_COLUMN - 1 \
        else f"{text}   # {comment}"


def _fmt(values) -> str:
    return ", ".join(repr(float(v)) for v in values)


def _scaled(cfg: Config) -> bool:
    return cfg.accumulate > 1 and cfg.scale


def _header(cfg: Config) -> list[str]:
    opt = "SGD" if cfg.optimizer == "sgd" else "Adam"
    size = f"heads={cfg.heads}, width={cfg.trunk_width}"
    size += f", depth={cfg.trunk_depth}" if cfg.model == "mlp" else ""
    lines = [_line("", "torch.manual_seed(SEED)", "the seed sets the initial weights"),
             f"model = MultiHeadNet({size}).to(DEVICE)"]
    if cfg.misplace_head is not None:
        k = cfg.misplace_head
        lines.append(_line("", f"model.heads[{k}].to(other_device(DEVICE))",
                           f"head {k} left behind: its forward raises"))
    if cfg.strategy in AGGREGATING:
        lines += [_line("", "trunk_params = list(model.trunk.parameters())",
                        "shared: aggregated across heads"),
                  _line("", "head_params = [list(head.parameters()) for head in model.heads]")]
    lines += [f"optimizer = torch.optim.{opt}(model.parameters(), lr={float(cfg.lr)!r})",
              _line("", f"weights = [{_fmt(cfg.weights())}]", "total = sum of w_k * L_k")]
    if _scaled(cfg):
        n = cfg.accumulate
        lines.append(_line("", f"factors = [w * (1 / {n}) for w in weights]",
                           f"{n} micro-batches add up to one mean"))
    if cfg.model == "rnn":
        micro = cfg.batch_size // cfg.accumulate
        lines.append(_line("", f"h = torch.zeros({micro}, {cfg.trunk_width}, device=DEVICE)",
                           "the hidden state, carried across steps"))
    lines += ["running_loss = 0.0",
              "log = StepLog()",
              "",
              _line("", "for step in range(STEPS):"),
              _line("    ", "x, targets = batch(step)", f"{cfg.batch_size} examples")]
    return lines


def _trunk(cfg: Config, indent: str, x: str) -> list[str]:
    if cfg.model == "mlp":
        lines = [_line(indent, f"z = model.trunk({x})", "the junction, shared by all heads")]
    elif cfg.truncation() == "every-step":
        lines = [_line(indent, f"z, h = model.trunk({x}, h.detach())",
                       "detach: backward stops at this step's start")]
    else:
        lines = [_line(indent, f"z, h = model.trunk({x}, h)",
                       "no detach: the graph reaches into the step before")]
    if cfg.retain_grad:
        lines.append(_line(indent, "z.retain_grad()", "keep z.grad: a non-leaf drops it"))
    return lines


def _heads(cfg: Config, indent: str) -> list[str]:
    detached = tuple(sorted(cfg.detach))
    if not detached:
        return [_line(indent, "outputs = [head(z) for head in model.heads]",
                      "every head reads the same z")]
    inner = indent + "    "
    lines = [_line(indent, "outputs = []"),
             _line(indent, "for k, head in enumerate(model.heads):")]
    if cfg.detach_mode == "detach":
        lines += [_line(inner, f"zk = z.detach() if k in {detached!r} else z",
                        "shares z's storage, cut from the graph"),
                  _line(inner, "outputs.append(head(zk))")]
        if cfg.edit_detached is not None:
            lines += [_line(inner, f"if k == {cfg.edit_detached}:"),
                      _line(inner + "    ", "zk.mul_(1.0)",
                            "same values, but z's version goes up too")]
    else:
        lines += [_line(inner, f"if k in {detached!r}:"),
                  _line(inner + "    ", "# earlier heads keep their link into the trunk: "
                                          "one that saved z fails at backward"),
                  _line(inner + "    ", "z.detach_()",
                        "in place: this head and every later one read a cut z"),
                  _line(inner, "outputs.append(head(z))")]
    return lines


def _forward(cfg: Config, indent: str, x: str = "x", targets: str = "targets") -> list[str]:
    """The forward of the examples in x (a micro-batch's own names, inside the micro-batch
    loop, so that they do not overwrite the step's x and targets they are cut from)."""
    weights = "factors" if _scaled(cfg) else "weights"
    return _trunk(cfg, indent, x) + _heads(cfg, indent) + [
        _line(indent, f"losses = [loss_fn[k](out, {targets}[k]) for k, out in enumerate(outputs)]"),
        _line(indent, "log.add(losses)", "floats for the printout: no graph kept"),
        _line(indent, f"terms = [w * L for w, L in zip({weights}, losses)]")]


def _retain(cfg: Config, separate: bool) -> tuple[str, str]:
    """The retain_graph argument of a call inside a per-loss loop, and why."""
    if cfg.retain_graph == "always":
        return "retain_graph=True", "keeps the graph, even after the last call"
    if cfg.retain_graph == "never":
        return "", ("frees the trunk the next call needs" if separate
                    else "frees head 0, which the next call needs")
    return "retain_graph=k < len(terms) - 1", ("the next call needs the shared trunk"
                                              if separate else "the next call runs through it all")


def _backward(cfg: Config, indent: str) -> list[str]:
    inner = indent + "    "
    if cfg.strategy == "sum":
        always = cfg.retain_graph == "always"
        lines = [_line(indent, "total = sum(terms)"),
                 _line(indent, f"total.backward({'retain_graph=True' if always else ''})",
                       "keeps the graph after this call" if always
                       else "one call: the graph is freed")]
    elif cfg.strategy == "separate":
        arg, why = _retain(cfg, separate=True)
        lines = [_line(indent, "for k, term in enumerate(terms):", "one backward per loss"),
                 _line(inner, f"term.backward({arg})", why),
                 _line(indent, "total = sum(terms)")]
    elif cfg.strategy in AGGREGATING:
        lines = _aggregate(cfg, indent)
    else:
        arg, why = _retain(cfg, separate=False)
        lines = [_line(indent, "total = 0"),
                 _line(indent, "for k, term in enumerate(terms):",
                       "call k runs through heads 0..k again"),
                 _line(inner, "total += term"),
                 _line(inner, f"total.backward({arg})", why)]
    if cfg.keep_graphs:
        lines.append(_line(indent, "running_loss += total", "keeps every step's graph alive"))
    else:
        lines.append(_line(indent, "running_loss += total.item()",
                           ".item(): a float, the graph can be freed"))
    return lines


def _aggregate(cfg: Config, indent: str) -> list[str]:
    """torchjd's two calls: each head's gradient into its own layers and the trunk's
    Jacobian into .jac, then the aggregator's combination of its rows into .grad."""
    more = ", retain_graph=True" if cfg.retain_graph == "always" else ""
    aggregator = f"{AGGREGATOR_CLASS[cfg.strategy]}()"
    lines = [_line(indent, "# each head's own gradient into its layers; the trunk's "
                           "Jacobian into .jac,"),
             _line(indent, "# a row (a trunk walk) per head: parallel_chunk_size=1, no vmap"),
             _line(indent, "mtl_backward(terms, features=z, tasks_params=head_params,"),
             _line(indent + " " * len("mtl_backward("),
                   f"shared_params=trunk_params, parallel_chunk_size=1{more})")]
    combine = f"jac_to_grad(trunk_params, {aggregator})"
    why = {"upgrad": "rows projected so none is opposed, averaged",
           "pcgrad": "conflicting parts projected away, then added",
           "mgda": "the shortest vector in the rows' hull"}[cfg.strategy]
    if cfg.strategy == "pcgrad":
        lines += [_line(indent, "with torch.random.fork_rng(devices=[]):",
                        "PCGrad's random order, seeded per step"),
                  _line(indent + "    ", f"torch.manual_seed(SEED * {PCGRAD_SEED_STEP} + step)"),
                  _line(indent + "    ", combine, why)]
    else:
        lines.append(_line(indent, combine, why))
    return lines + [_line(indent, "total = sum(terms)", "for the log: not backpropagated")]


def loop_code(cfg: Config) -> str:
    """Python source of the training loop these settings amount to (the end of the
    program core.script.script_text writes, word for word)."""
    lines = _header(cfg)
    body = "    "
    if cfg.zero_grad:
        lines.append(_line(body, "optimizer.zero_grad()",
                           ".grad = None: this step's gradient only"))
    else:
        lines.append(_line(body, "# optimizer.zero_grad()",
                           "<- off: .grad keeps summing across steps"))
    n = cfg.accumulate
    if n == 1:
        lines += _forward(cfg, body) + _backward(cfg, body)
    else:
        micro_loop = _line(body, f"for x_mb, targets_mb in micro_batches(x, targets, {n}):",
                           f"{n} x {cfg.batch_size // n} examples")
        micro = {"x": "x_mb", "targets": "targets_mb"}
        inner = body + "    "
        if cfg.accumulate_mode == "sum-first":
            lines += [_line(body, "summed = None"), micro_loop] + _forward(cfg, inner, **micro) + [
                _line(inner, "summed = terms if summed is None else "
                             "[s + t for s, t in zip(summed, terms)]"),
                _line(body, "terms = summed", f"all {n} graphs alive, one backward")]
            lines += _backward(cfg, body)
        else:
            lines += [micro_loop] + _forward(cfg, inner, **micro) + _backward(cfg, inner)
    lines += [_line(body, "log.print(step, weights, model)",
                    "before the update: this step's gradients"),
              _line(body, "optimizer.step()")]
    # the running sum is what the .item() line (or its leaky form) is for: a log. On
    # stderr, as stdout is the per-step printout that `gradviz run` reproduces
    lines += ["", 'print("running_loss:", float(running_loss), file=sys.stderr)']
    return "\n".join(lines) + "\n"
