"""The plain PyTorch training loop that a config amounts to, as Python source text.

It is the last part of the runnable program plain.program.script writes, so the panel shows the
lines that run; it follows the engine (session.py) operation for operation.
"""
from __future__ import annotations

import textwrap
from dataclasses import dataclass

from ..config.config import EDIT_DATA_FACTOR, Config
from ..config.jd_names import AGGREGATING, AGGREGATOR_CLASS, PCGRAD_SEED_STEP

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


def _scaled_by_size(cfg: Config) -> bool:
    """Each micro-batch's factor is its own n_i / B, set inside the micro-batch loop."""
    return _scaled(cfg) and cfg.scale_by == "size"


def _clip_line(cfg: Config, indent: str, at: str) -> list[str]:
    """clip_grad_norm_ where the config clips (accumulate 1: both places are one)."""
    if cfg.clip is None or (cfg.clip_at != at and cfg.accumulate > 1):
        return []
    why = ("clips the running sum" if at == "micro-batch" and cfg.accumulate > 1
           else "once, the whole gradient")
    return [_line(indent, f"torch.nn.utils.clip_grad_norm_(model.parameters(), "
                          f"{float(cfg.clip)!r})", why)]


def _micro_loop(cfg: Config, indent: str) -> str:
    """The line that opens the micro-batch loop: equal parts, or the sizes given."""
    n = cfg.accumulate
    if cfg.micro_batch_sizes:
        sizes = list(cfg.micro_batch_sizes)
        return _line(indent, f"for x_mb, targets_mb in micro_batches(x, targets, {sizes}):",
                     f"{n} micro-batches, unequal")
    return _line(indent, f"for x_mb, targets_mb in micro_batches(x, targets, {n}):",
                 f"{n} x {cfg.batch_size // n} examples")


@dataclass(frozen=True)
class OwnModel:
    """A model file's loop (plain.program.model_script): the file builds the model, its losses
    and batches; taps, when its trunk returns one output per depth."""
    taps: tuple[int, ...] | None = None


def _model_lines(cfg: Config, own: OwnModel | None) -> list[str]:
    if own is not None:
        return [_line("", "built = MODEL_FILE.build(SEED)", "trunk, heads, losses, batch"),
                _line("", "model = TrunkAndHeads(built).to(DEVICE)",
                      "parameters: trunk.…, heads.K.…"),
                'loss_fn = built["losses"]']
    size = f"heads={cfg.heads}, width={cfg.trunk_width}"
    size += f", depth={cfg.trunk_depth}" if cfg.model == "mlp" else ""
    size += ", batch_norm=True" if cfg.batch_norm else ""
    return [f"model = MultiHeadNet({size}).to(DEVICE)"]


def _ddp_note(cfg: Config) -> list[str]:
    """ddp-ranks: the loop below is the step in one process, for its losses; its gradient
    is then the DDP ranks' (core.ddp_ranks), which ddp_gradient() puts in .grad."""
    if cfg.ddp_ranks == 1:
        return []
    no_sync = "; model.no_sync() on all but the last micro-batch" if cfg.ddp_no_sync else ""
    note = (f"gradviz takes each step's gradient from {cfg.ddp_ranks} DistributedDataParallel "
            f"ranks (gloo, 127.0.0.1{no_sync}): this loop runs the step in one process for "
            "its losses, then ddp_gradient() puts the ranks' gradient in .grad, as gradviz "
            "does. The same accumulation under DDP, as a script of its own (a two-head "
            "model): resources/examples/ddp_accumulation.py")
    return ["# " + line for line in textwrap.wrap(note, 84)]


