"""What users call: `from kernel_zoo import ops; ops.rms_norm(x, (4096,), w)`, or a pinned version:
`kernel_zoo.load("softmax", version="1.1.0")(x, dim=-1)`.

Each op is a `torch.library` custom op (so torch.compile treats it as one opaque node with a fake
implementation for shape propagation, and CUDA graphs capture whatever kernel it launches) whose
real implementation picks the zoo kernel for the tensor's GPU arch, dtype and shape bucket (see
`kernel_zoo.buckets`), and falls back to the PyTorch reference where no entry fits, logging that
once on the "kernel_zoo" logger. The op takes the pinned entry's folder as an optional string
argument: absent, the newest entry of the layered zoo serves the call; present, only that entry.
Zoo look-ups and loaded kernels are cached for the life of the process; `clear_cache()` forgets
them. Importing this module reads no zoo file.

`kernel_zoo.load` pins any zoo op: these, matmul and scaled_dot_product_attention, and the
variants that `linear` and `attention` dispatch to by their arguments (linear_bias_gelu,
attention_softcap, ...), each its own zoo op. A non-tensor where an op takes a tensor is a
TypeError naming the op and the argument.

| op            | mirrors                                   | backward                            |
| ------------- | ----------------------------------------- | ----------------------------------- |
| softmax       | torch.softmax(x, dim)                     | closed form, in PyTorch             |
| log_softmax   | torch.log_softmax(x, dim)                 | closed form, in PyTorch             |
| rms_norm      | F.rms_norm(x, shape, weight, eps)         | the reference's, by recomputation   |
| layer_norm    | F.layer_norm(x, shape, weight, bias, eps) | the reference's, by recomputation   |
| add_rms_norm  | (rms_norm(x + r, w), x + r)               | the reference's, by recomputation   |
| cross_entropy | F.cross_entropy(logits, target, ignore)   | the reference's, by recomputation   |
| swiglu, geglu | silu(a) * b, gelu(a) * b                  | the reference's, by recomputation   |
| sum, mean, amax, amin | torch.<op>(x, dim)                | the reference's, by recomputation   |
| argmax        | torch.argmax(x, dim)                      | none (integer output)               |

The zoo holds forward kernels only, so every backward is the reference's formula in PyTorch,
whichever forward ran; "by recomputation" differentiates the reference at the saved inputs.

A broken zoo entry (a tampered file, a malformed manifest, a kernel that fails to import) raises
`ZooError`; it is never hidden behind the fallback, since the user believes a verified kernel runs.
One exception: a CUDA C++ kernel (template `gemm_cuda`, say) is built with nvcc when first loaded,
and where this machine has no nvcc (or one that refuses the source) the call is served by the same
bucket's config of another GPU model of the entry (a Triton kernel) where one loads, else by the
reference, with a warning naming why, logged once.
"""

from __future__ import annotations

import inspect
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import torch
import torch.nn.functional as F

from kernel_zoo import buckets, cuda_ext, store

logger = logging.getLogger("kernel_zoo")

Launcher = Callable[..., Any]

# (op, pinned entry folder or "", arch, dtype, shape bucket, GPU model) -> the zoo launcher, or
# None when no entry has a config for it
_launchers: dict[tuple[str, str, str, str, str, str | None], Launcher | None] = {}
_gpu_of_device: dict[int, tuple[str, str]] = {}
_reported: set[tuple[str, str]] = set()
_lock = threading.Lock()


def clear_cache() -> None:
    """Forget zoo look-ups, loaded kernels and which fallbacks were already logged."""
    with _lock:
        _launchers.clear()
        _choices.clear()
        _gpu_of_device.clear()
        _reported.clear()
    store.clear_loaded()


def _dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _cuda_gpu(device: torch.device) -> tuple[str, str]:
    """The GPU's arch ("sm_90") and model name ("NVIDIA H200"), looked up once per device."""
    index = device.index if device.index is not None else torch.cuda.current_device()
    found = _gpu_of_device.get(index)
    if found is None:
        major, minor = torch.cuda.get_device_capability(index)
        found = _gpu_of_device[index] = (f"sm_{major}{minor}",
                                          torch.cuda.get_device_name(index))
    return found


def _find(
    op: str, arch: str, dtype: str, bucket: str, entry: str | None, gpu: str | None
) -> tuple[dict[str, Any], dict[str, Any], Path] | None:
    if entry is None:
        return store.find_config(op, arch, dtype, bucket=bucket, device=gpu)
    entry_dir = Path(entry)
    manifest = store.read_manifest(entry_dir)
    if manifest["op"] != op:
        raise store.ZooError(f"{entry_dir}: holds {manifest['op']}, not {op}")
    config = store.select_config(manifest, arch, dtype, bucket, gpu)
    return None if config is None else (manifest, config, entry_dir)


