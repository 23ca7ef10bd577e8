"""What ships with gradviz beside its package: lessons, presets and demo recordings
(data), and the example model files and a benchmark model (code, run only where a
command names them). The README's screenshots are here too, in the sdist, not the wheel."""
