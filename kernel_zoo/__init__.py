"""kernel-zoo: verified, versioned GPU kernels for PyTorch ops.

`from kernel_zoo import ops; ops.softmax(x)` dispatches to the best zoo entry for the device and
dtype, or to the PyTorch reference. `ops` is imported on first use, so `import kernel_zoo` stays
free of torch.
"""

from __future__ import annotations

import importlib
from typing import Any

from kernel_zoo.store import ZooError, ZooIntegrityError

__version__ = "0.1.0"
__all__ = ["ZooError", "ZooIntegrityError", "__version__", "ops"]


def __getattr__(name: str) -> Any:
    if name == "ops":
        # import_module also binds kernel_zoo.ops, so this runs once
        return importlib.import_module("kernel_zoo.ops")
    raise AttributeError(f"module 'kernel_zoo' has no attribute {name!r}")
