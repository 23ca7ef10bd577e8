"""gradviz: see what autograd does when a network has several losses."""

__version__ = "0.1.0"
