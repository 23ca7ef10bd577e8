"""A config as a self-contained PyTorch program: the model, the data, the batch order and
the loop the Code panel shows, which prints per step what `gradviz run` reports."""
from __future__ import annotations

import dataclasses
import textwrap

from ..config.config import (
    DATASET_SIZE,
    HEAD_HIDDEN,
    INPUT_DIM,
    LATENT_DIM,
    NUM_CLASSES,
    SEQ_LEN,
    STEP_FEATURES,
    Config,
)
from ..config.jd_names import AGGREGATING, AGGREGATOR_CLASS
from .ddp_script import ddp_imports, ddp_part
from .loop_code import loop_code

LOOP_MARK = "# ---- the training loop (gradviz's Code panel shows from here on) ----"

_DOC = '''The training loop gradviz shows for these settings, as a plain PyTorch program.

Run: python {name} [--grad-norms]
Each optimizer step prints one line: the step, each head's loss (its micro-batches'
losses weighted by their sizes: the batch's loss), the total (sum of w_k * loss_k) and,
with --grad-norms, the gradient norm of every parameter (model.named_parameters() order)
after backward, before optimizer.step(): None for a parameter whose .grad is None (no
gradient reached it). Numbers are written in full precision; on the CPU they match
`gradviz run` with the same settings bit for bit, at the thread count gradviz uses and
this program sets below (the cores it may run on, less one). At another count sums
(BatchNorm's, for one) may round differently in the last digits. Where the settings
demonstrate a PyTorch error, the program stops with that error.
{ranks}
{settings}
'''

_IMPORTS = '''import functools
import math
import os
import sys

import torch
from torch import nn
from torch.nn import functional as F

DEVICE = torch.device("cpu")   # or "cuda", "mps": same program, last digits differ
# gradviz's thread count: the cores this process may run on, less one (left to the window
# or the shell). A float sum split over another number of threads rounds differently.
CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
torch.set_num_threads(max(1, (CORES or 1) - 1))
'''

_MLP = '''

def mlp_trunk(width, depth, batch_norm=False):
    """Linear layers with tanh between them; the last is Linear, so z is not saved by it.
    batch_norm: a BatchNorm1d after the first Linear (it normalizes by its batch's mean
    and variance, so a micro-batch's gradient is not a part of the full batch's)."""
    layers, size = [], INPUT_DIM
    for i in range(depth):
        layers.append(nn.Linear(size, width))
        if batch_norm and i == 0:
            layers.append(nn.BatchNorm1d(width))
        if i < depth - 1:
            layers.append(nn.Tanh())
        size = width
    return nn.Sequential(*layers)


class MultiHeadNet(nn.Module):
    """A shared trunk whose output z (the junction) feeds one small head per task."""

    def __init__(self, heads, width, depth, batch_norm=False):
        super().__init__()
        self.trunk = mlp_trunk(width, depth, batch_norm)
        self.heads = nn.ModuleList(make_head(width, k) for k in range(heads))

    def forward(self, x):
        """Every head's output. The loop below runs the trunk and the heads itself, to
        show z and to detach it; model(x) is the same forward in one call."""
        z = self.trunk(x)
        return [head(z) for head in self.heads]
'''

_RNN = '''

class RecurrentTrunk(nn.Module):
    """h_t = tanh(ih(x_t) + hh(h_{t-1})) over the SEQ_LEN steps of x, then z = readout(h_T)."""

    def __init__(self, width):
        super().__init__()
        self.ih = nn.Linear(STEP_FEATURES, width)
        self.hh = nn.Linear(width, width)
        self.readout = nn.Linear(width, width)

    def forward(self, x, h):
        steps = x.view(x.shape[0], SEQ_LEN, STEP_FEATURES)
        for t in range(SEQ_LEN):
            h = torch.tanh(self.ih(steps[:, t]) + self.hh(h))
        return self.readout(h), h


class MultiHeadNet(nn.Module):
    """A shared recurrent trunk whose output z (the junction) feeds one head per task."""

    def __init__(self, heads, width):
        super().__init__()
        self.trunk = RecurrentTrunk(width)
        self.heads = nn.ModuleList(make_head(width, k) for k in range(heads))

    def forward(self, x, h=None):
        """Every head's output, and the new hidden state; h None starts from zeros. The
        loop below runs the trunk and the heads itself, to show z and to carry h."""
        if h is None:
            h = x.new_zeros(x.shape[0], self.trunk.readout.in_features)
        z, h = self.trunk(x, h)
        return [head(z) for head in self.heads], h
'''

