"""Capture a task's Model.forward as a flat torch.fx graph on meta tensors (no GPU, no real memory).

Shared by the planner (agent.plan), `kzoo analyze` and the verifier, which allows a candidate the
library calls (a convolution, say) that the reference itself makes, and no others.
"""

from __future__ import annotations

import contextlib
import io

import torch
import torch.fx
import torch.nn.functional as F


class CaptureError(Exception):
    """The task's forward cannot be captured; the message says why and what to do."""


class FlatTracer(torch.fx.Tracer):
    """Traces through every module, torch.nn's included: a Linear becomes F.linear over get_attr
    weights, a Conv2d F.conv2d, a LayerNorm F.layer_norm. Matchers then read one form, and a
    composed candidate can call a library op by its functional name with the Model's parameters."""

    def is_leaf_module(self, m: torch.nn.Module, module_qualified_name: str) -> bool:
        # BatchNorm and InstanceNorm check their input's rank in Python; they are recorded
        # whole and rewritten into their functional calls (_functional_norms).
        return isinstance(m, _NORM_MODULES)


_NORM_MODULES = (torch.nn.modules.batchnorm._BatchNorm, torch.nn.modules.instancenorm._InstanceNorm)


def _functional_norms(gm: torch.fx.GraphModule) -> None:
    """call_module BatchNorm/InstanceNorm -> F.batch_norm / F.instance_norm over get_attr reads,
    as their forward computes in eval mode."""
    graph = gm.graph
    for node in list(graph.nodes):
        if node.op != "call_module":
            continue
        module = gm.get_submodule(node.target)
        if not isinstance(module, _NORM_MODULES):
            continue
        with graph.inserting_before(node):
            def read(name):
                return graph.get_attr(f"{node.target}.{name}") if getattr(
                    module, name, None) is not None else None
            mean, var = read("running_mean"), read("running_var")
            weight, bias = read("weight"), read("bias")
            if isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
                training = module.training or mean is None
                new = graph.call_function(F.batch_norm, (node.args[0], mean, var, weight, bias,
                                                         training, module.momentum or 0.0,
                                                         module.eps))
            else:
                use_input_stats = module.training or not module.track_running_stats
                new = graph.call_function(F.instance_norm, (
                    node.args[0], mean, var, weight, bias, use_input_stats,
                    module.momentum or 0.0, module.eps))
        node.replace_all_uses_with(new)
        graph.erase_node(node)
    graph.lint()
    gm.recompile()


def capture(task) -> tuple[torch.fx.GraphModule, list]:
    """fx graph of Model(*get_init_inputs()).forward(*get_inputs()) with shapes propagated."""
    with torch.device("meta"):
        model = task.make_model()
        inputs = task.make_inputs()
    model.eval()  # the verifier judges the model in eval mode (BatchNorm reads its running stats)
    for name, tensor in list(model.named_parameters()) + list(model.named_buffers()):
        if tensor.device.type != "meta":
            raise CaptureError(
                f"{task.path}: Model's {name} was created on {tensor.device.type}, not on the "
                "default device. Create parameters and buffers without a device= argument (the "
                "verifier places the model on the device it runs on).")
    try:
        graph = FlatTracer().trace(model)
    except Exception as exc:
        raise CaptureError(
            f"{task.path}: torch.fx could not trace Model.forward ({type(exc).__name__}: {exc}). "
            "Data-dependent control flow (an `if` on a tensor's values, a loop over a tensor) "
            "cannot be captured; write the op without it, or configure an LLM (--llm MODEL), "
            "which writes the kernel from the source instead."
        ) from exc
    gm = torch.fx.GraphModule(model, graph)
    _functional_norms(gm)
    propagate(gm, inputs, task)
    from verifier.decompose import decompose

    if decompose(gm):  # composite functions written out in the primitives the planner matches
        propagate(gm, inputs, task)
    _check_dtypes(gm, task)
    return gm, inputs


# Inputs the verifier can draw and judge: floating tensors are cast to the dtype under test
# (float32, bfloat16, float16), integer and bool ones (indices, targets, masks) are kept.
_SUPPORTED = (torch.float64, torch.float32, torch.float16, torch.bfloat16, torch.int64,
              torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool)


def _check_dtypes(gm: torch.fx.GraphModule, task) -> None:
    for node in gm.graph.nodes:
        if node.op != "placeholder":
            continue
        dtype = getattr(node.meta.get("tensor_meta"), "dtype", None)
        if dtype is not None and dtype not in _SUPPORTED:
            raise CaptureError(
                f"{task.path}: forward argument {node.name!r} is {dtype}, which kernel-zoo does not "
                "take: floating inputs are judged in float32, bfloat16 and float16, integer and "
                "bool inputs (indices, targets, masks) as they are. Convert it in get_inputs().")


def propagate(gm: torch.fx.GraphModule, inputs: list, task) -> None:
    from torch.fx.passes.shape_prop import ShapeProp

    # ShapeProp prints the traceback of a failing node before it raises: the user gets the one
    # line below instead, naming torch's own reason (the exception ShapeProp wraps)
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            ShapeProp(gm).propagate(*inputs)
    except Exception as exc:
        cause = exc.__cause__ or exc
        reason = str(cause).strip().splitlines()[0] if str(cause).strip() else ""
        raise CaptureError(
            f"{task.path}: shape propagation failed: {type(cause).__name__}: {reason}") from exc


