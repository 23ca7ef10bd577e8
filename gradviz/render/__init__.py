"""Graph layout and export: DOT text styled for a projector, Graphviz (a system `dot` or
the pip-installed graphviz-pure) for SVG/PNG/JSON, and the torchviz adapter. No Qt here.
"""
