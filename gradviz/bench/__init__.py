"""gradviz's benchmarks: `gradviz bench` (its command line, the engine's and the commands'
loops timed against plain PyTorch, the window phases run in processes of their own) and
`python -m gradviz.bench.layout_speed`. Shipped with gradviz, imported by no part of the
product (the app's command line hands `gradviz bench` its parser): bench.core times the
training core (torch, no Qt), bench.qt the window (Qt, no torch)."""
