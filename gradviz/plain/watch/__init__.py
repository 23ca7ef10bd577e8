"""gradviz.watch's side in the user's training process, torch-free: the folder it claims
(watch_claim), its recording and what a failed write does to it (watch_recording,
watch_write_failure, watch_metrics), its complaints (watch_complaints), and closing the
watches a process leaves open (watch_exit)."""