def _zoo_launcher(
    op: str, arch: str, dtype: str, bucket: str = buckets.ANY, entry: str | None = None,
    gpu: str | None = None,
) -> Launcher | None:
    """The launcher of the config that serves (arch, dtype, bucket) on the GPU model `gpu` (its
    own config where the bucket has one, else the one promoted last): from the layered zoo, or
    from the one entry folder `entry` when the call is pinned."""
    key = (op, entry or "", arch, dtype, bucket, gpu)
    with _lock:
        if key in _launchers:
            return _launchers[key]
    found = _find(op, arch, dtype, bucket, entry, gpu)
    launcher: Launcher | None = None
    if found is not None:
        manifest, config, entry_dir = found
        try:
            launcher = _load_launcher(op, manifest, config, entry_dir)
        except store.ZooError as err:
            if not isinstance(err.__cause__, cuda_ext.CudaBuildError):
                raise
            launcher = _without_nvcc_build(op, manifest, config, entry_dir, err.__cause__)
    with _lock:
        _launchers[key] = launcher
    return launcher


def _load_launcher(op: str, manifest: dict[str, Any], config: dict[str, Any],
                   entry_dir: Path) -> Launcher:
    module = store.load_kernel(entry_dir, config, manifest)
    launcher = getattr(module, f"launch_{op}", None)
    if not callable(launcher):
        raise store.ZooError(f"{module.__file__}: the kernel has no launch_{op} function")
    return launcher


def _without_nvcc_build(op: str, manifest: dict[str, Any], config: dict[str, Any],
                        entry_dir: Path, cause: Exception) -> Launcher | None:
    """A CUDA C++ kernel (verified where it was promoted, its bytes checked here) that this
    machine cannot build, nvcc missing or refusing it: the same bucket's config of another GPU
    model of the entry (promoted last first) whose kernel loads here, else None (the reference),
    with a warning naming why, once. A tampered or broken file still raises."""
    others = [c for c in reversed(manifest["configs"])
              if (c["arch"], c["dtype"], c["shape_bucket"]) ==
              (config["arch"], config["dtype"], config["shape_bucket"]) and c is not config]
    why = (f"{op}: the {config['device']} kernel of {entry_dir.name} ({config['template']}, "
           f"CUDA C++) cannot be built here: {str(cause).splitlines()[0]}")
    for other in others:
        try:
            launcher = _load_launcher(op, manifest, other, entry_dir)
        except store.ZooError as err:
            if isinstance(err.__cause__, cuda_ext.CudaBuildError):
                continue
            raise
        _report_fallback(op, f"{why}; serving the {other['device']} config's kernel "
                             f"({other['template']})", logging.WARNING)
        return launcher
    _report_fallback(op, f"{why}; no other config of its bucket loads, so the PyTorch reference "
                         "runs", logging.WARNING)
    return None


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
    like = torch.empty_like(x, dtype=out.dtype)
    if like.stride() == out.stride():
        return out
    return like.copy_(out)


