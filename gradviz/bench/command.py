"""`gradviz bench`: how fast the engine trains at each probe level, against bare PyTorch."""
from __future__ import annotations

import argparse
import statistics

from ..commands.model_option import config_for, model_file_from_args
from ..commands.options import RUN_DEFAULTS, fail
from ..commands.run import UPDATE_COSINE_EVERY
from ..core.devices import resolve_device
from ..core.threads import leave_a_core_free
from ..exit_codes import EXIT_OK
from ..plain.config.config import ConfigError
from .compare_cost import GRAPH_REQUEST_SECONDS, engine_rate
from .core.loop_timer import use_clock
from .core.model_bench import bare_model_loop
from .core.training_speed import PROBE_LEVELS, bare_loop, run_bench
from .run_speed import timed_run
from .window_phase import PROBE_MS, PhaseError, job_arguments, run_phase

APP_LINE = ("the app's engine as Play runs it at full speed, every panel fed as the "
            "window asks: gradient norms every step; pushes, cosines, memory and each "
            "node's gradient on its sampled steps; the graph with saved tensors every "
            f"{GRAPH_REQUEST_SECONDS:g} s; messages pickled as for the pipe")


def main(args: argparse.Namespace) -> int:
    try:
        return _bench(args)
    except PhaseError as exc:   # the window's process: what it said last, in one line
        fail(f"gradviz: bench: {exc}")


def _bench(args: argparse.Namespace) -> int:
    repeats = args.repeats
    steps_given = hasattr(args, "steps")
    model_file = model_file_from_args(args)
    config = config_for(args, model_file, RUN_DEFAULTS)   # the run line: run's own
    if not steps_given:
        config = config.replace(steps=500)
    if repeats < 1 or config.steps < 1:
        fail("gradviz: bench needs --steps and --repeats of at least 1")
    try:
        device = resolve_device(config.device)
    except ConfigError as exc:
        fail(f"gradviz: {exc}")
    use_clock(args.clock)
    threads = leave_a_core_free()
    if args.soak is not None:
        if not args.soak > 0:
            fail("gradviz: bench --soak needs a number of seconds above 0")
        return _print_soak(config, model_file, args.soak)
    if args.watch:
        return _print_watch(config, repeats, threads, args.quiet)
    if args.viewer:
        from .viewer_bench import VIEWER_SIZE, print_viewer
        return print_viewer(args.gui_size or VIEWER_SIZE, args.quiet)
    if args.slides:
        from .slide_bench import print_slides
        return print_slides(args.gui_size or SLIDES_SIZE, None, args.quiet, args.verbose)
    model = f"trunk {config.trunk_depth}x{config.trunk_width}" if model_file is None \
        else f"the model file {model_file.path.name}"
    if not args.quiet:
        print(f"gradviz bench: {config.heads} heads, {model}, batch {config.batch_size}, on "
              f"{device} ({threads} torch thread{'s' if threads > 1 else ''}), "
              f"{config.steps} steps x {repeats} runs, median"
              f"{', timed by CPU time' if args.clock == 'cpu' else ''}")
    if not args.quiet:
        print(f"{'loop':<12}{'steps/s':>10}{'of bare':>10}  probes")
    bare = None
    run = {"run": lambda c, n: timed_run(c, n, model_file)}
    if model_file is not None:   # the app's engine on the file, every panel fed
        path = str(model_file.path)
        run["app"] = lambda c, n: engine_rate(c, n, model_path=path, panels=True)
    for r in run_bench(config, config.steps, repeats, more=run, model_file=model_file):
        what = ("plain PyTorch loop" if r.name == "bare" else _describe_run(config)
                if r.name == "run" else APP_LINE if r.name == "app" else _describe(r.name))
        if r.name == "bare":
            bare = r.steps_per_second
        print(f"{r.name:<12}{_rate(r.steps_per_second)}{r.ratio:>9.0%}  {what}")
    if args.clock != "wall":   # the lines below are timed by the wall clock (B's
        use_clock("wall")      # process, the window's): no ratio to a CPU-timed loop
        bare = None
    if model_file is None:   # the app and a pinned B do not take a model file yet
        _print_comparing(config, repeats, bare)
    if args.gui or args.gui_size is not None:
        phases = WINDOW_PHASES if args.gui_size is None else \
            (("app", args.gui_size, False, False),)
        _print_window(config, model_file, phases, quiet=args.quiet)
    return EXIT_OK


# the window phases: (name, size, another process keeping a core busy, B pinned)
WINDOW_PHASES = (("app", (1920, 1080), False, False), ("app, small", (1024, 768), False, False),
                 ("app, busy", (1920, 1080), True, False), ("app, B", (1920, 1080), False, True))
WINDOW_SECONDS = 8.0
WINDOW_BARE_STEPS = 2000   # the plain loop beside a window phase: at least this many steps
SLIDES_SIZE = (1024, 768)   # a projector's: the lecture's
SOAK_SPARE_S = 300   # a soak's launch, first model and settling, beyond what it plays


