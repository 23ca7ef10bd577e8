"""The training core's benchmarks: plain PyTorch loops written out independently of the
session, the clock they are timed by, and a user's loop under gradviz.watch. Torch, no
Qt."""