def _promised(same_layout: bool, x: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
    """An empty tensor of `out`'s shape and dtype laid out as every zoo op promises torch.compile
    (its fake implementation returns these): x's strides (`empty_like`) for an output of x's
    shape from an op that keeps x's layout, else contiguous."""
    if same_layout and out.shape == x.shape:
        return torch.empty_like(x, dtype=out.dtype)
    return out.new_empty(out.shape)


def _conform(same_layout: bool, x: torch.Tensor, out: Any) -> Any:
    """The real outputs laid out as `_promised` says (copied where they are not): a result laid
    out otherwise (the reference's, for a transposed input) failed torch.compile's stride check
    or, worse, was read with the wrong strides."""
    if isinstance(out, tuple):
        return tuple(_conform(same_layout, x, o) for o in out)
    if not isinstance(out, torch.Tensor):
        return out
    if same_layout and out.shape == x.shape:
        return _match_fake_layout(out, x)
    return out.contiguous()


# ---------------------------------------------------------------------------------------------
# dispatch, shared by every op


@dataclass(frozen=True)
class _Op:
    """One zoo op: its PyTorch reference and what makes a call eligible for a zoo kernel."""

    name: str
    reference: Callable[..., Any]  # the op's arguments (without `entry`) -> the reference result
    reference_name: str  # for the fallback message
    reduces_dim: bool = False  # args[1] is a dim the op reduces over
    same_layout: bool = True  # the output has the first input's shape and strides
    # the op's own reasons to run the reference for these arguments, or None
    ineligible: Callable[[tuple], str | None] = lambda args: None
    # the shape whose bucket a call's config comes from; None: the first input's
    bucket_shape: Callable[[tuple], tuple] | None = None


def _pinned_text(entry: str | None) -> str:
    return "" if entry is None else f" in pinned entry {entry}"


def _dispatch(op: _Op, args: tuple, entry: str | None) -> Any:
    launcher, reason, level, call_args = _choose(op, args, entry)
    if launcher is None:
        _report_fallback(op.name, reason, level)
        out = op.reference(*args)
    else:
        out = launcher(*call_args)
    return _conform(op.same_layout, args[0], out)


# A call's decision (launcher or fallback) depends only on its signature: each tensor's shape, dtype
# and device, and the other arguments. Cached per signature, a repeated call skips the checks,
# the bucket and the zoo look-up (with the launcher's reshapes, 24-39 us of host time per call
# over the launcher before, 12 us after; bench/results/runs/probe-norm-dispatch-*h100.txt).
_Choice = tuple  # (launcher or None, reason, log level, x alone)
_choices: dict[tuple, _Choice] = {}
_MAX_CHOICES = 1024


def _signature(args: tuple) -> tuple:
    return tuple((a.shape, a.dtype, a.device) if isinstance(a, torch.Tensor)
                 else tuple(a) if isinstance(a, list) else a for a in args)


def _choose(op: _Op, args: tuple, entry: str | None):
    """The zoo launcher and its arguments for this call, or None with the reason and log level."""
    try:
        key: tuple | None = (op.name, entry, _signature(args))
        choice = _choices.get(key)
    except TypeError:  # an unhashable argument: decide without the cache
        key, choice = None, None
    if choice is None:
        choice = _decide(op, args, entry)
        if key is not None:
            with _lock:
                if len(_choices) >= _MAX_CHOICES:
                    _choices.clear()
                _choices[key] = choice
    launcher, reason, level, x_alone = choice
    if launcher is None:
        return None, reason, level, args
    return launcher, reason, level, (args[0],) if x_alone else args


def _decide(op: _Op, args: tuple, entry: str | None) -> _Choice:
    """The zoo launcher for a call (None with the reason and log level), and whether it takes
    x alone (an entry from before the strided kernels). Depends on the arguments' signature only."""
    x = args[0]
    dtype = _dtype_name(x.dtype)
    fallback = f"using {op.reference_name}"
    if x.device.type != "cuda":
        return None, (f"no zoo entry for {op.name} on {x.device.type} {dtype}"
                      f"{_pinned_text(entry)}; {fallback}"), logging.INFO, False
    dim = None
    if op.reduces_dim:
        rank = max(x.dim(), 1)
        dim = args[1]
        if not -rank <= dim < rank:
            return None, f"{op.name}: dim {dim} out of range; {fallback}", logging.INFO, False
    if x.numel() == 0:
        return None, f"{op.name} of an empty tensor; {fallback}", logging.INFO, False
    reason = op.ineligible(args)
    if reason is not None:
        return None, f"{op.name}: {reason}; {fallback}", logging.WARNING, False
    arch, gpu = _cuda_gpu(x.device)
    shape = tuple(x.shape) if op.bucket_shape is None else op.bucket_shape(args)
    bucket = buckets.bucket_of(op.name, shape, dim)
    launcher = _zoo_launcher(op.name, arch, dtype, bucket, entry, gpu)
    if launcher is None:
        where = "" if bucket == buckets.ANY else f" (shape bucket {bucket})"
        return None, (f"no zoo entry for {op.name} on {arch} {dtype}{where}"
                      f"{_pinned_text(entry)}; {fallback}"), logging.WARNING, False
    if op.reduces_dim and not launcher.__globals__.get("SUPPORTS_ANY_DIM", False):
        # entries from before the strided kernels: launch_<op>(x) over the last dim only
        if dim % max(x.dim(), 1) != x.dim() - 1:
            return None, (f"{op.name} over dim {dim} of a {x.dim()}-d tensor: this entry's "
                          f"kernels reduce the last dim only; {fallback}"), logging.WARNING, False
        return launcher, "", logging.NOTSET, True
    return launcher, "", logging.NOTSET, False


# op name -> (position, name, optional) of each tensor argument in its schema, for _check_tensors
_TENSOR_ARGS: dict[str, tuple[tuple[int, str, bool], ...]] = {}


def _type_text(value: Any) -> str:
    cls = type(value)
    if cls.__module__ == "builtins":
        return cls.__qualname__
    return f"{cls.__module__}.{cls.__qualname__}"


def _caller(op_name: str) -> str:
    """How the user called `op_name`: its public function, or the custom op where the public
    function has another name (ops.attention's score modifiers are zoo ops of their own)."""
    for public in (op_name, op_name.split("_")[0]):
        if callable(globals().get(public)):
            return f"kernel_zoo.ops.{public}"
    return f"kzoo::{op_name}"


def _not_a_tensor(who: str, name: str, value: Any, optional: bool) -> TypeError:
    """The TypeError for a non-tensor where a tensor (or None, when `optional`) is wanted: left to
    the dispatch, a numpy array or a list fails deep inside it (on `.dtype` or `.device`) with a
    message that names neither the op nor the argument."""
    wanted = "a torch.Tensor or None" if optional else "a torch.Tensor"
    return TypeError(f"{who}: {name} must be {wanted}, got {_type_text(value)}")


def _check_tensors(op: _Op, args: tuple) -> None:
    """The arguments the op's schema types as tensors are tensors (on every call: the caller's
    name is looked up only for the error, and torch.compile traces this)."""
    for position, name, optional in _TENSOR_ARGS.get(op.name, ()):
        value = args[position] if position < len(args) else None
        if not isinstance(value, torch.Tensor) and not (optional and value is None):
            raise _not_a_tensor(_caller(op.name), name, value, optional)


def _shape_list(op_name: str, normalized_shape: Any) -> list:
    """normalized_shape as the custom op takes it. F.rms_norm and F.layer_norm refuse a bare int
    (nn.LayerNorm's constructor is what accepts one), and so does this, in words."""
    if not isinstance(normalized_shape, (tuple, list)):
        raise TypeError(f"kernel_zoo.ops.{op_name}: normalized_shape must be a tuple or list of "
                        f"ints, as for F.{op_name}, got {_type_text(normalized_shape)}"
                        + (f"; write ({normalized_shape},)" if isinstance(normalized_shape, int)
                           else ""))
    return list(normalized_shape)


def _call(op: _Op, custom_op: Any, args: tuple, entry: str | None) -> Any:
    """The custom op where it is needed (torch.compile traces it; autograd records it), else the
    same implementation called directly: the dispatcher costs an eager call ~10-20 us of host
    time, as much as the kernel itself on a launch-bound tensor."""
    _check_tensors(op, args)
    if op.reduces_dim and isinstance(args[1], (tuple, list)):
        # zoo kernels reduce one dim, the schema's dim is one int: PyTorch itself (traced as it
        # is under torch.compile, where the log's lock cannot be)
        if not torch.compiler.is_compiling():
            _report_fallback(op.name, f"{op.name} over several dims; using {op.reference_name}",
                             logging.INFO)
        return op.reference(*args)
    tensors = [a for a in args if isinstance(a, torch.Tensor)]
    grad = torch.is_grad_enabled() and any(t.requires_grad for t in tensors)
    if torch.compiler.is_compiling() or grad:
        return custom_op(*args, entry)
    return _dispatch(op, args, entry)


def _register_recompute_autograd(custom_op: Any, op: _Op) -> None:
    """Backward by differentiating the PyTorch reference at the saved inputs: the zoo holds
    forward kernels, and this keeps every op's gradient the reference's."""

    def setup_context(ctx: Any, inputs: tuple, output: Any) -> None:
        tensor_positions = [i for i, a in enumerate(inputs) if isinstance(a, torch.Tensor)]
        ctx.save_for_backward(*(inputs[i] for i in tensor_positions))
        ctx.tensor_positions = tensor_positions
        ctx.others = [None if isinstance(a, torch.Tensor) else a for a in inputs]

    def backward(ctx: Any, *grads: torch.Tensor) -> tuple:
        # Grad mode is on in a backward only under create_graph=True (a second derivative, a
        # gradient penalty): the gradient is then built from views of the inputs, so it is
        # differentiable in turn (detached copies dropped its own derivative silently), and each
        # partial derivative is taken at its own view (at the inputs themselves, one input
        # computed from another, as swiglu(x, 2 * x), would add that path in twice).
        create_graph = torch.is_grad_enabled()
        args = list(ctx.others)
        leaves = []
        with torch.enable_grad():
            for i, saved in zip(ctx.tensor_positions, ctx.saved_tensors):
                wants = ctx.needs_input_grad[i] and saved.is_floating_point()
                args[i] = (saved.view_as(saved) if create_graph and wants
                           else saved.detach().requires_grad_(wants))
                if wants:
                    leaves.append(i)
            out = op.reference(*args[:-1])  # the last input is the pinned entry
            outs = out if isinstance(out, tuple) else (out,)
            upstream = [g if g is not None else torch.zeros_like(o) for g, o in zip(grads, outs)]
            found = torch.autograd.grad(outs, [args[i] for i in leaves], upstream,
                                        allow_unused=True,
                                        create_graph=create_graph) if leaves else ()
        result: list[Any] = [None] * len(args)
        for i, g in zip(leaves, found):
            result[i] = g
        return tuple(result)

    torch.library.register_autograd(custom_op, backward, setup_context=setup_context)


def reference_fake(reference: Callable[..., Any], same_layout: bool) -> Callable[..., Any]:
    """A fake implementation that runs the PyTorch reference on the fake inputs: each output's
    shape and dtype are the reference's (type promotion included: sum of bool is int64, a
    float16 times a float32 is float32), its layout `_promised`'s. A fake written by hand that
    promised x's dtype had torch.compile read an int64 or float32 result as x's dtype: wrong
    values, no error."""

    def fake(*args: Any) -> Any:
        out = reference(*args)
        if isinstance(out, tuple):
            return tuple(_promised(same_layout, args[0], o) for o in out)
        return _promised(same_layout, args[0], out)

    return fake


def _define(op: _Op, schema: str, differentiable: bool = True):
    """The custom op `kzoo::<name>` over `_dispatch`, with its fake (`reference_fake`) and (by
    recompute) autograd."""

    # The dispatcher may pass trailing arguments that equal their defaults as keywords, or not at
    # all: put every argument back in schema order.
    arguments = torch._C.parse_schema(f"kzoo::{op.name}{schema}").arguments
    defaults = {a.name: a.default_value for a in arguments if a.has_default_value()}
    _TENSOR_ARGS[op.name] = tuple(
        (i, a.name, str(a.type) == "Optional[Tensor]") for i, a in enumerate(arguments)
        if str(a.type) in ("Tensor", "Optional[Tensor]"))

    def in_order(args: tuple, kwargs: dict) -> tuple[tuple, str | None]:
        full = list(args) + [kwargs.get(a.name, defaults.get(a.name))
                             for a in arguments[len(args):]]
        *call_args, entry = full
        return tuple(call_args), entry

    def impl(*args: Any, **kwargs: Any) -> Any:
        return _dispatch(op, *in_order(args, kwargs))

    fake_of = reference_fake(op.reference, op.same_layout)

    def fake(*args: Any, **kwargs: Any) -> Any:
        return fake_of(*in_order(args, kwargs)[0])

    custom_op = torch.library.custom_op(f"kzoo::{op.name}", impl, mutates_args=(), schema=schema)
    custom_op.register_fake(fake)
    if differentiable:
        _register_recompute_autograd(custom_op, op)
    return custom_op


def _same_dtype_device(x: torch.Tensor, others: dict[str, Any]) -> str | None:
    for name, t in others.items():
        if t is None:
            continue
        if t.device != x.device or t.dtype != x.dtype:
            return (f"{name} is {t.dtype} on {t.device}, the input {x.dtype} on {x.device} "
                    "(zoo kernels take one dtype)")
    return None


def _norm_ineligible(args: tuple) -> str | None:
    x, shape, weight = args[0], list(args[1]), args[2]
    bias = args[3] if len(args) > 4 else None
    if list(x.shape[x.dim() - len(shape):]) != shape or len(shape) > x.dim():
        return f"normalized_shape {shape} does not end x's shape {list(x.shape)}"
    for name, vec in (("weight", weight), ("bias", bias)):
        if vec is not None and list(vec.shape) != shape:
            return f"{name} shape {list(vec.shape)} is not normalized_shape {shape}"
    return _same_dtype_device(x, {"weight": weight, "bias": bias})


# ---------------------------------------------------------------------------------------------
# the ops


SOFTMAX = _Op("softmax", lambda x, dim: torch.softmax(x, dim), "torch.softmax", reduces_dim=True)
LOG_SOFTMAX = _Op("log_softmax", lambda x, dim: torch.log_softmax(x, dim), "torch.log_softmax",
                  reduces_dim=True)
RMS_NORM = _Op(
    "rms_norm", lambda x, shape, weight, eps: F.rms_norm(x, shape, weight, eps), "F.rms_norm",
    ineligible=_norm_ineligible,
)
LAYER_NORM = _Op(
    "layer_norm", lambda x, shape, weight, bias, eps: F.layer_norm(x, shape, weight, bias, eps),
    "F.layer_norm", ineligible=_norm_ineligible,
)


def _add_rms_norm_reference(x, residual, weight, eps):
    s = x + residual
    if weight.dim() != 1 or s.dim() == 0 or weight.shape[0] != s.shape[-1]:
        # F.rms_norm's own error took the weight's shape for the normalized shape and blamed x
        raise ValueError(f"kernel_zoo.ops.add_rms_norm: weight has shape {list(weight.shape)}; "
                         f"it must be ({s.shape[-1] if s.dim() else 1},), the last dim of "
                         f"x + residual {list(s.shape)}")
    return F.rms_norm(s, list(weight.shape), weight, eps), s


def _add_rms_norm_ineligible(args: tuple) -> str | None:
    x, residual, weight = args[0], args[1], args[2]
    if residual.shape != x.shape:
        return f"residual {list(residual.shape)} is not x's shape {list(x.shape)}"
    if weight.dim() != 1 or x.dim() == 0 or weight.shape[0] != x.shape[-1]:
        return f"weight {list(weight.shape)} does not match x's last dim"
    return _same_dtype_device(x, {"residual": residual, "weight": weight})


ADD_RMS_NORM = _Op("add_rms_norm", _add_rms_norm_reference, "x + residual and F.rms_norm",
                   same_layout=False, ineligible=_add_rms_norm_ineligible)


def _cross_entropy_ineligible(args: tuple) -> str | None:
    logits, target = args[0], args[1]
    if logits.dim() != 2 or target.dim() != 1 or target.shape[0] != logits.shape[0]:
        return "zoo kernels take (N, C) logits and (N,) class indices"
    if target.dtype != torch.int64 or target.device != logits.device:
        return f"target is {target.dtype} on {target.device}; zoo kernels take int64 on the GPU"
    return None


CROSS_ENTROPY = _Op(
    "cross_entropy",
    lambda logits, target, ignore_index: F.cross_entropy(logits, target, ignore_index=ignore_index),
    "F.cross_entropy", same_layout=False, ineligible=_cross_entropy_ineligible,
)


def _gated_ineligible(args: tuple) -> str | None:
    a, b = args
    if a.shape != b.shape:
        return f"the two inputs differ in shape ({list(a.shape)}, {list(b.shape)})"
    return _same_dtype_device(a, {"b": b})


SWIGLU = _Op("swiglu", lambda a, b: F.silu(a) * b, "F.silu(a) * b", ineligible=_gated_ineligible)
GEGLU = _Op("geglu", lambda a, b: F.gelu(a) * b, "F.gelu(a) * b", ineligible=_gated_ineligible)

REDUCTIONS = {
    name: _Op(name, fn, f"torch.{name}", reduces_dim=True, same_layout=False)
    for name, fn in (
        ("sum", lambda x, dim: torch.sum(x, dim)), ("mean", lambda x, dim: torch.mean(x, dim)),
        ("amax", lambda x, dim: torch.amax(x, dim)), ("amin", lambda x, dim: torch.amin(x, dim)),
        ("argmax", lambda x, dim: torch.argmax(x, dim)),
    )
}

_DIM_SCHEMA = "(Tensor x, SymInt dim, str? entry=None) -> Tensor"
_softmax_op = _define(SOFTMAX, _DIM_SCHEMA, differentiable=False)
_log_softmax_op = _define(LOG_SOFTMAX, _DIM_SCHEMA, differentiable=False)
_rms_norm_op = _define(
    RMS_NORM,
    "(Tensor x, SymInt[] normalized_shape, Tensor? weight=None, float? eps=None, "
    "str? entry=None) -> Tensor",
)
_layer_norm_op = _define(
    LAYER_NORM,
    "(Tensor x, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None, "
    "float eps=1e-05, str? entry=None) -> Tensor",
)
_add_rms_norm_op = _define(
    ADD_RMS_NORM,
    "(Tensor x, Tensor residual, Tensor weight, float eps=1e-06, str? entry=None) "
    "-> (Tensor, Tensor)",
)
_cross_entropy_op = _define(
    CROSS_ENTROPY,
    "(Tensor logits, Tensor target, SymInt ignore_index=-100, str? entry=None) -> Tensor",
)
_GATED_SCHEMA = "(Tensor a, Tensor b, str? entry=None) -> Tensor"
_swiglu_op = _define(SWIGLU, _GATED_SCHEMA)
_geglu_op = _define(GEGLU, _GATED_SCHEMA)
_reduction_ops = {
    name: _define(op, _DIM_SCHEMA, differentiable=name != "argmax")
    for name, op in REDUCTIONS.items()
}


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


def _log_softmax_backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, None, None]:
    (y,) = ctx.saved_tensors
    compute = torch.float32 if y.dtype in (torch.float16, torch.bfloat16) else y.dtype
    yc, gc = y.to(compute), grad.to(compute)
    grad_x = gc - yc.exp() * gc.sum(ctx.dim, keepdim=True)
    return grad_x.to(y.dtype), None, None


