"""The window's own words about the engine's life: the settings a fresh engine starts
with, and the What happened entries for an engine that died, hung, or whose model file's
build the user stopped (the engine cannot report those: it is gone)."""
from __future__ import annotations

import dataclasses

from ..engine import host
from ..plain.config.config import Config
from ..plain.records import events as ev


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
    """The engine's process ended (exit code, None where unknown), or (hung) answered
    nothing for silent_s and was ended by the window: that kill is the window's own,
    so it says nothing of memory (a SIGKILL by Linux's out-of-memory killer looks the
    same), and tells a frozen engine from a stopped one only as far as it can."""
    hint = (f"Press Reset (R) to start a fresh one with the same settings "
            f"({settings_words(config)}), or Shift+R with the default settings")
    if hung:
        return ev.Event(
            step=step, phase="engine", call="the training engine",
            type="EngineStopped",
            message=f"gradviz ended the training engine after it answered nothing for "
                    f"{silent_s:.0f} s (frozen or stopped).",
            title="The training engine stopped answering",
            explanation=f"The process that trains the model neither beat (it says it is "
                        f"alive twice a second) nor used any CPU time for "
                        f"{silent_s:.0f} s: it was frozen (a deadlock, a call that waits "
                        f"for ever) or stopped from outside (SIGSTOP, Ctrl+Z in its "
                        f"terminal, a debugger), so gradviz ended it. The window and "
                        f"everything it shows are kept.",
            hint=hint + ".")
    killed = exitcode == -9   # what Linux's out-of-memory killer sends
    return ev.Event(
        step=step, phase="engine", call="the training engine",
        type="EngineStopped",
        message=f"The training engine stopped ({host.exit_words(exitcode)}).",
        title="The training engine stopped",
        explanation="The process that trains the model ended (a crash inside PyTorch, "
                    "running out of memory, or a kill from outside). The window and "
                    "everything it shows are kept."
                    + (" A kill like this one is what the system does to a process "
                       "that runs out of memory." if killed else ""),
        hint=hint + (" (the same settings may run out of memory again)." if killed
                     else "."))
