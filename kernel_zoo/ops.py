"""What users call: `from kernel_zoo import ops; ops.softmax(x, dim=-1)`, or a pinned version:
`kernel_zoo.load("softmax", version="1.1.0")(x, dim=-1)`.

Each op is a `torch.library` custom op (so torch.compile treats it as one opaque node with a fake
implementation for shape propagation, and CUDA graphs capture whatever kernel it launches) whose
real implementation picks the zoo kernel for the tensor's GPU arch, dtype and shape bucket (see
`kernel_zoo.buckets`), and falls back to the PyTorch reference where no entry fits, logging that
once on the "kernel_zoo" logger. The op takes the pinned entry's folder as an optional string
argument: absent, the newest entry of the layered zoo serves the call; present, only that entry.
Zoo look-ups and loaded kernels are cached for the life of the process; `clear_cache()` forgets
them. Importing this module reads no zoo file.

| op      | custom op                                              | backward                      |
| ------- | ------------------------------------------------------ | ----------------------------- |
| softmax | `kzoo::softmax(Tensor x, SymInt dim, str? entry=None)` | the reference's, in PyTorch   |

The zoo holds forward kernels only today, so every backward is the reference's formula written
in PyTorch, whichever forward ran (see each op's docstring); a zoo backward kernel would be listed
here.

A broken zoo entry (a tampered file, a malformed manifest, a kernel that fails to import) raises
`ZooError`; it is never hidden behind the fallback, since the user believes a verified kernel runs.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import torch

from kernel_zoo import buckets, store

logger = logging.getLogger("kernel_zoo")

Launcher = Callable[[torch.Tensor], torch.Tensor]

# (op, pinned entry folder or "", arch, dtype, shape bucket) -> the zoo launcher, or None when
# no entry has a config for it
_launchers: dict[tuple[str, str, str, str, str], Launcher | None] = {}
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


def _find(
    op: str, arch: str, dtype: str, bucket: str, entry: str | None
) -> tuple[dict[str, Any], dict[str, Any], Path] | None:
    if entry is None:
        return store.find_config(op, arch, dtype, bucket=bucket)
    entry_dir = Path(entry)
    manifest = store.read_manifest(entry_dir)
    if manifest["op"] != op:
        raise store.ZooError(f"{entry_dir}: holds {manifest['op']}, not {op}")
    config = store.select_config(manifest, arch, dtype, bucket)
    return None if config is None else (manifest, config, entry_dir)


def _zoo_launcher(
    op: str, arch: str, dtype: str, bucket: str = buckets.ANY, entry: str | None = None
) -> Launcher | None:
    """The launcher of the config that serves (arch, dtype, bucket): from the layered zoo, or
    from the one entry folder `entry` when the call is pinned."""
    key = (op, entry or "", arch, dtype, bucket)
    with _lock:
        if key in _launchers:
            return _launchers[key]
    found = _find(op, arch, dtype, bucket, entry)
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


def _softmax_launcher(
    x: torch.Tensor, dim: int, entry: str | None
) -> tuple[Launcher | None, str, int]:
    """The zoo launcher for this call, or None with the reason and the log level for it."""
    dtype = _dtype_name(x.dtype)
    pinned = "" if entry is None else f" in pinned entry {entry}"
    if x.device.type != "cuda":
        reason = f"no zoo entry for softmax on {x.device.type} {dtype}{pinned}; using torch.softmax"
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
    bucket = buckets.bucket_of("softmax", tuple(x.shape))
    launcher = _zoo_launcher("softmax", arch, dtype, bucket, entry)
    if launcher is None:
        reason = f"no zoo entry for softmax on {arch} {dtype}{pinned}; using torch.softmax"
        return None, reason, logging.WARNING
    return launcher, "", logging.NOTSET


def _softmax_impl(x: torch.Tensor, dim: int, entry: str | None) -> torch.Tensor:
    launcher, reason, level = _softmax_launcher(x, dim, entry)
    if launcher is None:
        _report_fallback("softmax", reason, level)
        out = torch.softmax(x, dim)
    else:
        out = launcher(x)
    return _match_fake_layout(out, x)


@torch.library.custom_op("kzoo::softmax", mutates_args=())
def _softmax_op(x: torch.Tensor, dim: int, entry: str | None = None) -> torch.Tensor:
    return _softmax_impl(x, dim, entry)


def _softmax_call(x: torch.Tensor, dim: int, entry: str | None) -> torch.Tensor:
    """The custom op where it is needed (torch.compile traces it; autograd records it), else the
    same implementation called directly: the dispatcher costs an eager call ~10-20 us of host
    time, as much as the kernel itself on a launch-bound tensor."""
    if torch.compiler.is_compiling() or (x.requires_grad and torch.is_grad_enabled()):
        return _softmax_op(x, dim, entry)
    return _softmax_impl(x, dim, entry)


@_softmax_op.register_fake
def _softmax_fake(x: torch.Tensor, dim: int, entry: str | None = None) -> torch.Tensor:
    return torch.empty_like(x)


def _softmax_setup_context(ctx: Any, inputs: tuple[Any, ...], output: torch.Tensor) -> None:
    _, dim, _entry = inputs
    ctx.save_for_backward(output)
    ctx.dim = dim


def _softmax_backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, None, None]:
    (y,) = ctx.saved_tensors
    # the row sum of g*y loses most of its bits in half precision; reduce in float32 instead
    compute = torch.float32 if y.dtype in (torch.float16, torch.bfloat16) else y.dtype
    yc, gc = y.to(compute), grad.to(compute)
    grad_x = yc * (gc - (gc * yc).sum(ctx.dim, keepdim=True))
    return grad_x.to(y.dtype), None, None


torch.library.register_autograd(
    _softmax_op, _softmax_backward, setup_context=_softmax_setup_context
)


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Softmax of `x` along `dim`: the zoo kernel where one fits, else `torch.softmax`.

    Runs the kernel when `x` is on CUDA, `dim` is the last dimension and the zoo (user layer,
    then shipped) has an entry for the device's arch and `x`'s dtype; among that entry's configs,
    the one for the bucket of `x.shape[-1]` (else the nearest bucket, else "any"). Any other call
    uses `torch.softmax`, and the first fallback of each kind is logged on the "kernel_zoo" logger.

    Registered as the custom op `kzoo::softmax(Tensor x, SymInt dim, str? entry=None) -> Tensor`,
    so it traces under `torch.compile(fullgraph=True)`. The backward is the reference's,
    whichever forward ran: with y = softmax(x) and upstream grad g,
    dx = y * (g - sum(g * y, dim, keepdim=True)), computed in float32 for float16 and bfloat16.

    Raises `ZooError` (`ZooIntegrityError` for a file modified after verification) when the
    matching zoo entry is broken, rather than falling back silently.
    """
    return _softmax_call(x, dim, None)


