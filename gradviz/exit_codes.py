"""The exit statuses the `gradviz` command shares between its parts: the app (gradviz.qt)
and the headless commands both end with these, so each is defined once, here, free of Qt
and torch. A command's own status (compare's 1 for "different") stays with the command."""

EXIT_OK = 0
EXIT_USAGE = 2             # bad arguments or input, or a file not written: one line says which
EXIT_AUTOGRAD_ERROR = 3    # training stopped on PyTorch's error (or divergence), or on a
                           # model file's own error (sys.exit too) at a step
EXIT_LEFT_RUNNING = 4      # the work was done, but a model file left threads or processes
                           # running: one line names the file, and they end with gradviz
EXIT_WINDOW_FAILED = 5     # the window's own code raised (a fault of gradviz's, never of a
                           # file's data, which the window says in words): one line says
                           # what and where, and the window closed
EXIT_INTERRUPTED = 130     # what shells report for a command ended by Ctrl+C (128 + SIGINT)