def _header(cfg: Config, own: OwnModel | None = None) -> list[str]:
    opt = "SGD" if cfg.optimizer == "sgd" else "Adam"
    lines = [*_ddp_note(cfg),
             _line("", "torch.manual_seed(SEED)", "the seed sets the initial weights"),
             *_model_lines(cfg, own)]
    if cfg.misplace_head is not None:
        k = cfg.misplace_head
        lines.append(_line("", f"model.heads[{k}].to(other_device(DEVICE))",
                           f"head {k} left behind: its forward raises"))
    if cfg.strategy == "autograd-grad":
        lines.append(_line("", "params = list(model.parameters())",
                           "what autograd.grad returns for"))
    if cfg.strategy in AGGREGATING:
        lines += [_line("", "trunk_params = list(model.trunk.parameters())",
                        "shared: aggregated across heads"),
                  _line("", "head_params = [list(head.parameters()) for head in model.heads]")]
    lines += [f"optimizer = torch.optim.{opt}(model.parameters(), lr={float(cfg.lr)!r})",
              _line("", f"weights = [{_fmt(cfg.weights())}]", "total = sum of w_k * L_k")]
    if _scaled(cfg) and not _scaled_by_size(cfg):
        n = cfg.accumulate
        lines.append(_line("", f"factors = [w * (1 / {n}) for w in weights]",
                           f"{n} micro-batches add up to one mean"))
    if cfg.model == "rnn":
        micro = cfg.batch_size // cfg.accumulate
        lines.append(_line("", f"h = torch.zeros({micro}, {cfg.trunk_width}, device=DEVICE)",
                           "the hidden state, carried across steps"))
    lines += ["running_loss = 0.0",
              f"log = StepLog({list(cfg.micro_batch_sizes)})" if cfg.micro_batch_sizes
              else "log = StepLog()",
              "",
              _line("", "for step in range(STEPS):"),
              _line("    ", "x, targets = batch(step)", f"{cfg.batch_size} examples")]
    return lines


def _trunk(cfg: Config, indent: str, x: str, taps: bool = False) -> list[str]:
    if taps:
        lines = [_line(indent, f"zs = model.trunk({x})", "one output per depth")]
        if cfg.retain_grad:
            lines.append(_line(indent, "for z in zs:"))
            lines.append(_line(indent + "    ", "z.retain_grad()",
                               "keep z.grad: a non-leaf drops it"))
        return lines
    if cfg.model == "mlp" and cfg.batch_norm:
        lines = [_line(indent, f"z = model.trunk({x})",
                       "BatchNorm1d: by these examples' mean, var")]
    elif cfg.model == "mlp":
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


def _heads(cfg: Config, indent: str, taps: bool = False) -> list[str]:
    detached = tuple(sorted(cfg.detach))
    if not detached and cfg.edit_data is None and not taps:
        return [_line(indent, "outputs = [head(z) for head in model.heads]",
                      "every head reads the same z")]
    inner = indent + "    "
    lines = [_line(indent, "outputs = []"),
             _line(indent, "for k, head in enumerate(model.heads):")]
    if taps:
        lines.append(_line(inner, "z = zs[TAPS[k]]", "the depth head k reads"))
    if not detached:
        lines.append(_line(inner, "outputs.append(head(z))"))
    elif cfg.detach_mode in GRAD_MODES:
        lines += _grad_mode_heads(cfg, inner, detached)
    elif cfg.detach_mode == "detach":
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
    if cfg.edit_data is not None:
        lines += [_line(inner, f"if k == {cfg.edit_data}:"),
                  _line(inner + "    ", f"z.data.mul_({EDIT_DATA_FACTOR!r})",
                        "no version bump: no error, wrong grads")]
    return lines


# ---- head K under torch.no_grad() / torch.inference_mode() -----------------------------
GRAD_MODES = {"no_grad": "torch.no_grad()", "inference_mode": "torch.inference_mode()"}


def _grad_mode_heads(cfg: Config, inner: str, detached: tuple[int, ...]) -> list[str]:
    deeper = inner + "    "
    why = ("nothing recorded: its loss has no grad_fn" if cfg.detach_mode == "no_grad"
           else "no grad_fn, and inference tensors out")
    return [_line(inner, f"if k in {detached!r}:"),
            _line(deeper, f"with {GRAD_MODES[cfg.detach_mode]}:", why),
            _line(deeper + "    ", "outputs.append(head(z))"),
            _line(inner, "else:"),
            _line(deeper, "outputs.append(head(z))")]