torch.library.register_autograd(
    _softmax_op, _softmax_backward, setup_context=_softmax_setup_context
)
torch.library.register_autograd(
    _log_softmax_op, _log_softmax_backward, setup_context=_softmax_setup_context
)


# ---------------------------------------------------------------------------------------------
# the public functions (torch.nn.functional's signatures where there is a counterpart)


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Softmax of `x` along `dim`: the zoo kernel where one fits, else `torch.softmax`.

    Runs the kernel when `x` is on CUDA and the zoo (user layer, then shipped) has an entry for
    the device's arch and `x`'s dtype; among that entry's configs, the one for the bucket of
    the call (the width of the last dim, or "inner_dim" for another dim), else the nearest.
    Entries older than the strided kernels serve the last dim only. Any other call uses
    `torch.softmax`, and the first fallback of each kind is logged on the "kernel_zoo" logger.

    Registered as `kzoo::softmax(Tensor x, SymInt dim, str? entry=None) -> Tensor`, so it traces
    under `torch.compile(fullgraph=True)`. The backward is the reference's, whichever forward
    ran: with y = softmax(x) and upstream grad g, dx = y * (g - sum(g * y, dim, keepdim=True)),
    computed in float32 for float16 and bfloat16.

    Raises `ZooError` (`ZooIntegrityError` for a file modified after verification) when the
    matching zoo entry is broken, rather than falling back silently.
    """
    return _call(SOFTMAX, _softmax_op, (x, dim), None)


def log_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Log-softmax of `x` along `dim`; dispatch and fallback as `softmax` (`kzoo::log_softmax`).
    Backward: dx = g - exp(y) * sum(g, dim, keepdim=True), in float32 for half types."""
    return _call(LOG_SOFTMAX, _log_softmax_op, (x, dim), None)