# Library ops: no template generates them; a candidate may call them where the reference does.
# fx target -> the call a composed candidate makes (resolvable from `import torch`).
LIBRARY_CALLS: dict = {
    F.conv1d: "torch.conv1d", F.conv2d: "torch.conv2d", F.conv3d: "torch.conv3d",
    F.conv_transpose1d: "torch.conv_transpose1d", F.conv_transpose2d: "torch.conv_transpose2d",
    F.conv_transpose3d: "torch.conv_transpose3d",
    F.max_pool1d: "torch.nn.functional.max_pool1d", F.max_pool2d: "torch.nn.functional.max_pool2d",
    F.max_pool3d: "torch.nn.functional.max_pool3d", F.avg_pool1d: "torch.nn.functional.avg_pool1d",
    F.avg_pool2d: "torch.nn.functional.avg_pool2d", F.avg_pool3d: "torch.nn.functional.avg_pool3d",
    F.adaptive_avg_pool1d: "torch.nn.functional.adaptive_avg_pool1d",
    F.adaptive_avg_pool2d: "torch.nn.functional.adaptive_avg_pool2d",
    F.adaptive_avg_pool3d: "torch.nn.functional.adaptive_avg_pool3d",
    F.adaptive_max_pool2d: "torch.nn.functional.adaptive_max_pool2d",
    F.embedding: "torch.nn.functional.embedding", F.interpolate: "torch.nn.functional.interpolate",
    F.pad: "torch.nn.functional.pad",
    # scans, reversals, triangles and diagonals (Tensor methods are rewritten to these by
    # verifier.decompose): no template generates them; the pointwise ops around them are fused
    torch.cumsum: "torch.cumsum", torch.cumprod: "torch.cumprod", torch.flip: "torch.flip",
    torch.tril: "torch.tril", torch.triu: "torch.triu", torch.diag: "torch.diag",
}


def library_call_paths(gm: torch.fx.GraphModule) -> frozenset[tuple[str, ...]]:
    """The library calls (as dotted paths split into tuples) the captured reference makes."""
    return frozenset(tuple(LIBRARY_CALLS[n.target].split(".")) for n in gm.graph.nodes
                     if n.op == "call_function" and _hashable(n.target)
                     and n.target in LIBRARY_CALLS)


def _hashable(target) -> bool:
    try:
        hash(target)
    except TypeError:
        return False
    return True


_allowed: dict[str, frozenset[tuple[str, ...]]] = {}


def allowed_library_calls(task) -> frozenset[tuple[str, ...]]:
    """The library calls a candidate for `task` may make: those its reference makes. Cached by
    the task's sha256; a task that cannot be captured allows none."""
    key = getattr(task, "sha256", None) or str(task.path)
    if key not in _allowed:
        try:
            gm, _ = capture(task)
        except CaptureError:
            _allowed[key] = frozenset()
        else:
            _allowed[key] = library_call_paths(gm)
    return _allowed[key]


# The aten ops each library call dispatches (as torch's dispatch mode sees them), which the
# verifier's runtime monitor then lets a candidate run.
LIBRARY_ATEN: dict[str, frozenset[str]] = {
    "conv": frozenset({"convolution", "_convolution", "conv1d", "conv2d", "conv3d",
                       "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
                       "cudnn_convolution", "cudnn_convolution_transpose"}),
    "max_pool": frozenset({"max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices",
                           "max_pool2d_with_indices", "max_pool3d_with_indices"}),
    "avg_pool": frozenset({"avg_pool1d", "avg_pool2d", "avg_pool3d"}),
    "adaptive_avg_pool": frozenset({"adaptive_avg_pool1d", "adaptive_avg_pool2d",
                                    "adaptive_avg_pool3d", "_adaptive_avg_pool2d",
                                    "_adaptive_avg_pool3d", "mean"}),
    "adaptive_max_pool": frozenset({"adaptive_max_pool2d"}),
    "embedding": frozenset({"embedding", "index_select"}),
    "interpolate": frozenset({"upsample_nearest1d", "upsample_nearest2d", "upsample_nearest3d",
                              "upsample_bilinear2d", "upsample_linear1d", "upsample_bicubic2d",
                              "upsample_trilinear3d", "_upsample_nearest_exact2d"}),
    "pad": frozenset({"constant_pad_nd", "pad", "reflection_pad1d", "reflection_pad2d",
                      "reflection_pad3d", "replication_pad1d", "replication_pad2d",
                      "replication_pad3d", "circular_pad2d"}),
    "cumsum": frozenset({"cumsum"}), "cumprod": frozenset({"cumprod"}), "flip": frozenset({"flip"}),
    "tril": frozenset({"tril"}), "triu": frozenset({"triu"}),
    # torch.diag dispatches a vector's matrix as diag_embed, a matrix's diagonal as diagonal_copy
    "diag": frozenset({"diag", "diag_embed", "diagonal_copy"}),
}


def _aten_family(path: tuple[str, ...]) -> str:
    name = path[-1]
    for family in ("adaptive_avg_pool", "adaptive_max_pool", "max_pool", "avg_pool"):
        if name.startswith(family):
            return family
    if name.startswith("conv"):
        return "conv"
    return name


def allowed_library_aten(task) -> frozenset[str]:
    """The aten ops the runtime monitor allows a candidate for `task`: those of the library
    calls its reference makes."""
    found: set[str] = set()
    for path in allowed_library_calls(task):
        found |= LIBRARY_ATEN.get(_aten_family(path), frozenset())
    return frozenset(found)
