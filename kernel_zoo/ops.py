"""What users call: `from kernel_zoo import ops; ops.softmax(x, dim=-1)`.

Each op is a `torch.library` custom op (so torch.compile treats it as one opaque node with a fake
implementation for shape propagation) whose real implementation picks the zoo kernel for the
tensor's GPU arch and dtype, and falls back to the PyTorch reference where no entry fits. Zoo
look-ups and loaded kernels are cached for the life of the process; `clear_cache()` forgets them.

A broken zoo entry (a tampered file, a malformed manifest, a kernel that fails to import) raises
`ZooError`; it is never hidden behind the fallback, since the user believes a verified kernel runs.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

import torch

from kernel_zoo import store

logger = logging.getLogger("kernel_zoo")

Launcher = Callable[[torch.Tensor], torch.Tensor]

# (op, arch, dtype) -> the zoo launcher, or None when no layer has an entry
_launchers: dict[tuple[str, str, str], Launcher | None] = {}
_arch_of_device: dict[int, str] = {}
_reported: set[tuple[str, str]] = set()
_lock = threading.Lock()


def clear_cache() -> None:
    """Forget zoo look-ups, loaded kernels and which fallbacks were already logged."""
    with _lock:
        _launchers.clear()
        _arch_of_device.clear()
        _reported.clear()
    store.clear_loaded()


def _dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _cuda_arch(device: torch.device) -> str:
    index = device.index if device.index is not None else torch.cuda.current_device()
    arch = _arch_of_device.get(index)
    if arch is None:
        major, minor = torch.cuda.get_device_capability(index)
        arch = _arch_of_device[index] = f"sm_{major}{minor}"
    return arch


def _zoo_launcher(op: str, arch: str, dtype: str) -> Launcher | None:
    key = (op, arch, dtype)
    with _lock:
        if key in _launchers:
            return _launchers[key]
    found = store.find_config(op, arch, dtype)
    launcher: Launcher | None = None
    if found is not None:
        manifest, config, entry_dir = found
        module = store.load_kernel(entry_dir, config, manifest)
        launcher = getattr(module, f"launch_{op}", None)
        if not callable(launcher):
            raise store.ZooError(f"{module.__file__}: the kernel has no launch_{op} function")
    with _lock:
        _launchers[key] = launcher
    return launcher


def _report_fallback(op: str, reason: str, level: int) -> None:
    with _lock:
        if (op, reason) in _reported:
            return
        _reported.add((op, reason))
    logger.log(level, "%s", reason)


def _match_fake_layout(out: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """Give `out` the strides of `empty_like(x)`, which is what the fake implementation promises.

    torch.compile plans the ops after this one from the fake's strides, so a real output laid out
    otherwise (torch.softmax returns a contiguous result for a transposed input) would be read
    wrongly. The common case, strides already equal to the input's, costs nothing.
    """
    if out.stride() == x.stride():
        return out
    like = torch.empty_like(x)
    if like.stride() == out.stride():
        return out
    return like.copy_(out)


# ---------------------------------------------------------------------------------------------
# softmax


def _softmax_launcher(x: torch.Tensor, dim: int) -> tuple[Launcher | None, str, int]:
    """The zoo launcher for this call, or None with the reason and the log level for it."""
    dtype = _dtype_name(x.dtype)
    if x.device.type != "cuda":
        reason = f"no zoo entry for softmax on {x.device.type} {dtype}; using torch.softmax"
        return None, reason, logging.INFO
    rank = max(x.dim(), 1)
    if not -rank <= dim < rank or dim % rank != x.dim() - 1:
        reason = (
            f"softmax over dim {dim} of a {x.dim()}-d tensor: zoo kernels reduce the last dim "
            "only; using torch.softmax"
        )
        return None, reason, logging.WARNING
    if x.numel() == 0:
        return None, "softmax of an empty tensor; using torch.softmax", logging.INFO
    arch = _cuda_arch(x.device)
    launcher = _zoo_launcher("softmax", arch, dtype)
    if launcher is None:
        reason = f"no zoo entry for softmax on {arch} {dtype}; using torch.softmax"
        return None, reason, logging.WARNING
    return launcher, "", logging.NOTSET


@torch.library.custom_op("kzoo::softmax", mutates_args=())
def _softmax_op(x: torch.Tensor, dim: int) -> torch.Tensor:
    launcher, reason, level = _softmax_launcher(x, dim)
    if launcher is None:
        _report_fallback("softmax", reason, level)
        out = torch.softmax(x, dim)
    else:
        out = launcher(x)
    return _match_fake_layout(out, x)


@_softmax_op.register_fake
def _softmax_fake(x: torch.Tensor, dim: int) -> torch.Tensor:
    return torch.empty_like(x)


def _softmax_setup_context(ctx: Any, inputs: tuple[Any, ...], output: torch.Tensor) -> None:
    _, dim = inputs
    ctx.save_for_backward(output)
    ctx.dim = dim


def _softmax_backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, None]:
    (y,) = ctx.saved_tensors
    # the row sum of g*y loses most of its bits in half precision; reduce in float32 instead
    compute = torch.float32 if y.dtype in (torch.float16, torch.bfloat16) else y.dtype
    yc, gc = y.to(compute), grad.to(compute)
    grad_x = yc * (gc - (gc * yc).sum(ctx.dim, keepdim=True))
    return grad_x.to(y.dtype), None


torch.library.register_autograd(
    _softmax_op, _softmax_backward, setup_context=_softmax_setup_context
)


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Softmax of `x` along `dim`: the zoo kernel where one fits, else `torch.softmax`.

    Runs the kernel when `x` is on CUDA, `dim` is the last dimension and the zoo (user layer,
    then shipped) has an entry for the device's arch and `x`'s dtype; any other call uses
    `torch.softmax`, and the first fallback of each kind is logged on the "kernel_zoo" logger.

    Registered as the custom op `kzoo::softmax(Tensor x, int dim) -> Tensor`, so it traces under
    `torch.compile(fullgraph=True)`. The backward is the reference's, whichever forward ran:
    with y = softmax(x) and upstream grad g, dx = y * (g - sum(g * y, dim, keepdim=True)),
    computed in float32 for float16 and bfloat16 inputs.

    Raises `ZooError` (`ZooIntegrityError` for a file modified after verification) when the
    matching zoo entry is broken, rather than falling back silently.
    """
    return _softmax_op(x, dim)