def rms_norm(x: torch.Tensor, normalized_shape: list[int] | tuple[int, ...],
             weight: torch.Tensor | None = None, eps: float | None = None) -> torch.Tensor:
    """`F.rms_norm`: RMSNorm over the trailing `normalized_shape` dims (eps None: the dtype's
    machine epsilon). Zoo kernel on CUDA when weight (if any) has x's dtype; `kzoo::rms_norm`."""
    shape = _shape_list("rms_norm", normalized_shape)
    return _call(RMS_NORM, _rms_norm_op, (x, shape, weight, eps), None)


def layer_norm(x: torch.Tensor, normalized_shape: list[int] | tuple[int, ...],
               weight: torch.Tensor | None = None, bias: torch.Tensor | None = None,
               eps: float = 1e-5) -> torch.Tensor:
    """`F.layer_norm` (biased variance); zoo kernel as `rms_norm`; `kzoo::layer_norm`."""
    shape = _shape_list("layer_norm", normalized_shape)
    return _call(LAYER_NORM, _layer_norm_op, (x, shape, weight, bias, eps), None)


def add_rms_norm(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor,
                 eps: float = 1e-6) -> tuple[torch.Tensor, torch.Tensor]:
    """`(rms_norm(x + residual, weight), x + residual)` in one pass over the data, the sum rounded
    to its dtype (x's; the promoted one where residual's differs, as `x + residual` is) before it
    is normalized (as the unfused code computes it); `kzoo::add_rms_norm`."""
    return _call(ADD_RMS_NORM, _add_rms_norm_op, (x, residual, weight, eps), None)


