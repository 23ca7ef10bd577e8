"""A watched step's numbers read back: on the CPU each by .item() (and the Gram matrix and
the tail by tolist()), elsewhere by one transfer of one stacked tensor; the same floats
either way, since float32, bfloat16 and float16 widen to a Python float exactly."""
from __future__ import annotations

import torch

from gradviz.core.watch_probe import gathered, read_numbers

CPU = torch.device("cpu")


def test_read_one_by_one_on_the_cpu_are_the_stacked_numbers():
    scalars = [torch.tensor(0.1, dtype=torch.float32), torch.tensor(1 / 3, dtype=torch.bfloat16),
               torch.tensor(2.5e-5, dtype=torch.float16), torch.tensor(0.7, dtype=torch.float64)]
    rows = torch.randn(2, 5, dtype=torch.float32)
    gram = rows.double() @ rows.double().T
    tail = torch.randn(3, dtype=torch.float32)
    for g, t in ((None, None), (gram, None), (gram, tail), (None, tail)):
        got = read_numbers(scalars, g, CPU, t)
        want = gathered(scalars, g, CPU, t).tolist()
        assert got == want and all(type(x) is float for x in got)
    # each value exactly as a float64 holds it
    assert read_numbers(scalars, None, CPU)[:3] == [s.double().item() for s in scalars[:3]]


def test_an_integer_value_is_read_as_the_stack_makes_it():
    scalars = [torch.tensor(3), torch.tensor(0.5)]
    assert read_numbers(scalars, None, CPU) == gathered(scalars, None, CPU).tolist() == [3.0, 0.5]
