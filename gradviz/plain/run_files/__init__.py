"""A run's files on disk, written and read back within bounds: a watched loop's stream
(watch_stream, step_file, watch_end, stream_writer_process), a `gradviz run --out` folder
(report, and run_folder: its files replaced together, and whose files it holds), and a
folder of either read as it grows (watch_read, folder_records, report_lines,
bounded_file, history_thinning)."""
