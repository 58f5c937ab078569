"""GEMM ops: `matmul(a, b)` and `linear(x, weight, bias=None, activation=None)`, re-exported by
kernel_zoo.ops (same `_Op`/`_define` machinery: zoo look-up by arch, dtype and shape bucket, the
PyTorch reference where no entry fits, backward by recomputing the reference).

| op     | mirrors                                   | zoo entries looked up under            |
| ------ | ----------------------------------------- | -------------------------------------- |
| matmul | torch.matmul(a, b), batched too           | "matmul": launch_matmul(a, b)          |
| linear | act(F.linear(x, weight, bias))            | "linear[_bias][_<act>]", see below     |

How a linear with an activation finds its kernel: one zoo op per variant, named
`linear` + `_bias` when a bias is given + `_<activation>` when one is (`linear_bias_gelu`,
`linear_silu`, `linear`), whose launcher is `launch_<name>(x, weight[, bias])`. A gemm-template
entry bakes its epilogue into the kernel, so an entry serves exactly one variant, and the variant
name says which; the task that produced it (tasks/linear_bias_gelu.py has op "linear_bias_gelu")
uses the same name. This is simpler and more honest than a launcher taking the activation as an
argument, which would have to carry every epilogue and could silently ignore one. `kzoo::linear`
is one custom op; the variant is chosen inside it from its arguments.

Activations: "relu", "gelu" (erf), "gelu_tanh", "silu", "sigmoid", "tanh", or None; anything else
is a ValueError. `kernel_zoo.load` pins `matmul` or one variant (`load("linear_bias_gelu")`).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from kernel_zoo.ops import _call, _define, _dispatch, _Op, _register_recompute_autograd, \
    _same_dtype_device, reference_fake

ACTIVATIONS = {
    "relu": F.relu,
    "gelu": F.gelu,
    "gelu_tanh": lambda y: F.gelu(y, approximate="tanh"),
    "silu": F.silu,
    "sigmoid": torch.sigmoid,
    "tanh": torch.tanh,
}


def _check_activation(activation: str | None) -> None:
    if activation is not None and activation not in ACTIVATIONS:
        raise ValueError(f"linear: activation {activation!r} is not one of "
                         f"{sorted(ACTIVATIONS)} or None")


def _linear_reference(x, weight, bias=None, activation=None):
    y = F.linear(x, weight, bias)
    return y if activation is None else ACTIVATIONS[activation](y)


# A plain GEMM whose K is not a multiple of K_ALIGNMENT elements runs cuBLAS: there the zoo's
# kernels lose about 1 us (the skinny tiles at 64 x K -> 3072 on an H100: K = 1000 and 1096 took
# 9.2 and 10.2 us against cuBLAS's 8.1 and 9.1, K = 1008, 1024 and 1088 level or ahead; GPU round
# 304, bench/results/runs/gemm-configs-h100-skinny-k-graphs-round304.json), and ops.matmul at
# 1-128 rows of a 1000 -> 3000 weight ran at 0.78-0.98x cuBLAS's speed (round 303,
# bench/results/runs/matmul-skinny-h100-round303.json). A fused Linear keeps its kernel there: it
# saves the activation's pass, which mostly outweighs that loss
# (bench/results/linear-skinny-h100.json).
K_ALIGNMENT = 16


def _matmul_ineligible(args: tuple) -> str | None:
    a, b = args
    if a.dim() < 2 or b.dim() < 2:
        return "zoo kernels take operands of 2 or more dims (no matrix-vector products)"
    if a.dim() > 2 and b.dim() > 2 and a.shape[:-2] != b.shape[:-2]:
        return f"batch dims {list(a.shape[:-2])} and {list(b.shape[:-2])} differ (broadcast)"
    if a.shape[-1] != b.shape[-2]:
        return f"inner dims differ ({list(a.shape)} @ {list(b.shape)})"
    if a.shape[-1] % K_ALIGNMENT:
        return (f"K = {a.shape[-1]} is not a multiple of {K_ALIGNMENT} elements, where the zoo's "
                f"GEMM trails cuBLAS")
    return _same_dtype_device(a, {"b": b})


def _linear_ineligible(args: tuple) -> str | None:
    x, weight = args[0], args[1]
    bias = args[2] if len(args) > 2 else None
    if x.dim() < 2:
        return "zoo kernels take x of 2 or more dims"
    if weight.dim() != 2 or weight.shape[1] != x.shape[-1]:
        return f"weight {list(weight.shape)} does not match x's last dim {x.shape[-1]}"
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != weight.shape[0]):
        return f"bias {list(bias.shape)} is not ({weight.shape[0]},)"
    return _same_dtype_device(x, {"weight": weight, "bias": bias})


def _matmul_bucket_shape(args: tuple) -> tuple:
    """(rows, K) as the gemm launcher counts rows: A's batch dims fold into M where B is one
    matrix, so (4, 64, K) @ (K, N) is a 256-row call, not a skinny one."""
    a, b = args
    rows = a.numel() // a.shape[-1] if b.dim() == 2 else a.shape[-2]
    return (rows, a.shape[-1])


MATMUL = _Op("matmul", lambda a, b: torch.matmul(a, b), "torch.matmul", same_layout=False,
             ineligible=_matmul_ineligible, bucket_shape=_matmul_bucket_shape)
_matmul_op = _define(MATMUL, "(Tensor a, Tensor b, str? entry=None) -> Tensor")

# the reference over all four arguments: what autograd recomputes
LINEAR = _Op("linear", _linear_reference, "F.linear", same_layout=False)


def variant_name(has_bias: bool, activation: str | None) -> str:
    """The zoo op a linear call is looked up under (see the module docstring)."""
    return "linear" + ("_bias" if has_bias else "") + (f"_{activation}" if activation else "")


def _variant(has_bias: bool, activation: str | None) -> _Op:
    act = ACTIVATIONS[activation] if activation else None

    def reference(x, weight, bias=None):
        y = F.linear(x, weight, bias)
        return y if act is None else act(y)

    label = "F.linear" + (f" and {activation}" if activation else "")
    return _Op(variant_name(has_bias, activation), reference, label, same_layout=False,
               ineligible=_linear_ineligible)


VARIANTS: dict[tuple[bool, str | None], _Op] = {
    (has_bias, act): _variant(has_bias, act)
    for has_bias in (False, True) for act in (None, *ACTIVATIONS)
}


def _linear_impl(x, weight, bias=None, activation=None, entry=None):
    _check_activation(activation)
    op = VARIANTS[(bias is not None, activation)]
    args = (x, weight) if bias is None else (x, weight, bias)
    return _dispatch(op, args, entry)


def linear_call(who: str, x, weight, bias, activation, entry) -> torch.Tensor:
    """`ops.linear` and a pinned linear variant (`who` names the caller in a TypeError for a
    non-tensor argument): the custom op where torch.compile or autograd needs it, else the same
    implementation called directly, as `_call` does for the other ops."""
    from kernel_zoo.ops import _not_a_tensor

    for name, value, optional in (("x", x, False), ("weight", weight, False), ("bias", bias, True)):
        if not isinstance(value, torch.Tensor) and not (optional and value is None):
            raise _not_a_tensor(who, name, value, optional)
    tensors = [t for t in (x, weight, bias) if t is not None]
    grad = torch.is_grad_enabled() and any(t.requires_grad for t in tensors)
    if torch.compiler.is_compiling() or grad:
        return _linear_op(x, weight, bias, activation, entry)
    return _linear_impl(x, weight, bias, activation, entry)


_linear_reference_fake = reference_fake(_linear_reference, same_layout=False)


def _linear_fake(x, weight, bias=None, activation=None, entry=None):
    return _linear_reference_fake(x, weight, bias, activation)


_linear_op = torch.library.custom_op(
    "kzoo::linear", _linear_impl, mutates_args=(),
    schema="(Tensor x, Tensor weight, Tensor? bias=None, str? activation=None, "
           "str? entry=None) -> Tensor",
)
_linear_op.register_fake(_linear_fake)
_register_recompute_autograd(_linear_op, LINEAR)


def matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """`torch.matmul(a, b)` for operands of 2+ dims (batched: equal batch dims, or one side 2-D),
    accumulated in fp32 (fp32 in IEEE, no TF32); `kzoo::matmul`."""
    return _call(MATMUL, _matmul_op, (a, b), None)


def linear(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None,
           activation: str | None = None) -> torch.Tensor:
    """`act(F.linear(x, weight, bias))` with the bias and activation fused into the GEMM's
    epilogue where a zoo entry for the variant exists; `kzoo::linear`."""
    _check_activation(activation)
    return linear_call("kernel_zoo.ops.linear", x, weight, bias, activation, None)

