"""Fused elementwise chains in CUDA C++ (template `pointwise_cuda`): the space, constraints, bytes,
and the expression-to-C++ translation.

Render context: `op` (the zoo op: "swiglu", "geglu", or a chain's name), `expr` (an expression
tree, FAMILIES.md), `inputs` (one entry per tensor the expression reads), `params` (the Model's
parameters, mirrored by ModelNew).

`expr`: ["input", i] | ["const", c] | [name, arg...] with name one of add, sub, mul, div, maximum,
minimum (two args); neg, relu, silu, sigmoid, tanh, exp, log, abs, square, sqrt, rsqrt, mish (one);
["leaky_relu", a, slope], ["gelu", a, "none"|"tanh"], ["hardtanh", a, lo, hi],
["clamp", a, lo|None, hi|None], ["softplus", a, beta, threshold] (PyTorch's semantics: x where
beta * x > threshold). Everything is computed in float32 and stored in the output's dtype.

`inputs[i]`: {"kind": "full"} (the output's shape), {"kind": "row"} (1-D, broadcast along the last
dim) or {"kind": "scalar"} (a one-element tensor); and {"source": "arg", "index": k} (the k-th
forward argument) or {"source": "param", "path": "bias"} (a parameter of the Model). A Python
number in the op is a ["const", c] of the expression. The launcher is `launch_<op>(*inputs)`.

Knobs: `block_threads`; `vec_bytes` the width of each load and store (the launch falls back to
scalar accesses when a pointer is not aligned to it); `items_per_thread` packs each thread loads
before computing (memory-level parallelism); `blocks_per_sm` 0 for one block per tile, else a
persistent grid-stride grid of that many blocks per SM; `cache_hint` "stream" marks loads and
stores evict-first.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from templates.base import InvalidConfig, Param, Template
from templates.pointwise import _PATH_PART

UNARY = {
    "neg": "(-{0})", "relu": "fmaxf({0}, 0.0f)", "silu": "silu_f({0})",
    "sigmoid": "sigmoid_f({0})", "tanh": "tanhf({0})", "exp": "expf({0})", "log": "logf({0})",
    "abs": "fabsf({0})", "square": "square_f({0})", "sqrt": "sqrtf({0})", "rsqrt": "rsqrtf({0})",
    "mish": "mish_f({0})",
}
BINARY = {
    "add": "({0} + {1})", "sub": "({0} - {1})", "mul": "({0} * {1})", "div": "({0} / {1})",
    "maximum": "fmaxf({0}, {1})", "minimum": "fminf({0}, {1})",
    # 1.0f or 0.0f (IEEE's answer for a NaN), as the Triton renderer's
    "gt": "(({0}) > ({1}) ? 1.0f : 0.0f)", "ge": "(({0}) >= ({1}) ? 1.0f : 0.0f)",
    "lt": "(({0}) < ({1}) ? 1.0f : 0.0f)", "le": "(({0}) <= ({1}) ? 1.0f : 0.0f)",
    "eq": "(({0}) == ({1}) ? 1.0f : 0.0f)", "ne": "(({0}) != ({1}) ? 1.0f : 0.0f)",
}
INPUT_KINDS = {"full", "row", "scalar"}
MAX_BYTES_IN_FLIGHT_PER_INPUT = 64  # per thread and input: beyond this the loads spill registers


def _float(value: Any, where: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InvalidConfig(f"pointwise_cuda: {where} needs a finite number, got {value!r}")
    return f"{float(value)!r}f".replace("inf", "INFINITY")


def cuda_expr(expr: Any, n_inputs: int) -> str:
    """The C++ float expression for `expr`; input i reads as `in{i}`."""
    if not isinstance(expr, (list, tuple)) or not expr or not isinstance(expr[0], str):
        raise InvalidConfig(f"pointwise_cuda: malformed expression node {expr!r}")
    name, args = expr[0], list(expr[1:])

    def sub(i: int) -> str:
        return cuda_expr(args[i], n_inputs)

    def arity(n: int) -> None:
        if len(args) != n:
            raise InvalidConfig(f"pointwise_cuda: {name} takes {n} argument(s), got {len(args)}")

    if name == "input":
        arity(1)
        if not isinstance(args[0], int) or not 0 <= args[0] < n_inputs:
            raise InvalidConfig(f"pointwise_cuda: input {args[0]!r} is not one of the "
                                f"{n_inputs} inputs")
        return f"in{args[0]}"
    if name == "const":
        arity(1)
        return _float(args[0], "const")
    if name in UNARY:
        arity(1)
        return UNARY[name].format(sub(0))
    if name in BINARY:
        arity(2)
        return BINARY[name].format(sub(0), sub(1))
    if name == "leaky_relu":
        arity(2)
        return f"leaky_relu_f({sub(0)}, {_float(args[1], 'leaky_relu slope')})"
    if name == "gelu":
        arity(2)
        if args[1] not in ("none", "tanh"):
            raise InvalidConfig(f"pointwise_cuda: gelu approximate must be 'none' or 'tanh', "
                                f"got {args[1]!r}")
        return f"gelu_{'tanh' if args[1] == 'tanh' else 'erf'}_f({sub(0)})"
    if name == "hardtanh":
        arity(3)
        return f"fminf(fmaxf({sub(0)}, {_float(args[1], 'hardtanh lo')}), " \
               f"{_float(args[2], 'hardtanh hi')})"
    if name == "clamp":
        arity(3)
        out = sub(0)
        if args[1] is not None:
            out = f"fmaxf({out}, {_float(args[1], 'clamp lo')})"
        if args[2] is not None:
            out = f"fminf({out}, {_float(args[2], 'clamp hi')})"
        return out
    if name == "where":
        arity(3)
        return f"(({sub(0)}) != 0.0f ? ({sub(1)}) : ({sub(2)}))"
    if name == "softplus":
        arity(3)
        return f"softplus_f({sub(0)}, {_float(args[1], 'softplus beta')}, " \
               f"{_float(args[2], 'softplus threshold')})"
    known = sorted({*UNARY, *BINARY, "input", "const", "leaky_relu", "gelu", "hardtanh", "clamp",
                    "softplus", "where"})
    raise InvalidConfig(f"pointwise_cuda: unknown op {name!r} in the expression; known: {known}")


def check_inputs(inputs: Any) -> list[dict]:
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise InvalidConfig("pointwise_cuda: `inputs` must be a non-empty list")
    for i, spec in enumerate(inputs):
        if not isinstance(spec, dict) or spec.get("kind") not in INPUT_KINDS:
            raise InvalidConfig(f"pointwise_cuda: inputs[{i}] needs a kind in {sorted(INPUT_KINDS)}")
        if spec.get("wide") or "dtype" in spec:
            raise InvalidConfig(f"pointwise_cuda: inputs[{i}] is a float32 or boolean input beside "
                                "the output's dtype; this template reads one dtype (the Triton "
                                "template `pointwise` reads such inputs)")
        source = spec.get("source")
        if source == "arg" and isinstance(spec.get("index"), int):
            continue
        if source == "param" and isinstance(spec.get("path"), str) and \
                all(_PATH_PART.match(part) for part in spec["path"].split(".")):
            continue
        raise InvalidConfig(f"pointwise_cuda: inputs[{i}] needs source 'arg' with an int index or "
                            "'param' with a dotted path")
    if not any(spec["kind"] == "full" for spec in inputs):
        raise InvalidConfig("pointwise_cuda: at least one input must be 'full' (it gives the "
                            "output's shape)")
    return [dict(spec) for spec in inputs]


@dataclass(frozen=True)
class PointwiseCudaConfig:
    block_threads: int
    vec_bytes: int
    items_per_thread: int
    blocks_per_sm: int
    cache_hint: str


SPACE = (
    Param("block_threads", (128, 256, 512, 1024)),
    Param("vec_bytes", (4, 8, 16)),
    Param("items_per_thread", (1, 2, 4, 8)),
    Param("blocks_per_sm", (0, 2, 4, 8, 16)),
    Param("cache_hint", ("none", "stream")),
)

DEFAULT = PointwiseCudaConfig(block_threads=256, vec_bytes=16, items_per_thread=2,
                              blocks_per_sm=0, cache_hint="stream")


def constraints(cfg: PointwiseCudaConfig) -> list[str]:
    problems = []
    in_flight = cfg.vec_bytes * cfg.items_per_thread
    if in_flight > MAX_BYTES_IN_FLIGHT_PER_INPUT:
        problems.append(f"{in_flight} bytes in flight per thread and input spill registers")
    if cfg.blocks_per_sm and cfg.block_threads * cfg.blocks_per_sm > 2048:
        problems.append(f"{cfg.blocks_per_sm} resident blocks of {cfg.block_threads} threads "
                        "exceed an SM's 2048 threads")
    if cfg.blocks_per_sm and cfg.block_threads * cfg.blocks_per_sm < 512:
        problems.append("a persistent grid of under 512 threads per SM cannot hide memory latency")
    return problems


def bytes_moved(numel: int, n_full_inputs: int, itemsize: int) -> int:
    """Every full input read once and the output written once (row and scalar inputs are small)."""
    return (n_full_inputs + 1) * numel * itemsize


@dataclass(frozen=True)
class PointwiseCudaTemplate(Template):
    """Checks the expression and inputs and translates the expression before rendering."""

    def render(self, cfg: Any, **context: Any) -> str:
        inputs = check_inputs(context.get("inputs"))
        code = cuda_expr(context.get("expr"), len(inputs))
        first_full = next(i for i, spec in enumerate(inputs) if spec["kind"] == "full")
        return super().render(cfg, **{**context, "inputs": inputs, "cuda_expr": code,
                                      "first_full": first_full})


TEMPLATE = PointwiseCudaTemplate(
    name="pointwise_cuda",
    family="pointwise",
    jinja_file="pointwise_cuda.py.jinja",
    config_type=PointwiseCudaConfig,
    space=SPACE,
    default=DEFAULT,
    constraints=constraints,
    bytes_moved=bytes_moved,
    launcher="launch_{op}",
    doc=__doc__ or "",
    needs_gpu=True,
)
