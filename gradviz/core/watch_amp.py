"""Mixed precision: a torch.amp.GradScaler's gradients are scaled (by its scale, e.g.
65,536) until scaler.unscale_(optimizer) or scaler.step(optimizer) unscales them, and a
step whose gradients hold an inf or a NaN is skipped by scaler.step. The watch records
unscaled norms whatever the user called in between, the scale, and skipped steps.

Read from the scaler's own state, never changed: its scale tensor (gathered with the
step's numbers, no extra transfer) and, per optimizer, whether unscale_ already ran this
step (then the gradients are unscaled and the scaler knows whether it found an inf).
"""
from __future__ import annotations

import sys
from types import FrameType

import torch

from ..plain.records.records import StepRecord
from .watch_record import unscaled

FRAMES_LOOKED_AT = 3    # the caller's frames whose variables are looked at for a scaler


class ScalerState:
    """What a step's gradients are, as the scaler left them: read at watch.step()."""

    def __init__(self, scaler: torch.amp.GradScaler):
        if not isinstance(scaler, torch.amp.GradScaler):
            raise TypeError("scaler must be a torch.amp.GradScaler, not "
                            f"{type(scaler).__name__}")
        self.scaler = scaler

    def scale_tensor(self) -> torch.Tensor | None:
        """The scale as a 0-dim tensor (None before the scaler's first scale(), or when
        it is disabled: the gradients are then not scaled)."""
        scale = self.scaler._scale if self.scaler.is_enabled() else None
        return None if scale is None else scale.detach().reshape(())

    def unscaled(self) -> bool:
        """Whether unscale_ already ran this step (for any optimizer: a watch is not
        told which optimizer holds which parameters)."""
        states = self.scaler._per_optimizer_states
        return any(s.get("stage") is _unscaled_stage() for s in list(states.values()))

    def as_unscaled(self, record: StepRecord, scale: float) -> StepRecord:
        """The record of the step's gradients as unscaled ones (norms over the scale
        unless unscale_ already ran), with the scale and whether scaler.step skips it:
        an inf or a NaN among the gradients (unscale_'s own finding where it ran)."""
        if self.unscaled():
            return unscaled(record, 1.0, self.found_inf()) if scale else record
        norm = record.global_grad_norm
        skipped = norm is None or not norm - norm == 0.0   # an inf or a NaN: skipped
        return unscaled(record, scale, skipped)

    def found_inf(self) -> bool:
        """unscale_'s own finding: an inf or NaN among the gradients (the step will be
        skipped). Only meaningful where unscaled() is true; one read from the device."""
        found = [t for s in list(self.scaler._per_optimizer_states.values())
                 for t in (s.get("found_inf_per_device") or {}).values()]
        return bool(found) and bool(torch.stack([t.reshape(()) for t in found]).sum().item())


def _unscaled_stage():
    return torch.amp.grad_scaler.OptState.UNSCALED


def scaler_in_callers(frame: FrameType | None) -> torch.amp.GradScaler | None:
    """A GradScaler that has scaled something, among the variables of the calling frames
    (the user's loop usually holds one as `scaler`); None where none is seen."""
    for _ in range(FRAMES_LOOKED_AT):
        if frame is None:
            return None
        for value in list(frame.f_locals.values()):
            if isinstance(value, torch.amp.GradScaler) and value.is_enabled() \
                    and value._scale is not None:
                return value
        frame = frame.f_back
    return None


LOOKS_FOR_SCALER = 3   # sampled steps a watch without scaler= looks for a GradScaler on


def scaled_unsaid(steps: int, every: int) -> str | None:
    """The line to say where a GradScaler in the user's loop, which the watch was not told
    of, scaled the gradients (their norms are the scaled ones); None where none is seen.
    Looked for on the first LOOKS_FOR_SCALER sampled steps only, where a scaler is.
    Called from Watch._stepped: the user's frames start three calls above this one."""
    if steps > LOOKS_FOR_SCALER * every:
        return None
    scaler = scaler_in_callers(caller_frame(3))
    if scaler is None:
        return None
    return (f"the gradients look scaled by a GradScaler (scale {scaler.get_scale():g}): "
            "the norms recorded are the scaled ones; pass gradviz.watch(..., "
            "scaler=scaler) to record them unscaled")


def caller_frame(depth: int) -> FrameType | None:
    try:
        return sys._getframe(depth + 1)
    except ValueError:
        return None
