"""Where kernel-zoo keeps its state: studies, candidate files, the user zoo."""

from __future__ import annotations

import os
from pathlib import Path

SHIPPED_ZOO = Path(__file__).resolve().parent / "entries"


def kzoo_home() -> Path:
    """`$KZOO_HOME`, default `./.kzoo` (relative to the working directory, as documented)."""
    return Path(os.environ.get("KZOO_HOME", ".kzoo")).expanduser().resolve()


def user_zoo() -> Path:
    return kzoo_home() / "zoo"
