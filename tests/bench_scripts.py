"""Loading a script of bench/ (not a package) in a test: `load("tune_buckets")`."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[1] / "bench"


def load(name: str, restore_path: bool = True) -> ModuleType:
    """bench/<name>.py imported as the module `name`, registered in sys.modules (a dataclass
    defined in it looks its module up there), with the sys.path entries its import adds taken back
    out (bench/ holds module names that would shadow others) unless `restore_path` is False: for a
    script that imports a sibling of bench/ when it runs, not when it loads."""
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    saved = list(sys.path)
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    finally:
        if restore_path:
            sys.path[:] = saved
    return module
