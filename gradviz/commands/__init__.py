"""The command-line faces of gradviz: `gradviz run`, `compare`, `lessons`, `report`, the
options they share, and their parsers (`parsers`, which imports no torch). `gradviz
bench` is the benchmarks' own (gradviz.bench), which no command imports."""
