"""kernel-zoo: verified, versioned GPU kernels for PyTorch ops.

`from kernel_zoo import ops; ops.softmax(x)` dispatches to the best zoo entry for the device,
dtype and shape, or to the PyTorch reference. `kernel_zoo.load("softmax", version="1.1.0")` pins
one version. `ops` is imported on first use, so `import kernel_zoo` stays free of torch.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kernel_zoo.store import ZooConflictError, ZooError, ZooIntegrityError

if TYPE_CHECKING:
    from kernel_zoo.ops import PinnedOp

__version__ = "0.1.0"
__all__ = [
    "ZooConflictError",
    "ZooError",
    "ZooIntegrityError",
    "__version__",
    "load",
    "ops",
    "optimize",
]


def load(op: str, version: str | None = None, *, zoo: str | Path | None = None) -> PinnedOp:
    """Pin one version of a zoo op: `kernel_zoo.load("softmax", version="1.1.0")(x, dim=-1)`.

    See `kernel_zoo.ops.load`. Imports torch (through `kernel_zoo.ops`) on first call.
    """
    from kernel_zoo import ops

    return ops.load(op, version, zoo=zoo)


def optimize(module_or_function, example_inputs, **options):
    """Search, verify and compose kernels for a module or function; returns (the optimized
    module, the result object of `kzoo optimize --json`). See kernel_zoo.api."""
    from kernel_zoo.api import optimize as run

    return run(module_or_function, example_inputs, **options)


def __getattr__(name: str) -> Any:
    if name == "ops":
        # import_module also binds kernel_zoo.ops, so this runs once
        return importlib.import_module("kernel_zoo.ops")
    raise AttributeError(f"module 'kernel_zoo' has no attribute {name!r}")