def _bare_rate(config, model_file, clock: str = "wall") -> float:
    """A plain loop's steps per second, by the wall clock or by its CPU time."""
    use_clock(clock)
    try:
        return bare_loop(config, config.steps) if model_file is None \
            else bare_model_loop(model_file, config, config.steps)
    finally:
        use_clock("wall")


def _print_window(config, model_file, phases=WINDOW_PHASES, quiet: bool = False) -> None:
    """The app itself, its window's process started afresh for each phase, against a
    plain loop timed just before and just after it (by the wall clock and by its CPU
    time): the machine's load drifts, and a loop timed on one side of an 8 s phase
    only moved by up to a third between two phases of one run."""
    use_clock("wall")
    model_path = None if model_file is None else str(model_file.path)
    bare_config = config.replace(steps=max(config.steps, WINDOW_BARE_STEPS))
    for name, size, busy, pin_b in phases:
        before = _bare_rates(bare_config, model_file)
        g = run_phase(job_arguments(config.replace(steps=200), WINDOW_SECONDS, size, busy,
                                    pin_b, launch=name == "app", model_path=model_path))
        after = _bare_rates(bare_config, model_file)
        bare, bare_cpu_ms = (before[0] + after[0]) / 2, (before[1] + after[1]) / 2
        how = (", another process keeping a core busy" if busy else
               ", B (these settings) pinned and compared live, in its own process"
               if pin_b else "")
        where = f"every panel live at {size[0]}x{size[1]}, the engine in its own process{how}"
        if "frozen_s" in g:
            print(f"{name:<12}{'':>10}{'':>9}  {where}: the window's event loop stopped "
                  f"turning for {g['frozen_s']:.0f} s (before: {_lateness(g)})")
            continue
        print(f"{name:<12}{_rate(g['steps_per_second'])}{g['steps_per_second'] / bare:>9.0%}  "
              f"{where}; the share is of the plain loop's mean rate just before and just after "
              f"it ({before[0]:.0f} "
              f"and {after[0]:.0f} steps/s); the window answered {_lateness(g)}; "
              f"{_cpu(g, bare_cpu_ms)}; the step count on screen went at most "
              f"{g['longest_stall_s']:.2f} s without advancing")
        if "window_visible_s" in g and not quiet:   # -q: only the rows
            print(f"launch: the window showed {g['window_visible_s']:.2f} s after launch "
                  f"(torch {'loaded' if g['torch_in_window_process'] else 'not loaded'} "
                  f"in its process); the engine's first model was ready at "
                  f"{g['engine_ready_s']:.2f} s")


def _bare_rates(config, model_file) -> tuple[float, float]:
    """A plain loop's steps per second by the wall clock, and its CPU ms a step."""
    return _bare_rate(config, model_file), 1000 / _bare_rate(config, model_file, "cpu")


def _cpu(g: dict, bare_cpu_ms: float) -> str:
    """Each process's CPU time per step trained, beside the plain loop's: what the app
    costs apart from how much of the machine its processes were given."""
    engine = g.get("engine_cpu_ms_per_step")
    engine_words = "the engine's not known" if engine is None else (
        f"the engine {engine:.2f} ms ({g['engine_cpu_share']:.0%} of a core; "
        f"{bare_cpu_ms / engine:.0%} of the plain loop's steps a CPU second)")
    return (f"CPU time a step: {engine_words}, the window {g['window_cpu_ms_per_step']:.2f} "
            f"ms ({g['window_cpu_share']:.0%} of a core), the plain loop {bare_cpu_ms:.2f} ms")


def _print_soak(config, model_file, seconds: float) -> int:
    """`bench --soak SECONDS`: Play for that long in the window with another process
    keeping a core busy; the longest the step count on screen did not advance."""
    model_path = None if model_file is None else str(model_file.path)
    size = WINDOW_PHASES[0][1]
    print(f"gradviz bench --soak: Play for {seconds:g} s in the app's window (offscreen, "
          f"{size[0]}x{size[1]}, every panel live, the engine in its own process), another "
          f"process keeping a core busy", flush=True)
    g = run_phase(job_arguments(config.replace(steps=200), seconds, size, busy=True,
                                model_path=model_path), timeout_s=seconds + SOAK_SPARE_S)
    if "frozen_s" in g:
        print(f"soak: the window's event loop stopped turning for {g['frozen_s']:.0f} s "
              f"(before: {_lateness(g)})")
        return EXIT_OK
    first, last = g["shown_steps"]
    print(f"soak: {g['seconds']:.0f} s played, {g['steps']} steps "
          f"({g['steps_per_second']:.0f} steps/s); the step count on screen went from "
          f"{first} to {last}, advancing {g['shown_advances']} times; longest without "
          f"advancing: {g['longest_stall_s']:.2f} s; the window answered {_lateness(g)}")
    return EXIT_OK


