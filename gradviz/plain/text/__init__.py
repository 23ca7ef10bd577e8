"""One line of text, as gradviz says it: a stranger's text made fit to show (shown_text),
the did-you-mean of a misspelt name (spelling), an exception in one line (fault_line), and
PyTorch missing (torch_missing)."""
