"""Which torch devices exist here, and turning a device name into a torch.device."""
from __future__ import annotations

import torch

from ..plain.config.config import DEVICE_NAME, DEVICE_WORDS, ConfigError, shown


def _mps_available() -> bool:
    mps = getattr(torch.backends, "mps", None)
    return bool(mps and mps.is_available())


def available_devices() -> list[tuple[str, str]]:
    """(name, description) of every device this machine can train on, CPU first."""
    found = [("cpu", "CPU")]
    if torch.cuda.is_available():
        for i in range(torch.cuda.device_count()):
            found.append((f"cuda:{i}", torch.cuda.get_device_name(i)))
    if _mps_available():
        found.append(("mps", "Apple GPU (MPS)"))
    return found


def resolve_device(name: str) -> torch.device:
    """The torch.device for a name; ConfigError if the name is malformed or absent here."""
    if not isinstance(name, str) or not DEVICE_NAME.fullmatch(name):
        raise ConfigError(f"{DEVICE_WORDS} (got {shown(name)})")
    names = [n for n, _ in available_devices()]
    if name == "auto":
        return torch.device(names[1] if len(names) > 1 else "cpu")
    wanted = "cuda:0" if name == "cuda" else name
    if wanted not in names:
        raise ConfigError(f"device {name} is not available here (available: {', '.join(names)})")
    return torch.device(wanted)


def other_device(device: torch.device) -> torch.device:
    """A device other than `device` for the device-mismatch lesson: the CPU beside a GPU,
    a GPU beside the CPU where there is one, else PyTorch's `meta` device (shapes but no
    data). Meta only simulates the error: the heads' Linear layers have a bias, and
    addmm refuses a meta bias beside a CPU input ("... is not on the expected device");
    without it, torch.mm(cpu, meta) returns a CPU tensor of garbage and no error."""
    if device.type != "cpu":
        return torch.device("cpu")
    others = [n for n, _ in available_devices() if n != "cpu"]
    return torch.device(others[0] if others else "meta")


def warm_meta() -> None:
    """Run one kernel on PyTorch's `meta` device: the first one imports sympy and
    PyTorch's symbolic-shape code (800+ modules, 8-14 s on a busy 2-core machine). Done
    while the device-mismatch slide's model is built, with the heartbeat saying so, the
    slide's forward pass is not frozen for those seconds with nothing said."""
    x = torch.empty(2, 2, device="meta")
    torch.nn.functional.linear(x, x, torch.empty(2, device="meta"))