def _lateness(g: dict) -> str:
    return (f"{_ms(g['median_late_ms'])} ms late (median), {_ms(g['p99_late_ms'])} ms (99%), "
            f"{_ms(g['max_late_ms'])} ms (worst), by a {PROBE_MS} ms probe timer")


def _ms(value: float) -> str:
    """A tenth of a millisecond shown below 10 ms (a probe's lateness is often 0.1 ms)."""
    return f"{value:.1f}" if value < 10 else f"{value:.0f}"


def _print_comparing(config, repeats: int, bare: float | None) -> None:
    """What comparing costs: the app's engine with B pinned against it alone, and
    `gradviz compare` against `gradviz run` (medians of interleaved runs)."""
    from .compare_cost import compare_rate
    in_loop = config.replace(strategy="in-loop")
    runs = {"alone": lambda: engine_rate(config, config.steps),
            "pinned": lambda: engine_rate(config, config.steps, b=config),
            "pinned, in-loop": lambda: engine_rate(config, config.steps, b=in_loop),
            "run": lambda: timed_run(config, config.steps),
            "compare": lambda: compare_rate(config, config, config.steps)}
    rates: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            rates[name].append(run())
    med = {name: statistics.median(r) for name, r in rates.items()}
    lines = [("app alone", med["alone"], "the engine's loop as Play runs it at full speed"),
             ("app, B", med["pinned"],
              f"the same with B pinned, in its own process (B = A's settings): "
              f"{med['alone'] / med['pinned']:.2f}x the time of A alone"),
             ("app, B", med["pinned, in-loop"], f"the same with B = in-loop: "
              f"{med['alone'] / med['pinned, in-loop']:.2f}x"),
             ("compare", med["compare"],
              f"`gradviz compare A A`: {med['run'] / med['compare']:.2f}x "
              f"the time of `gradviz run` (the run line)")]
    for name, rate, what in lines:
        ratio = f"{rate / bare:>9.0%}" if bare else f"{'':>9}"
        print(f"{name:<12}{rate:>10.0f}{ratio}  {what}")


def _rate(steps_per_second: float) -> str:
    """Steps per second, 10 wide: a tenth shown below 100 (a CNN trains 5 a second)."""
    return f"{steps_per_second:>10.1f}" if steps_per_second < 100 else \
        f"{steps_per_second:>10.0f}"


def _describe_run(config) -> str:
    every = ("every step" if config.sample_every == 1
             else f"every {config.sample_every} steps")
    update = {"all": "every step", "none": "never"}.get(
        config.probes, f"every {max(config.sample_every, UPDATE_COSINE_EVERY)} steps")
    return (f"`gradviz run`'s loop as configured (probes {config.probes}, heavy probes "
            f"{every}, the cosine with the update {update}), report.json and "
            f"metrics.csv streamed to a temporary folder")


def _describe(level: str) -> str:
    changes = PROBE_LEVELS[level]
    if changes["probes"] == "none":
        return "losses only"
    if changes["probes"] == "all":
        return "every probe every step, graph captured each step"
    return (f"grad norms every step; junction, cosines, memory every "
            f"{changes['sample_every']} steps")


def _print_watch(config, repeats: int, threads: int, quiet: bool) -> int:
    """`bench --watch`: each loop's rate watched over bare, with the load around it."""
    import os

    from ..core.watch import DEFAULT_EVERY
    from .core.watch_bench import FLOOR, watch_benches
    if not quiet:
        print(f"gradviz bench --watch: a plain loop bare and under gradviz.watch (every="
              f"{DEFAULT_EVERY}: losses and grad norms each step; push, cosines and memory "
              f"every {DEFAULT_EVERY}th, the graph when it changes), {threads} torch thread"
              f"{'s' if threads > 1 else ''}, {repeats} runs each, median")
        print("the hand-written floor: the same MLP loop recording the same numbers (each "
              "step's losses, gradient norms and wall time in a line written at once; each "
              f"{DEFAULT_EVERY}th step's push, cosines and memory too) by the least code")
        print(f"{'loop':<38}{'params':>10}{'bare/s':>10}{'watched/s':>11}{'of bare':>9}")
    before = os.getloadavg()
    rows = watch_benches(config, config.steps, repeats)
    for r in rows:
        print(f"{r.name:<38}{r.parameters:>10,}{r.bare:>10.1f}{r.watched:>11.1f}{r.ratio:>9.0%}")
    watched, floor = rows[0], next(r for r in rows if r.name.endswith(FLOOR))
    print(f"{watched.name}: watched {watched.ratio:.1%} of bare, its floor {floor.ratio:.1%}: "
          f"{100 * (floor.ratio - watched.ratio):.1f} points below the floor (the goal: "
          "at most 5)")
    after = os.getloadavg()
    print(f"load average (1 min): {before[0]:.2f} before, {after[0]:.2f} after, on "
          f"{os.cpu_count()} cores")
    return EXIT_OK
