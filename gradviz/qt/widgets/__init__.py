"""The app's panels; each one opens alone with made-up data
(`python -m gradviz.qt.widgets.NAME`)."""
