"""What the window and the engine say to each other over the pipe: (name, *args) tuples
of plain data (Config, StepRecord, PhaseRecord, Event, GraphData: floats, lists,
strings), never a tensor. The engine sends lists of messages, one list per batch."""
from __future__ import annotations

# window -> engine: one (name, *args) tuple per command
CONFIG = "config"                    # Config
PLAY = "play"
PAUSE = "pause"
PHASE = "phase"                      # one phase
STEP = "step"                        # one optimizer step
RESET = "reset"
DELAY = "delay"                      # ms between steps
RUN_STEPS = "run_steps"              # n steps as fast as possible, then STEPS_DONE
ANIMATE_PHASES = "animate_phases"    # bool: Play goes phase by phase, at the delay
MIN_PHASE_MS = 50                    # ...but at most one phase (and its graph) per 50 ms
STOP_AT = "stop_at"                  # step index where Play pauses itself (None: never)
REQUEST_GRAPH = "request_graph"
SHOW_SAVED = "show_saved"            # bool
TRACK_NODE_GRADS = "track_node_grads"  # bool
EXPORT_TORCHVIZ = "export_torchviz"  # path
SHUTDOWN = "shutdown"
PIN_B = "pin_b"                      # Config of B to train beside A, or None: stop comparing
WARM_B = "warm_b"                    # the Compare menu opened: start B's process ahead of a pin
# a lesson's slide, as one message: Config, delay ms, animate phases, stop at (or None),
# play: a fresh model built once at step 0, one graph, then Play if asked
SLIDE = "slide"

COMMANDS = frozenset({CONFIG, PLAY, PAUSE, PHASE, STEP, RESET, DELAY, RUN_STEPS,
                      ANIMATE_PHASES, STOP_AT, REQUEST_GRAPH, SHOW_SAVED, TRACK_NODE_GRADS,
                      EXPORT_TORCHVIZ, SHUTDOWN, PIN_B, WARM_B, SLIDE})

# engine -> window
HELLO = "hello"                      # [(device name, description)]: torch is loaded
ALIVE = "alive"                      # what it is doing, seconds at it: the heartbeat
                                     # (twice a second, from the engine's first moment)
CONFIG_APPLIED = "config_applied"    # Config, did_reset, [param names]
CONFIG_REJECTED = "config_rejected"  # one-line reason
NOTICE = "notice"                    # one line for the status bar
PHASE_DONE = "phase_done"            # PhaseRecord (single-stepped, or Play by phases)
FAILED = "failed"                    # Event
RUNNING = "running"                  # bool
GRAPH = "graph"                      # GraphData, what it shows
STEPS_DONE = "steps_done"            # step index after a RUN_STEPS batch
RECORDS = "records"                  # [StepRecord], steps per second
B_PINNED = "b_pinned"                # B's Config (None: not comparing), why not (or None)
COMPARED = "compared"                # [CompareRecord]: B's steps beside A's, after RECORDS
