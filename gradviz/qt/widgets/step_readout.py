"""The words under the cosine matrix about what the step did: how far the trunk moved
(and that against the sum's step), and, for each head the update works against, its
loss change after the step split into its trunk part and its own layers' part."""
from __future__ import annotations

import math

import numpy as np

from gradviz.plain.records.history import History

TIP = ("trunk step: the length of the change optimizer.step() made to the trunk's "
       "weights, and the trunk gradient's length; × the sum's: that over the step plain "
       "SGD makes from the sum of the heads' weighted gradients.\n"
       "headK (a head the update works against): its loss on the same batch after the "
       "step minus before, and to first order its two parts: through the trunk "
       "(its trunk gradient · the trunk's change) and through its own layers")
# what the layout reserves room for: the longest line of each kind, one head's
SAMPLE = ("trunk step 0.1176 (gradient 2.352) · 0.337× the sum's\n"
          "head0: loss −0.0021 · trunk +0.00032 · own layers −0.0025")


def _signed(value: float) -> str:
    return f"{value:+.2g}".replace("-", "−")


def step_line(numbers: dict[str, float | None]) -> str:
    """'trunk step 0.118 (gradient 2.35) · 1.00× the sum's', '' before one is measured."""
    step, grad = numbers.get("trunk_step"), numbers.get("trunk_grad_norm")
    ratio = numbers.get("trunk_step_vs_sum")
    if step is None:
        return ""
    text = f"trunk step {step:.3g}"
    text += " (no trunk gradient: None)" if grad is None else f" (gradient {grad:.3g})"
    if ratio is not None and math.isfinite(ratio):
        text += f" · {ratio:.2f}× the sum's"
    return text


def head_lines(names: list[str], cosines: np.ndarray | None,
               change: dict[str, np.ndarray]) -> list[str]:
    """A line for each head whose cosine with the update is below 0."""
    if cosines is None or not change:
        return []
    real, trunk, own = (change[k] for k in ("loss_change", "loss_change_trunk",
                                            "loss_change_head"))
    return [f"{n}: loss {_signed(real[k])} · trunk {_signed(trunk[k])} · "
            f"own layers {_signed(own[k])}"
            for k, n in enumerate(names)
            if k < len(real) and cosines[k] < 0 and np.isfinite(real[k])]


def readout(names: list[str], history: History) -> str:
    """The step line and the heads' lines, one per line ('' before any is measured)."""
    lines = [step_line(history.last_step)]
    lines += head_lines(names, history.last_update_cosine, history.last_loss_change)
    return "\n".join(line for line in lines if line)