def cross_entropy(logits: torch.Tensor, target: torch.Tensor,
                  ignore_index: int = -100) -> torch.Tensor:
    """`F.cross_entropy(logits, target, ignore_index=...)` with mean reduction over the targets
    that are not ignored, for (N, C) logits; `kzoo::cross_entropy`."""
    if isinstance(ignore_index, bool) or not isinstance(ignore_index, (int, torch.SymInt)):
        # F.cross_entropy's third argument is `weight`: a tensor here is that, unsupported
        raise TypeError(
            f"kernel_zoo.ops.cross_entropy: ignore_index (the third argument) must be an int, "
            f"got {_type_text(ignore_index)}"
            + ("; class weights (F.cross_entropy's third argument) are not supported here: "
               "call F.cross_entropy for them" if isinstance(ignore_index, torch.Tensor) else ""))
    return _call(CROSS_ENTROPY, _cross_entropy_op, (logits, target, ignore_index), None)


def swiglu(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """`silu(a) * b`, one kernel (`kzoo::swiglu`)."""
    return _call(SWIGLU, _swiglu_op, (a, b), None)


def geglu(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """`gelu(a) * b` with the exact (erf) GELU, one kernel (`kzoo::geglu`)."""
    return _call(GEGLU, _geglu_op, (a, b), None)


def sum(x: torch.Tensor, dim: int) -> torch.Tensor:  # noqa: A001 - mirrors torch.sum
    """`torch.sum(x, dim)` (keepdim=False), accumulated in float32; `kzoo::sum`."""
    return _call(REDUCTIONS["sum"], _reduction_ops["sum"], (x, dim), None)


def mean(x: torch.Tensor, dim: int) -> torch.Tensor:
    """`torch.mean(x, dim)` (keepdim=False), accumulated in float32; `kzoo::mean`."""
    return _call(REDUCTIONS["mean"], _reduction_ops["mean"], (x, dim), None)


def amax(x: torch.Tensor, dim: int) -> torch.Tensor:
    """`torch.amax(x, dim)`; `kzoo::amax`."""
    return _call(REDUCTIONS["amax"], _reduction_ops["amax"], (x, dim), None)


def amin(x: torch.Tensor, dim: int) -> torch.Tensor:
    """`torch.amin(x, dim)`; `kzoo::amin`."""
    return _call(REDUCTIONS["amin"], _reduction_ops["amin"], (x, dim), None)


def argmax(x: torch.Tensor, dim: int) -> torch.Tensor:
    """`torch.argmax(x, dim)`: int64, the first index of the maximum; `kzoo::argmax`."""
    return _call(REDUCTIONS["argmax"], _reduction_ops["argmax"], (x, dim), None)


# ---------------------------------------------------------------------------------------------
# pinned versions

_PUBLIC: dict[str, tuple[Callable[..., Any], _Op, Any]] = {
    "softmax": (softmax, SOFTMAX, _softmax_op),
    "log_softmax": (log_softmax, LOG_SOFTMAX, _log_softmax_op),
    "rms_norm": (rms_norm, RMS_NORM, _rms_norm_op),
    "layer_norm": (layer_norm, LAYER_NORM, _layer_norm_op),
    "add_rms_norm": (add_rms_norm, ADD_RMS_NORM, _add_rms_norm_op),
    "cross_entropy": (cross_entropy, CROSS_ENTROPY, _cross_entropy_op),
    "swiglu": (swiglu, SWIGLU, _swiglu_op),
    "geglu": (geglu, GEGLU, _geglu_op),
    **{name: (globals()[name], REDUCTIONS[name], _reduction_ops[name]) for name in REDUCTIONS},
}


class PinnedOp:
    """One zoo entry (op and version), resolved once: calls use its kernels and no other.

    Called like the op's public function (`kernel_zoo.ops.<op>`). Dispatch inside the entry is as
    for the unpinned op (arch, dtype, nearest shape bucket), and so is the fallback to the
    reference where the entry has no config for the call. Attributes: `op`, `version`, `layer`,
    `path` (the entry folder), `manifest`.
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

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        public, op, custom_op = _PUBLIC[self.op]
        bound = inspect.signature(public).bind(*args, **kwargs)
        bound.apply_defaults()
        call_args = tuple(bound.arguments.values())
        if op in (RMS_NORM, LAYER_NORM):  # the custom op takes the shape as a list
            call_args = (call_args[0], _shape_list(op.name, call_args[1]), *call_args[2:])
        return _call(op, custom_op, call_args, self._entry)


class PinnedSoftmax(PinnedOp):
    op = "softmax"

    def __call__(self, x: torch.Tensor, dim: int = -1) -> torch.Tensor:
        """`ops.softmax(x, dim)` restricted to this entry's kernels; same backward."""
        return _call(SOFTMAX, _softmax_op, (x, dim), self._entry)


_PINNABLE: dict[str, type[PinnedOp]] = {
    name: PinnedSoftmax if name == "softmax" else type(f"Pinned_{name}", (PinnedOp,), {"op": name})
    for name in _PUBLIC
}


def load(op: str, version: str | None = None, *, zoo: str | Path | None = None) -> PinnedOp:
    """Pin `op` at `version` (default: the newest, resolved now, never later).

    The version is looked up in the user zoo, then the shipped one (each numbers its versions
    on its own, so the user zoo's wins when both hold it), or only in the zoo folder `zoo`.
    Every file of the entry is checked against its sha256 here, so a tampered entry is refused
    before any call. Raises ZooError for an unknown op or version, naming what there is.

    `op` is a zoo op: a public function's name (softmax, matmul, scaled_dot_product_attention,
    ...), one linear variant (linear, linear_bias, linear_bias_gelu, ...: PinnedLinear) or one
    attention score modifier (attention_relpos, attention_alibi, attention_softcap), each of
    which `ops.linear` and `ops.attention` dispatch to by their arguments.
    """
    pinned = _PINNABLE.get(op)
    if pinned is None:
        known = ", ".join(sorted(_PINNABLE))
        if op in _UNPINNABLE:
            raise store.ZooError(f"kernel_zoo.load cannot pin {op!r} ({_UNPINNABLE[op]}); "
                                 f"ops it can pin: {known}")
        raise store.ZooError(f"kernel_zoo.ops has no op {op!r}; ops: {known}")
    if version is not None and not isinstance(version, str):
        raise TypeError(f"kernel_zoo.load: version must be a string such as '1.1.0' (`kzoo zoo "
                        f"list` shows them), got {_type_text(version)} {version!r}")
    zoo_dirs = None
    if zoo is not None:
        zoo_dir = Path(zoo).expanduser()
        if not zoo_dir.is_dir():
            raise store.ZooError(f"no such zoo folder: {zoo_dir}")
        zoo_dirs = [zoo_dir]
    entry = store.find_entry(op, version, zoo_dirs)
    store.read_entry_files(entry.path, entry.manifest)
    return pinned(entry)
from kernel_zoo._ops_gemm import linear, matmul  # noqa: E402
from kernel_zoo._ops_attention import attention, scaled_dot_product_attention  # noqa: E402


# ---------------------------------------------------------------------------------------------
# pinning the GEMM and attention ops, whose zoo ops are one per variant (defined after the imports
# above, which build on this module)

from kernel_zoo import _ops_attention, _ops_gemm  # noqa: E402

_PUBLIC["matmul"] = (matmul, _ops_gemm.MATMUL, _ops_gemm._matmul_op)
_PINNABLE["matmul"] = type("Pinned_matmul", (PinnedOp,), {"op": "matmul"})


class PinnedAttention(PinnedOp):
    """An entry of scaled_dot_product_attention or of one score modifier's zoo op
    (attention_relpos, attention_alibi, attention_softcap): called like `ops.attention` without
    score_mod, since the entry's op fixes it."""

    score_mod: ClassVar[str | None]

    def __call__(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, is_causal: bool = False,
                 scale: float | None = None,
                 softcap: float = _ops_attention.DEFAULT_SOFTCAP) -> torch.Tensor:
        args = (q, k, v, bool(is_causal), scale)
        if self.score_mod is None:
            return _call(_ops_attention.SDPA, _ops_attention._sdpa_op, args, self._entry)
        if self.score_mod == "softcap":
            args = (*args, float(softcap))
        return _call(_ops_attention.ATTENTION[self.score_mod],
                     _ops_attention._attention_ops[self.score_mod], args, self._entry)


class PinnedLinear(PinnedOp):
    """An entry of one linear variant (linear, linear_bias, linear_bias_gelu, ...): called as
    `(x, weight)` or `(x, weight, bias)` as the variant's name says; its activation is the
    name's (`ops.linear`'s activation argument picks the variant, which the entry fixes)."""

    has_bias: ClassVar[bool]
    activation: ClassVar[str | None]

    def __call__(self, x: torch.Tensor, weight: torch.Tensor,
                 bias: torch.Tensor | None = None) -> torch.Tensor:
        if (bias is not None) != self.has_bias:
            wanted = _ops_gemm.variant_name(bias is not None, self.activation)
            raise TypeError(f"pinned {self.op} takes {'a' if self.has_bias else 'no'} bias "
                            f"(its kernel fixes the epilogue); for this call pin {wanted} (once "
                            f"the zoo holds an entry of it: `kzoo zoo list`), or call "
                            f"kernel_zoo.ops.linear, which falls back to PyTorch where none is")
        return _ops_gemm.linear_call(f"pinned {self.op}", x, weight, bias, self.activation,
                                     self._entry)


_PINNABLE["scaled_dot_product_attention"] = type(
    "Pinned_scaled_dot_product_attention", (PinnedAttention,),
    {"op": "scaled_dot_product_attention", "score_mod": None})
_PINNABLE.update({
    op.name: type(f"Pinned_{op.name}", (PinnedAttention,), {"op": op.name, "score_mod": mod})
    for mod, op in _ops_attention.ATTENTION.items()
})
_PINNABLE.update({
    op.name: type(f"Pinned_{op.name}", (PinnedLinear,),
                  {"op": op.name, "has_bias": has_bias, "activation": activation})
    for (has_bias, activation), op in _ops_gemm.VARIANTS.items()
})

# public functions that dispatch to one zoo op per variant: pin the variant
_UNPINNABLE = {
    "attention": "it dispatches to one zoo op per score_mod; pin attention_relpos, "
                 "attention_alibi or attention_softcap, or scaled_dot_product_attention for "
                 "score_mod=None, whichever the zoo holds an entry of (`kzoo zoo list`; the "
                 "shipped zoo: attention_relpos and attention_softcap)",
}

