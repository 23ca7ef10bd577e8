"""What the command tests share: a config file written where a test wants it."""
from pathlib import Path


def toml(tmp_path: Path, name: str, text: str) -> str:
    """text written to tmp_path/name; its path as a command line takes it."""
    path = tmp_path / name
    path.write_text(text)
    return str(path)
