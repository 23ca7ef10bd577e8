"""ddp-ranks N as part of the plain PyTorch program (plain.program.script): the gradient the program
uses is DistributedDataParallel's over N processes, as gradviz's own ranks (core.ddp_rank)
give it, so that the program prints gradviz's numbers bit for bit.

A one-process loop cannot stand in for the ranks: they split the batch into N * accumulate
micro-batches, sum each rank's own, divide each sum by N and add the N results in gloo's
order. That is another order of float additions than the loop's accumulate micro-batches,
so the last digits differ: with 2 ranks, 4 micro-batches and no_sync (the defaults
otherwise), 28 of the first 4 steps' 64 gradient norms, up to 5.8e-7 relative, and as
the weights drift apart, up to 5.5e-4 by step 200. The program's ranks do what gradviz's
do, operation for operation: the same shares, factors and DDP hook, one thread each.
"""
from __future__ import annotations

from ..config.config import Config

# the modules the ranks need, beside the script's own (standard library, then torch's)
_ADDED = (("import functools\n", "import atexit\nimport contextlib\nimport datetime\n"),
          ("import sys\n", "import subprocess\n"),
          ("import torch\n", "import torch.distributed as dist\n"),
          ("from torch import nn\n", "from torch.distributed.algorithms.ddp_comm_hooks."
                                     "default_hooks import allreduce_hook\n"),
          ("from torch.nn import functional as F\n",
           "from torch.nn.parallel import DistributedDataParallel\n"))
_BEFORE = ("import functools\n", "import sys\n")   # these go before their anchor line

_RANKS = '''

# ---- ddp-ranks: each step's gradient is DistributedDataParallel's, as gradviz takes it ----
RANKS = {ranks}   # processes: this one is rank 0; the others run this file with --ddp-rank
ACCUMULATE = {accumulate}   # micro-batches per rank and step
NO_SYNC = {no_sync}   # model.no_sync() on all but a rank's last micro-batch
RANK_FACTORS = {factors}   # each head's weight times the loop's micro-batch scale
RANK_SECONDS = 60   # gloo's limit on a collective: a rank that never answers is an error


def join_ranks(rank, store):
    """This process as rank `rank` of RANKS, gloo over 127.0.0.1: a CPU replica of the model
    under DDP. allreduce_hook is the hook gradviz's ranks run: each bucket divided by
    RANKS, then summed over the ranks."""
    timeout = datetime.timedelta(seconds=RANK_SECONDS)
    dist.init_process_group("gloo", store=store, rank=rank, world_size=RANKS, timeout=timeout)
    with torch.random.fork_rng(devices=[]):   # its weights are rank 0's, sent every step
        replica = DistributedDataParallel({model})
    replica.register_comm_hook(None, allreduce_hook)
    return replica


def train_share(replica, step, rank):
    """Rank `rank`'s part of step `step`: the batch in RANKS * ACCUMULATE equal parts,
    ACCUMULATE of them its own, in order; per part every head's loss times its factor,
    one backward. DDP all-reduces .grad after the last backward (after every one
    without NO_SYNC). The weights are rank 0's, broadcast."""
    with torch.no_grad():
        for p in replica.module.parameters():
            dist.broadcast(p.detach(), 0)
            p.grad = None
    x, targets = batch(step)
    parts = RANKS * ACCUMULATE
    xs, ts = x.cpu().chunk(parts), [t.cpu().chunk(parts) for t in targets]
    mine = range(rank * ACCUMULATE, (rank + 1) * ACCUMULATE)
    for i in mine:
        quiet = NO_SYNC and i < mine[-1]
        with replica.no_sync() if quiet else contextlib.nullcontext():
            outputs = replica(xs[i])
            total = sum(f * loss_fn[k](out, ts[k][i])
                        for k, (f, out) in enumerate(zip(RANK_FACTORS, outputs)))
            total.backward()


def start_ranks():
    """Ranks 1..RANKS-1 started (`python -I` of this file) and joined with this process,
    rank 0, through a store it holds on a port the system picks; they end with it."""
    if sys.platform.startswith("linux"):
        os.environ["GLOO_SOCKET_IFNAME"] = "lo"   # loopback only, theirs too
    timeout = datetime.timedelta(seconds=RANK_SECONDS)
    store = dist.TCPStore("127.0.0.1", 0, RANKS, True, timeout=timeout,
                          wait_for_workers=False)
    others = [subprocess.Popen([sys.executable, "-I", os.path.abspath(__file__), "--ddp-rank",
                                str(rank), str(store.port)], stdin=subprocess.DEVNULL)
              for rank in range(1, RANKS)]
    atexit.register(end_ranks, others)
    return join_ranks(0, store)


def end_ranks(others):
    """At exit: the other ranks are done with their last step (or, where this process
    stopped early, wait for a step that never comes): they end now."""
    for process in others:
        process.kill()
        process.wait()
    dist.destroy_process_group()


def ddp_gradient(step, model):
    """model's .grad := DDP's all-reduced gradient of step `step` over RANKS ranks, as
    gradviz takes it. This process trains rank 0's share at one thread, as each of
    gradviz's ranks runs, then goes back to its own thread count."""
    if not REPLICA:
        REPLICA.append(start_ranks())
    replica, threads = REPLICA[0], torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with torch.no_grad():
            for mine, p in zip(replica.module.parameters(), model.parameters()):
                mine.copy_(p)
        train_share(replica, step, 0)
    finally:
        torch.set_num_threads(threads)
    for p, mine in zip(model.parameters(), replica.module.parameters()):
        p.grad = mine.grad.to(p.device, copy=True)


REPLICA = []   # rank 0's replica, from the first step on

if sys.argv[1:2] == ["--ddp-rank"]:   # ranks 1..RANKS-1: one thread each, every step's share
    torch.set_num_threads(1)
    rank = int(sys.argv[2])
    replica = join_ranks(rank, dist.TCPStore("127.0.0.1", int(sys.argv[3]), RANKS, False,
                                             timeout=datetime.timedelta(seconds=RANK_SECONDS)))
    for step in range(STEPS):
        train_share(replica, step, rank)
    sys.exit()
'''


def ddp_imports(imports: str) -> str:
    """The script's imports with those its ranks need, each in its sorted place."""
    for line, added in _ADDED:
        imports = imports.replace(line, added + line if line in _BEFORE else line + added)
    return imports


def ddp_part(cfg: Config) -> str:
    """The ranks' code, before the loop; empty for one process."""
    if cfg.ddp_ranks == 1:
        return ""
    # the factors gradviz's ranks use (core.ddp_session): each micro-batch's as the loop's
    scale = cfg.micro_scale(cfg.batch_size // cfg.accumulate)
    factors = [w * scale for w in cfg.weights()]
    model = (f"MultiHeadNet(heads=HEADS, width={cfg.trunk_width}, "
             f"depth={cfg.trunk_depth})")
    return _RANKS.format(ranks=cfg.ddp_ranks, accumulate=cfg.accumulate,
                         no_sync=cfg.ddp_no_sync, factors=factors, model=model)
