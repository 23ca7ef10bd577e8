"""What a lesson's slide needs that is slow to start, started while the slide is
prepared and said on the heartbeat (the window's stage shows it), never left to the
slide's first step, which would wait for it silently."""
from __future__ import annotations

from collections.abc import Callable

from ..core.devices import other_device, warm_meta
from ..core.session import Session
from ..plain.records.engine_stages import IMPORTING_META, STARTING_RANKS
from .next_slide import NextSlide


def start_slide(session: Session, ahead: NextSlide, say_stage: Callable[[str], None]) -> None:
    """The meta device's first kernel and the DDP ranks of the slide's fresh session
    (ahead: what was started for it while the slide before played)."""
    # a head on the meta device (the device-mismatch slide, with only a CPU): its first
    # kernel's imports now, not inside the slide's first forward pass
    if session.config.misplace_head is not None \
            and other_device(session.device).type == "meta":
        say_stage(IMPORTING_META)
        ahead.meta_warmed()
        warm_meta()
    if session.config.ddp_ranks > 1:   # ddp-ranks N (the DDP lesson)
        say_stage(STARTING_RANKS)
        session.start_ranks()
