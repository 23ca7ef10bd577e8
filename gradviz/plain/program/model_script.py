"""A model file's run as a plain PyTorch program: it loads the model file by its path,
builds the model, draws each step's batch as gradviz does and runs the loop the settings
amount to (plain.program.loop_code), printing per step what `gradviz run` reports."""
from __future__ import annotations

from pathlib import Path

from ..config.config import Config
from ..config.model_keys import SEED_STRIDE
from .loop_code import OwnModel, loop_code
from .script import _IMPORTS, _LOG, _MICRO, LOOP_MARK, _settings, docstring_literal

_DOC = '''The training loop gradviz runs for this model file and these settings, as a plain
PyTorch program. The model file is loaded from its path (MODEL_PATH below) and run.

Run: python {name} [--grad-norms]
Each optimizer step prints one line: the step, each head's loss (its micro-batches'
losses weighted by their sizes: the batch's loss), the total (sum of w_k * loss_k) and,
with --grad-norms, the gradient norm of every parameter (model.named_parameters() order)
after backward, before optimizer.step(). On the CPU the numbers match `gradviz run
--model` with the same settings bit for bit, at the thread count gradviz uses and this
program sets below (the cores it may run on, less one); at another count sums may round
differently in the last digits. Where the settings demonstrate a PyTorch error, the
program stops with it.

{settings}
'''

_LOAD = '''import importlib.util
from pathlib import Path


def load_model_file(path):
    """The model file, run from its path (never found through sys.path), as gradviz does."""
    sys.path.append(str(Path(path).parent))   # its helpers beside it import, as gradviz's
    spec = importlib.util.spec_from_file_location("model_file", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


MODEL_FILE = load_model_file(MODEL_PATH)


class TrunkAndHeads(nn.Module):
    """The file's trunk and heads as one module: parameters named trunk.… and heads.K.…"""

    def __init__(self, built):
        super().__init__()
        self.trunk = built["trunk"]
        self.heads = nn.ModuleList(built["heads"])


def batch(step):
    """Step `step`'s examples: the file's batch(), given a generator seeded for the step."""
    generator = torch.Generator().manual_seed(SEED * {stride} + step)
    x, targets = built["batch"](step, BATCH_SIZE, generator)
    return x.to(DEVICE), [t.to(DEVICE) for t in targets]
'''


def model_script_text(cfg: Config, model_path: Path, taps: tuple[int, ...] | None,
                      name: str = "gradviz_loop.py") -> str:
    """The whole program for cfg on the model file at model_path."""
    doc = docstring_literal(_DOC.format(name=name, settings=_settings(cfg)))
    constants: list[tuple[str, object]] = [
        ("STEPS", cfg.steps), ("SEED", cfg.seed), ("BATCH_SIZE", cfg.batch_size),
        ("HEADS", cfg.heads)]
    if taps is not None:
        constants.append(("TAPS", list(taps)))
    # repr: a path with quotes, backslashes or undecodable bytes is still one literal
    constants.append(("MODEL_PATH", str(model_path)))
    parts = [doc, _IMPORTS, "".join(f"{k} = {v!r}\n" for k, v in constants), "\n",
             _LOAD.replace("{stride}", str(SEED_STRIDE))]
    if cfg.accumulate > 1:
        parts.append(_MICRO)
    parts += [_LOG, "\n\n", LOOP_MARK, "\n", loop_code(cfg, OwnModel(taps))]
    return "".join(parts)
