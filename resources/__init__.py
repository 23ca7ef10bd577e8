"""What ships with gradviz beside its package: lessons, presets, demo recordings and
screenshots (data), and the example model files and a benchmark model (code, run only
where a command names them)."""
