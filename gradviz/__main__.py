"""`python -m gradviz`: the same as the `gradviz` command."""
from .app import entry

entry()
