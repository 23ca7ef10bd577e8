"""How long a GUI test waits for what it expects before failing: generous, since the suite
must pass on a busy 2-core laptop (torch took 13-14 s to import on one). A wait ends as
soon as its condition holds, so a long bound costs nothing when all is well; pytest-timeout
ends a test that would hang."""
WAIT_MS = 60_000