# ---------------------------------------------------------------------------------------------
# pinned versions


class PinnedOp:
    """One zoo entry (op and version), resolved once: calls use its kernels and no other.

    Dispatch inside the entry is as for the unpinned op (arch, dtype, nearest shape bucket), and
    so is the fallback to the reference where the entry has no config for the call. Attributes:
    `op`, `version`, `layer`, `path` (the entry folder), `manifest`.
    """

    op: ClassVar[str]

    def __init__(self, entry: store.Entry) -> None:
        self.version = entry.version
        self.layer = entry.layer
        self.path = entry.path
        self.manifest = entry.manifest
        # a plain str: it is the custom op's `entry` argument, a constant in a compiled graph
        self._entry = str(entry.path)

    def __repr__(self) -> str:
        return f"<kernel_zoo {self.op} {self.version} ({self.layer}) at {self.path}>"


class PinnedSoftmax(PinnedOp):
    op = "softmax"

    def __call__(self, x: torch.Tensor, dim: int = -1) -> torch.Tensor:
        """`ops.softmax(x, dim)` restricted to this entry's kernels; same backward."""
        return _softmax_call(x, dim, self._entry)


_PINNABLE: dict[str, type[PinnedOp]] = {PinnedSoftmax.op: PinnedSoftmax}


def load(op: str, version: str | None = None, *, zoo: str | Path | None = None) -> PinnedOp:
    """Pin `op` at `version` (default: the newest, resolved now, never later).

    The version is looked up in the user zoo, then the shipped one (each numbers its versions
    on its own, so the user zoo's wins when both hold it), or only in the zoo folder `zoo`.
    Every file of the entry is checked against its sha256 here, so a tampered entry is refused
    before any call. Raises ZooError for an unknown op or version, naming what there is.
    """
    pinned = _PINNABLE.get(op)
    if pinned is None:
        known = ", ".join(sorted(_PINNABLE))
        raise store.ZooError(f"kernel_zoo.ops has no op {op!r}; ops: {known}")
    zoo_dirs = None
    if zoo is not None:
        zoo_dir = Path(zoo).expanduser()
        if not zoo_dir.is_dir():
            raise store.ZooError(f"no such zoo folder: {zoo_dir}")
        zoo_dirs = [zoo_dir]
    entry = store.find_entry(op, version, zoo_dirs)
    store.read_entry_files(entry.path, entry.manifest)
    return pinned(entry)
