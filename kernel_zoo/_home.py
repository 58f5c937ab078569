"""Where kernel-zoo keeps its state: studies, candidate files, the user zoo."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

SHIPPED_ZOO = Path(__file__).resolve().parent / "entries"


class HomeError(RuntimeError):
    """$KZOO_HOME cannot be made or written."""


def kzoo_home() -> Path:
    """`$KZOO_HOME`, default `./.kzoo` (relative to the working directory, as documented)."""
    return Path(os.environ.get("KZOO_HOME", ".kzoo")).expanduser().resolve()


def probe_writable(folder: Path) -> None:
    """Make `folder` when missing and create and remove a scratch file in it: an OSError when
    either cannot be done."""
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryFile(dir=folder):
        pass


def ensure_home() -> Path:
    """`kzoo_home()`, made when missing and checked writable: a HomeError that names the folder
    and the way out, where otherwise the first write deep inside a search (the study database,
    a candidate file) would end it with a traceback, or blame the candidate."""
    home = kzoo_home()
    try:
        probe_writable(home)
    except OSError as exc:
        given = ("KZOO_HOME " if "KZOO_HOME" in os.environ else "the state folder (default "
                 "./.kzoo) ")
        raise HomeError(f"{given}{home}: cannot be made or written ({exc.strerror or exc}); set "
                        "KZOO_HOME to a folder you can write") from None
    return home


def user_zoo() -> Path:
    return kzoo_home() / "zoo"
