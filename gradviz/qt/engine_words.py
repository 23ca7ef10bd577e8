"""The window's own words about the engine's life: the settings a fresh engine starts
with, and the What happened entries for an engine that died, hung, or whose model file's
build the user stopped (the engine cannot report those: it is gone)."""
from __future__ import annotations

import dataclasses

from ..engine import host
from ..plain import events as ev
from ..plain.config import Config


def settings_words(config: Config, most: int = 6) -> str:
    """The settings that differ from the defaults, in a few words ("batch_size=4096,
    trunk_width=2048"), or "the defaults"."""
    default = Config()
    changed = [f"{f.name}={getattr(config, f.name)}" for f in dataclasses.fields(config)
               if getattr(config, f.name) != getattr(default, f.name)]
    if not changed:
        return "the defaults"
    more = f" and {len(changed) - most} more" if len(changed) > most else ""
    return ", ".join(changed[:most]) + more


def build_stopped(name: str, line: str) -> ev.Event:
    """The user ended an engine still building the model file `name`."""
    return ev.Event(
        step=0, phase="engine", call="building the model file",
        type="ModelFileStopped", message=line,
        title="Building the model file was stopped",
        explanation=f"The training engine was running {name}'s own code (its top level "
                    "or build()) and you stopped it before it finished. Its process "
                    "was ended; the window and everything it shows are kept.",
        hint="A build() that never returns often waits on input, data or a loop "
             "with no end; fix it, then open the file again (File → Open model…).")


def engine_died(step: int, exitcode: int | None, hung: bool, silent_s: float,
                config: Config) -> ev.Event:
    """The engine's process ended (exit code, None where unknown) or hung."""
    how = (f"showed no sign of life for {silent_s:.0f} s and was stopped" if hung
           else f"stopped ({host.exit_words(exitcode)})")
    killed = exitcode == -9   # what Linux's out-of-memory killer sends
    return ev.Event(
        step=step, phase="engine", call="the training engine",
        type="EngineStopped", message=f"The training engine {how}.",
        title="The training engine stopped",
        explanation="The process that trains the model ended (a crash inside PyTorch, "
                    "running out of memory, or a kill from outside) or stopped "
                    "answering. The window and everything it shows are kept."
                    + (" A kill like this one is what the system does to a process "
                       "that runs out of memory." if killed else ""),
        hint=f"Press Reset (R) to start a fresh one with the same settings "
             f"({settings_words(config)}), or Shift+R with the default "
             f"settings" + (" (the same settings may run out of memory again)."
                            if killed else "."))
