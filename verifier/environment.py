"""The software and hardware a result was obtained on; saved beside every verdict and benchmark."""

from __future__ import annotations

import datetime as _dt
import platform
import subprocess


def _driver_version() -> str | None:
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=10, check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    line = out.stdout.strip().splitlines()
    return line[0].strip() if out.returncode == 0 and line else None


def device_arch() -> str | None:
    """`sm_90` style name of the current CUDA device, None without one."""
    import torch

    if not torch.cuda.is_available():
        return None
    major, minor = torch.cuda.get_device_capability()
    return f"sm_{major}{minor}"


def environment() -> dict:
    """GPU, driver, CUDA, torch, triton, the ptxas that assembles Triton's kernels in this
    process (kernel_zoo.toolchain's choice, made here if nothing made it before), Python, the UTC
    date and, with a GPU, how the timer flushes the L2 before each timed run (`l2_flush`) and
    orders the variants' calls (`call_order`, verifier.timing.CALL_ORDER), as a JSON-ready
    dict."""
    import torch
    import triton

    from kernel_zoo.toolchain import ptxas_in_use
    from verifier.timing import CALL_ORDER, FLUSH_MODE, flush_mode_supported

    cuda = torch.cuda.is_available()
    return {
        "gpu": torch.cuda.get_device_name() if cuda else None,
        "arch": device_arch(),
        "sm_count": torch.cuda.get_device_properties(0).multi_processor_count if cuda else None,
        "driver": _driver_version() if cuda else None,
        "cuda": torch.version.cuda,
        "torch": torch.__version__,
        "triton": triton.__version__,
        "ptxas": ptxas_in_use(),
        "python": platform.python_version(),
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "l2_flush": (FLUSH_MODE if flush_mode_supported(torch.device("cuda")) else "write")
        if cuda else None,
        "call_order": CALL_ORDER if cuda else None,
    }


def device_label() -> str:
    """Short, file-name-safe device name: `h100`, `h200`, ... or `cpu-interpreter`."""
    import torch

    if not torch.cuda.is_available():
        return "cpu-interpreter"
    return label_of(torch.cuda.get_device_name())


def label_of(device_name: str) -> str:
    """`device_label` for a GPU model named as torch.cuda.get_device_name() names it."""
    name = device_name.lower()
    for known in ("h200", "h100", "a100", "l40s", "l4", "a10g", "b200", "gb200"):
        if known in name:
            return known
    return "".join(c if c.isalnum() else "-" for c in name).strip("-")
