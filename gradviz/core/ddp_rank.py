"""One DistributedDataParallel rank: `python -I -m gradviz.core.ddp_rank FD`, started by
core.ddp_ranks. It joins the gloo group on 127.0.0.1, then for each step it is sent
trains its share of the batch under DDP and answers the all-reduces its communication
hook counted and the gradients DDP left in .grad. It ends when its parent's socket does."""
# no `from __future__ import annotations`: DDP checks the hook's annotations are the
# classes themselves, not their names
import contextlib
import datetime
import sys
from multiprocessing.connection import Connection

import torch
import torch.distributed as dist
from torch.distributed.algorithms.ddp_comm_hooks.default_hooks import allreduce_hook
from torch.nn.parallel import DistributedDataParallel

from ..plain.records.events import first_line
from .model import MultiHeadNet, head_loss


def counting_hook(counter: list[int],
                  bucket: dist.GradBucket) -> torch.futures.Future[torch.Tensor]:
    """DDP hands each gradient bucket it all-reduces to its hook: count it, then do what
    DDP does without a hook (all-reduce, divided by the world size)."""
    counter[0] += 1
    return allreduce_hook(None, bucket)  # type: ignore[arg-type]   # None: the default group


def join(start: dict) -> "tuple[DistributedDataParallel, list[int]]":
    """This rank in the group whose store the parent holds; the model under DDP, hooked."""
    # one thread a rank: N ranks share the machine's cores with the engine
    torch.set_num_threads(1)
    timeout = datetime.timedelta(seconds=start["timeout"])
    store = dist.TCPStore("127.0.0.1", start["port"], start["world"], False, timeout=timeout)
    dist.init_process_group("gloo", store=store, rank=start["rank"],
                            world_size=start["world"], timeout=timeout)
    model = MultiHeadNet(start["heads"], start["width"], start["depth"])
    ddp = DistributedDataParallel(model)
    counter = [0]
    ddp.register_comm_hook(counter, counting_hook)
    return ddp, counter


def train_step(ddp: DistributedDataParallel, counter: list[int], job: dict) -> tuple:
    """The step's forward and backward on this rank's micro-batches, from the weights it
    was sent; no_sync: model.no_sync() on all but the last micro-batch."""
    params = list(ddp.module.parameters())
    with torch.no_grad():
        for p, value in zip(params, job["params"]):
            p.copy_(torch.from_numpy(value))
            p.grad = None
    counter[0] = 0
    micros, factors = job["micros"], job["factors"]
    for m, (x, targets) in enumerate(micros):
        quiet = job["no_sync"] and m < len(micros) - 1
        with ddp.no_sync() if quiet else contextlib.nullcontext():
            outputs = ddp(torch.from_numpy(x))
            loss = sum(f * head_loss(k, out, torch.from_numpy(t))
                       for k, (f, out, t) in enumerate(zip(factors, outputs, targets)))
            loss.backward()
    # every parameter of the built-in mlp is in every head's loss: each has a gradient
    return counter[0], [(torch.zeros_like(p) if p.grad is None else p.grad).numpy()
                        for p in params]


def serve(conn: Connection) -> None:
    ddp, counter = join(conn.recv())
    conn.send(("ready",))
    while True:
        try:
            job = conn.recv()
        except EOFError:   # the parent closed the group, or ended
            return
        conn.send(("done", *train_step(ddp, counter, job)))


def main(argv: list[str]) -> None:
    conn = Connection(int(argv[1]))
    try:
        serve(conn)
    except (EOFError, BrokenPipeError, ConnectionResetError):
        pass
    except Exception as exc:   # told to the parent in one line, which ends the group
        with contextlib.suppress(OSError):
            conn.send(("error", f"{type(exc).__name__}: {first_line(exc)}"))
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv)
