"""Test-wide settings: Qt runs offscreen, torch uses one thread (tests share 2 cores), and
no hypothesis example is failed for its wall-clock time (a busy laptop is not a bug;
pytest-timeout still ends a test that hangs)."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import torch  # noqa: E402
from hypothesis import settings  # noqa: E402

torch.set_num_threads(1)

settings.register_profile("gradviz", deadline=None)
settings.load_profile("gradviz")