def _forward(cfg: Config, indent: str, x: str = "x", targets: str = "targets",
             taps: bool = False) -> list[str]:
    """The forward of the examples in x (a micro-batch's own names, inside the micro-batch
    loop, so that they do not overwrite the step's x and targets they are cut from)."""
    weights = "factors" if _scaled(cfg) else "weights"
    sized = [_line(indent, f"factors = [w * (len({x}) / BATCH_SIZE) for w in weights]",
                   "n_i / B: exact for mean losses")] if _scaled_by_size(cfg) else []
    return sized + _trunk(cfg, indent, x, taps) + _heads(cfg, indent, taps) + [
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


# ---- one pass for K losses (backward-list), or K passes without .grad (autograd-grad) ----
def _backward_list(cfg: Config, indent: str) -> list[str]:
    arg = ", retain_graph=True" if cfg.retain_graph == "always" else ""
    return [_line(indent, f"torch.autograd.backward(terms{arg})",
                  "one pass: the trunk is walked once"),
            _line(indent, "total = sum(terms)")]


def _autograd_grad(cfg: Config, indent: str) -> list[str]:
    inner, deeper = indent + "    ", indent + "        "
    arg, why = _retain(cfg, separate=True)
    lines = [_line(indent, "sums = [None] * len(params)"),
             _line(indent, "for k, term in enumerate(terms):",
                   "one pass per loss, .grad untouched")]
    lines += [_line(inner, f"keep = {arg.partition('=')[2] or 'False'}", why),
              _line(inner, "grads = torch.autograd.grad(term, params, retain_graph=keep, "
                           "allow_unused=True)")]
    lines += [_line(inner, "sums = [g if s is None else s if g is None else s + g "
                           "for s, g in zip(sums, grads)]"),
              _line(indent, "for p, s in zip(params, sums):", "the loop fills .grad itself"),
              _line(inner, "if s is not None:"),
              _line(deeper, "p.grad = s if p.grad is None else p.grad + s"),
              _line(indent, "total = sum(terms)")]
    return lines


ONE_PASS_OR_GRAD = {"backward-list": _backward_list, "autograd-grad": _autograd_grad}


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
    elif cfg.strategy in ONE_PASS_OR_GRAD:
        lines = ONE_PASS_OR_GRAD[cfg.strategy](cfg, indent)
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


def loop_code(cfg: Config, own: OwnModel | None = None) -> str:
    """Python source of the training loop these settings amount to (the end of the
    program plain.program.script.script_text writes, word for word); own: of a model file's
    model (plain.program.model_script)."""
    taps = own is not None and own.taps is not None
    lines = _header(cfg, own)
    body = "    "
    if cfg.zero_grad:
        lines.append(_line(body, "optimizer.zero_grad()",
                           ".grad = None: this step's gradient only"))
    else:
        lines.append(_line(body, "# optimizer.zero_grad()",
                           "<- off: .grad keeps summing across steps"))
    n = cfg.accumulate
    if n == 1:
        lines += _forward(cfg, body, taps=taps) + _backward(cfg, body)
        lines += _clip_line(cfg, body, "step")
    else:
        micro_loop = _micro_loop(cfg, body)
        micro = {"x": "x_mb", "targets": "targets_mb"}
        inner = body + "    "
        if cfg.accumulate_mode == "sum-first":
            lines += [_line(body, "summed = None"), micro_loop]
            lines += _forward(cfg, inner, **micro, taps=taps) + [
                _line(inner, "summed = terms if summed is None else "
                             "[s + t for s, t in zip(summed, terms)]"),
                _line(body, "terms = summed", f"all {n} graphs alive, one backward")]
            lines += _backward(cfg, body) + _clip_line(cfg, body, "micro-batch")
        else:
            lines += [micro_loop] + _forward(cfg, inner, **micro, taps=taps)
            lines += _backward(cfg, inner)
            lines += _clip_line(cfg, inner, "micro-batch")
        lines += _clip_line(cfg, body, "step")
    if cfg.ddp_ranks > 1:   # the ranks' gradient replaces the loop's, as gradviz's does
        lines.append(_line(body, "ddp_gradient(step, model)",
                           f".grad: the {cfg.ddp_ranks} ranks' all-reduce"))
    lines += [_line(body, "log.print(step, weights, model)",
                    "before the update: this step's gradients"),
              _line(body, "optimizer.step()")]
    # the running sum is what the .item() line (or its leaky form) is for: a log. On
    # stderr, as stdout is the per-step printout that `gradviz run` reproduces
    lines += ["", 'print("running_loss:", float(running_loss), file=sys.stderr)']
    return "\n".join(lines) + "\n"
