"""Recorded runs shown: a run folder followed as the window shows it (recorded_run), the
runs of a folder ticked beside it (run_set), two runs compared (run_comparison), whether
ranks agree (rank_agreement), a run's steps as CSV (steps_csv), `gradviz report`'s lines
(watch_summary), a run as HTML for a notebook (run_view, run_svg), `gradviz open` started
from Python (open_run), and made-up runs for the viewer's bench and tests (made_up_runs)."""