_HEAD = '''

def make_head(width, k):
    """Even heads are regressions (1 output), odd heads 3-way classifications."""
    out = 1 if k % 2 == 0 else NUM_CLASSES
    return nn.Sequential(nn.Linear(width, HEAD_HIDDEN), nn.Tanh(), nn.Linear(HEAD_HIDDEN, out))


loss_fn = [F.mse_loss if k % 2 == 0 else F.cross_entropy for k in range(HEADS)]
'''

_OTHER_DEVICE = '''

def other_device(device):
    """A device other than `device`: the CPU beside a GPU, a GPU beside the CPU, else
    `meta` (shapes but no data). Meta only simulates the error, through the bias: a
    Linear with a meta bias raises "... is not on the expected device" on a CPU input,
    but torch.mm(cpu, meta) returns a CPU tensor of garbage without any error."""
    if device.type != "cpu":
        return torch.device("cpu")
    if torch.cuda.is_available():
        return torch.device("cuda:0")
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("meta")
'''

_DATA = '''

def make_data(heads, seed):
    """Seeded synthetic tasks read off shared latent features, one target per head; head
    k's direction turns away from head 0's as k grows, up to 144 degrees."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(DATASET_SIZE, INPUT_DIM, generator=g)
    mix = torch.randn(INPUT_DIM, LATENT_DIM, generator=g) / math.sqrt(INPUT_DIM)
    latent = torch.tanh(2.0 * x @ mix)
    base = torch.randn(LATENT_DIM, generator=g)
    base = base / base.norm()
    targets = []
    for k in range(heads):
        angle = math.pi * k / max(1, heads - 1) * 0.8
        other = torch.randn(LATENT_DIM, generator=g)
        other = other - (other @ base) * base
        other = other / other.norm()
        direction = math.cos(angle) * base + math.sin(angle) * other
        signal = latent @ direction
        if k % 2 == 0:
            noise = 0.05 * torch.randn(DATASET_SIZE, generator=g)
            targets.append((signal + noise).unsqueeze(1))
        else:
            spread = torch.randn(LATENT_DIM, NUM_CLASSES - 1, generator=g) * 0.5
            logits = torch.cat([signal.unsqueeze(1), latent @ spread], dim=1)
            targets.append(logits.argmax(dim=1))
    return x.to(DEVICE), [t.to(DEVICE) for t in targets]


X, TARGETS = make_data(HEADS, SEED)


@functools.lru_cache(maxsize=1)
def shuffle(epoch):
    """One shuffle of the dataset per epoch, seeded by the seed and the epoch."""
    g = torch.Generator().manual_seed(SEED * 7919 + epoch)
    return torch.randperm(DATASET_SIZE, generator=g).to(DEVICE)


def batch(step):
    """Optimizer step `step`'s examples: consecutive slices of the epoch's shuffle."""
    epoch, slot = divmod(step, max(1, DATASET_SIZE // BATCH_SIZE))
    idx = shuffle(epoch)[slot * BATCH_SIZE:(slot + 1) * BATCH_SIZE]
    return X[idx], [t[idx] for t in TARGETS]
'''

_MICRO = '''

def micro_batches(x, targets, n):
    """The step's examples in n equal consecutive parts."""
    return zip(x.chunk(n), zip(*(t.chunk(n) for t in targets)))
'''

_MICRO_SIZES = '''

def micro_batches(x, targets, sizes):
    """The step's examples in consecutive parts of these sizes (they add up to the batch)."""
    return zip(x.split(sizes), zip(*(t.split(sizes) for t in targets)))
'''

_LOG = '''

class StepLog:
    """The printout: one line per optimizer step, every number in full precision."""

    def __init__(self, sizes=None):
        self.losses = []   # per micro-batch: each head's loss, as floats
        self.sizes = sizes   # micro-batch sizes, where given: each mean weighs by its size

    def add(self, losses):
        self.losses.append([L.item() for L in losses])

    def print(self, step, weights, model):
        # the mean over micro-batches in float32, as gradviz takes it (weighted by size
        # where sizes are given: the batch's mean however unequal the parts)
        if self.sizes:
            shares = torch.tensor([n / BATCH_SIZE for n in self.sizes])
            means = (torch.tensor(self.losses) * shares[:, None]).sum(0).tolist()
        elif len(self.losses) > 1:
            means = torch.tensor(self.losses).mean(0).tolist()
        else:
            means = self.losses[0]
        self.losses = []
        if not all(math.isfinite(v) for v in means):
            sys.exit(f"step {step}: a loss is NaN or infinite (training diverged)")
        numbers = means + [sum(w * v for w, v in zip(weights, means))]
        if "--grad-norms" in sys.argv[1:]:
            numbers += [None if p.grad is None else p.grad.norm().item()
                        for _, p in model.named_parameters()]
        print(step, *map(repr, numbers), flush=True)
'''


