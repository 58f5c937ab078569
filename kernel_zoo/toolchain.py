"""Which ptxas assembles the zoo's Triton kernels.

Triton ships its own ptxas (CUDA 12.8's with triton 3.6); torch's CUDA wheels ship another
(torch/bin/ptxas, CUDA 13.0's with torch 2.11). torch.compile points Triton at torch's the first
time it compiles a kernel in a process (TRITON_PTXAS_PATH, unless set already), and from then on
every Triton kernel the process compiles is assembled by it: the zoo's too. So a zoo kernel's
registers, and its time, depended on whether torch.compile had run before its first call. On an
H200 a stored LayerNorm kernel took 68 us assembled by Triton's ptxas (180 registers a thread)
and 47 us by torch's (128); most kernels came out the same either way
(bench/results/runs/probe-ptxas-h200-round365.json).

`use_torch_ptxas()` makes that choice once, before anything of ours compiles, where kernel_zoo
loads a kernel file (`store.load_kernel`, and `kernel_zoo.optimize`'s result) and where the
verifier loads a candidate (`verifier.core.load_candidate`): the kernels a sweep times are
assembled as the ones `kernel_zoo.ops` serves, whatever else the process runs. A
TRITON_PTXAS_PATH already set (by the user, or by torch.compile) is left as it is; where torch
ships no ptxas (CPU wheels) nothing changes.
"""

from __future__ import annotations

import os
from pathlib import Path

PTXAS_ENV = "TRITON_PTXAS_PATH"


def torch_ptxas() -> Path | None:
    """torch's own ptxas (torch/bin/ptxas), where its wheel ships an executable one."""
    import torch

    path = Path(torch.__file__).resolve().parent / "bin" / "ptxas"
    return path if path.is_file() and os.access(path, os.X_OK) else None


def use_torch_ptxas() -> str | None:
    """Point Triton at torch's ptxas unless TRITON_PTXAS_PATH is set; returns the path Triton
    is pointed at now (None: Triton's own)."""
    current = os.environ.get(PTXAS_ENV)
    if current:
        return current
    path = torch_ptxas()
    if path is None:
        return None
    os.environ[PTXAS_ENV] = str(path)
    return str(path)


def ptxas_in_use() -> dict | None:
    """The ptxas Triton assembles with in this process, after `use_torch_ptxas()`: its path and
    release (None where this Triton cannot say)."""
    use_torch_ptxas()
    try:
        import triton.knobs

        tool = triton.knobs.nvidia.ptxas  # the knob reads TRITON_PTXAS_PATH as it is now
    except (ImportError, AttributeError, RuntimeError):
        return None
    return {"path": tool.path, "version": tool.version}