def _settings(cfg: Config) -> str:
    """The keys that differ from the defaults, as `key=value` words."""
    default = Config()
    changed = [f"{f.name}={getattr(cfg, f.name)!r}" for f in dataclasses.fields(cfg)
               if getattr(cfg, f.name) != getattr(default, f.name)
               and f.name not in ("device", "probes", "sample_every")]
    lines = ["Settings (others at their defaults):"]
    for word in changed or ["none changed"]:
        if len(lines[-1]) + len(word) > 86:   # wrap between settings, never inside one
            lines.append("")
        lines[-1] += f" {word}," if lines[-1] else f"{word},"
    return "\n".join(lines).rstrip(",")


def _ranks_note(cfg: Config) -> str:
    """ddp-ranks N: where the gradient comes from, as in gradviz (a paragraph, or none)."""
    if cfg.ddp_ranks == 1:
        return ""
    note = (f"The gradient is DistributedDataParallel's over {cfg.ddp_ranks} processes, as "
            "gradviz takes it, so the numbers above hold for it too: this process is rank 0, "
            "the others run this file with --ddp-rank (gloo over 127.0.0.1, one thread each "
            "while they train their shares of the batch).")
    return "\n" + textwrap.fill(note, 88) + "\n"


def _constants(cfg: Config) -> str:
    rows = [("STEPS", cfg.steps), ("SEED", cfg.seed), ("BATCH_SIZE", cfg.batch_size),
            ("HEADS", cfg.heads), ("INPUT_DIM", INPUT_DIM), ("HEAD_HIDDEN", HEAD_HIDDEN),
            ("DATASET_SIZE", DATASET_SIZE), ("LATENT_DIM", LATENT_DIM),
            ("NUM_CLASSES", NUM_CLASSES)]
    if cfg.model == "rnn":
        rows += [("SEQ_LEN", SEQ_LEN), ("STEP_FEATURES", STEP_FEATURES)]
    return "".join(f"{name} = {value!r}\n" for name, value in rows)


def docstring_literal(text: str) -> str:
    """text as a triple-quoted Python literal that evaluates to text (a lone surrogate
    as its escape, `\\udcff`), whatever it holds: a file name is outside input, and one
    with \"\"\" or \\N{x} in it must neither end the docstring early (and run what
    follows) nor stop it compiling."""
    out = []
    for ch in text:
        if ch in '\\"':
            out.append("\\" + ch)
        elif "\ud800" <= ch <= "\udfff":
            # a lone surrogate (a non-UTF-8 name on the command line) cannot be in a
            # docstring: Python 3.13 encodes docstrings at compile time. Shown as its
            # escape, as text, the one place the name is not kept exactly
            out.append("\\\\" + repr(ch)[2:-1])
        elif ch == "\n" or ch.isprintable():
            out.append(ch)
        else:   # \r, NUL, U+2028...: its escape, never the raw char
            out.append(repr(ch)[1:-1])
    return '"""' + "".join(out) + '"""\n'


def script_text(cfg: Config, name: str = "gradviz_loop.py") -> str:
    """The whole program for cfg; its last part is loop_code(cfg), unchanged."""
    doc = docstring_literal(_DOC.format(name=name, settings=_settings(cfg),
                                        ranks=_ranks_note(cfg)))
    imports = ddp_imports(_IMPORTS) if cfg.ddp_ranks > 1 else _IMPORTS
    if cfg.strategy in AGGREGATING:   # only here: the other strategies need no torchjd
        imports = imports.replace("from torch.nn import functional as F\n", (
            "from torch.nn import functional as F\n"
            f"from torchjd.aggregation import {AGGREGATOR_CLASS[cfg.strategy]}\n"
            "from torchjd.autojac import jac_to_grad, mtl_backward\n"))
    parts = [doc, imports, _constants(cfg),
             _HEAD, _RNN if cfg.model == "rnn" else _MLP]
    if cfg.misplace_head is not None:
        parts.append(_OTHER_DEVICE)
    parts.append(_DATA)
    if cfg.accumulate > 1:
        parts.append(_MICRO_SIZES if cfg.micro_batch_sizes else _MICRO)
    parts += [_LOG, ddp_part(cfg), "\n\n", LOOP_MARK, "\n", loop_code(cfg)]
    return "".join(parts)
