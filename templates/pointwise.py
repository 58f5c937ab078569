"""Fused elementwise template: one streaming kernel for an expression tree of pointwise ops.

Render context (besides `op` and `params`):
- `expr`: a JSON-able tree. Leaves are ["input", i] (the i-th entry of `inputs`) and ["const", c]
  (a finite number). Inner nodes are [name, arg, ...] with these names (`x`, `a`, `b` are subtrees,
  the rest are numbers or strings written into the kernel):
      add a b | sub a b | mul a b | div a b | maximum a b | minimum a b      (NaN propagates)
      neg x | abs x | square x | exp x | log x | sqrt x | rsqrt x
      relu x | ["leaky_relu", x, slope] | ["elu", x, alpha] | sigmoid x | silu x | tanh x
      ["gelu", x, "none"|"tanh"] | mish x | ["softplus", x, beta, threshold]
      ["hardtanh", x, lo, hi] | ["clamp", x, lo_or_null, hi_or_null] | hardsigmoid x | hardswish x
      gt a b | ge a b | lt a b | le a b | eq a b | ne a b     (1.0 or 0.0; IEEE's answer for NaN)
      where c a b                                              (a where c is nonzero, else b)
  A scale is ["mul", x, ["const", c]]; a bias broadcast or a residual add is ["add", x, ["input", i]]
  with a "row" or "full" input. Identical subtrees are computed once.
- `inputs`: one dict per launcher argument, in order: {"kind": "full"} (the output's shape),
  {"kind": "row"} (1-D, broadcast along the last dim, e.g. a bias) or {"kind": "scalar"} (a
  one-element tensor or a Python number); plus where ModelNew finds it: {"source": "arg",
  "index": k} (k-th forward argument) or {"source": "param", "path": "bias"} (a Model parameter,
  which must be listed in `params`). The expression must read at least one full input. A full
  input may also say {"wide": true}: it may be a float32 tensor standing for a value of the
  output's dtype (a composed candidate's scan, accumulated in float32: PyTorch's own 16-bit cumsum
  on CUDA is outside the verifier's 16-bit bar at a few thousand elements a row,
  bench/probe_cumsum_fp16.py); the output's dtype is then the other full inputs', or the
  launcher's `out_dtype` (ModelNew's forward passes it on). A full input may say
  {"dtype": "bool"}: a boolean mask (KernelBench's masked cumsum multiplies by one), read as 1.0
  or 0.0, as PyTorch promotes it; it never gives the output its dtype.

The launcher is `launch_<op>(*tensors)`, one argument per entry of `inputs`; math is fp32 and the
output takes the full inputs' dtype. The numerics are written to stay finite where PyTorch's are:
sigmoid/silu as x / (1 + exp(-x)), tanh from exp(-2|x|) with a series near 0, GELU-tanh as
x * sigmoid(2u) (no 1 + tanh cancellation), softplus as max(z, 0) + log1p(exp(-|z|)) with
PyTorch's beta/threshold, mish as x * n / (n + 2) with n = e^x (e^x + 2). GELU (erf) uses
`tl.math.erf`, which Triton 3.6 and 3.9 both have.

Knobs: `block` elements per program tile, `num_warps`, `programs_per_sm` > 0 makes the grid
persistent (each program walks tiles with a grid stride; `num_stages` pipelines that loop),
`stream_hint` marks full inputs evict-first (streamed once) and row inputs evict-last (re-read by
every tile), `tiling` = "rows" lays tiles out as rows x columns when a row input exists so the row
vector is loaded once per column tile with no per-element modulo; `col_block` caps the tile's
width. The rows layout needs the row stride to keep 16-byte alignment (last dim a multiple of
16 / itemsize); otherwise the launcher takes the flat layout, whose loads of full inputs stay
vectorized at any size. Full tiles run unmasked; only the last, partial tile is masked.
`min_per_thread` is the fewest elements of an input a thread holds: the launcher takes no more
warps than a tile gives that many each (and shrinks a small call's tile no further). At 8 a 16-bit
thread loads one 16-byte vector; at 4 a float32 thread loads 16 bytes and a 16-bit one 8, at 2,
8 and 4: more threads in flight for the same bytes. torch.compile's autotuner chose 512-element
blocks of 8 warps (2 float32 elements a thread) for SwiGLU and GeGLU at 8192x14336 and 8192x16384
on an H100, and its kernel ran 451 us against 459 at 8 a thread and 456 at 4 (GPU round 236,
bench/probe_glu.py, bench/results/runs/probe-glu-h100-round236.json); before this knob the
template could not run it.
`gelu_erf_fit` computes an erf-GELU (GeGLU's, or one in a chain) as x * Phi(x) with Phi from
erfc's Chebyshev fit (Numerical Recipes' erfcc: one reciprocal, one exponential, a degree-9
polynomial), as the GEMM template's knob of the same name does, instead of libdevice's erf (two
polynomials and a select). In float32 it stays within 2e-6 relative of GELU where |GELU(x)| >
1e-3 and within 2.5e-5 down to 1e-36, where libdevice's 1 + erf(x) keeps no digit below x ~ -6
(tests/test_pointwise.py). Compiled for sm_90 (`bench/compile_pointwise.py`)
GeGLU's bfloat16 kernel has 12% fewer SASS instructions with it, which matters where a 16-bit
GeGLU is bound by instruction issue rather than bytes: on an H200 it read 0.82-0.88 of the copy
bandwidth at its large shapes, as torch.compile's did, in GPU round 332. An expression without
an erf-GELU renders the same module either way (bar the params it names).
`small_per_thread` (0: off) is the elements of an input a thread holds in a small flat call, one
with fewer than 1024 threads an SM at `min_per_thread` (a decode step's 16 rows of GeGLU: 262144
elements), whose tile then takes up to 32 warps: more threads, more loads in flight, where one
program per tile leaves most of the GPU idle. One config then serves a bucket's large calls and
its decode calls apart (GeGLU's `cols_gt_4096` holds 8192x16384 and 16x16384; on an H100 4
elements a thread led at 16 bfloat16 rows, 5.44 against 5.66 us, but lost at the large shapes,
GPU round 237).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from templates.base import InvalidConfig, Param, Template

MIN_ELEMS_PER_THREAD = 8  # one 16-byte vector of a 16-bit dtype per input: min_per_thread's legacy
MAX_ELEMS_PER_THREAD = 64  # fp32 values per input a thread holds before several inputs spill
# A pipelined persistent loop may stage loads in shared memory: budget two fp32 inputs per stage
# in flight against the 227 KB an H100/H200 block can have.
PIPELINE_BYTES_PER_ELEM = 8
MAX_SHARED_BYTES = 227 * 1024


@dataclass(frozen=True)
class PointwiseConfig:
    block: int
    num_warps: int
    num_stages: int
    programs_per_sm: int
    stream_hint: bool
    tiling: str
    col_block: int
    min_per_thread: int
    gelu_erf_fit: bool = False
    small_per_thread: int = 0


SPACE = (
    Param("block", (512, 1024, 2048, 4096, 8192, 16384)),
    Param("num_warps", (2, 4, 8, 16)),
    Param("num_stages", (1, 2, 3)),
    Param("programs_per_sm", (0, 1, 2, 4, 8)),
    Param("stream_hint", (False, True)),
    Param("tiling", ("flat", "rows")),
    Param("col_block", (256, 512, 1024, 2048, 4096)),
    Param("min_per_thread", (2, 4, 8), legacy=MIN_ELEMS_PER_THREAD),
    Param("gelu_erf_fit", (False, True), legacy=False),
    Param("small_per_thread", (0, 2, 4), legacy=0),
)

DEFAULT = PointwiseConfig(
    block=4096, num_warps=8, num_stages=1, programs_per_sm=0, stream_hint=False, tiling="rows",
    col_block=1024, min_per_thread=8,
)


def constraints(cfg: PointwiseConfig) -> list[str]:
    problems = []
    per_thread = cfg.block // (32 * cfg.num_warps)
    if per_thread < cfg.min_per_thread:
        problems.append(f"block {cfg.block} over {cfg.num_warps} warps gives {per_thread} elements "
                        f"per thread (< min_per_thread {cfg.min_per_thread}: the launcher would "
                        "take fewer warps)")
    if per_thread > MAX_ELEMS_PER_THREAD:
        problems.append(f"block {cfg.block} over {cfg.num_warps} warps gives {per_thread} elements "
                        f"per thread per input (> {MAX_ELEMS_PER_THREAD}: spills)")
    if cfg.num_stages > 1 and cfg.programs_per_sm == 0:
        problems.append("num_stages > 1 only pipelines the persistent loop (programs_per_sm > 0)")
    staged = cfg.block * PIPELINE_BYTES_PER_ELEM * (cfg.num_stages - 1)
    if staged > MAX_SHARED_BYTES:
        problems.append(f"{cfg.num_stages} stages of a {cfg.block}-element tile stage {staged} "
                        f"bytes (> {MAX_SHARED_BYTES} of shared memory)")
    if cfg.small_per_thread and cfg.small_per_thread >= cfg.min_per_thread:
        problems.append(f"small_per_thread {cfg.small_per_thread} is not under min_per_thread "
                        f"{cfg.min_per_thread}: a small call would take the tiles of 0 (off)")
    if cfg.small_per_thread and cfg.programs_per_sm > 0:
        problems.append("small_per_thread shapes the one-program-per-tile grid's small calls "
                        "(programs_per_sm 0)")
    if cfg.tiling == "rows" and cfg.col_block > cfg.block:
        problems.append("col_block exceeds block: a rows tile holds at least one row segment")
    return problems


def bytes_moved(n_elements: int, itemsize: int, n_full_inputs: int, row_len: int = 0,
                n_row_inputs: int = 0) -> int:
    """Every input read once, the output written once: full inputs and output are n_elements each."""
    return ((n_full_inputs + 1) * n_elements + n_row_inputs * row_len) * itemsize


# ---- the expression renderer ----------------------------------------------------------------

@dataclass(frozen=True)
class _Op:
    args: tuple[str, ...]  # "x": a subtree; "num": a finite number; "num?": a number or null;
    # "approx": GELU's "none"|"tanh"
    call: str  # a format string over the rendered args, calling the template's @triton.jit helpers


OPS: dict[str, _Op] = {
    "add": _Op(("x", "x"), "{0} + {1}"),
    "sub": _Op(("x", "x"), "{0} - {1}"),
    "mul": _Op(("x", "x"), "{0} * {1}"),
    "div": _Op(("x", "x"), "{0} / {1}"),
    "maximum": _Op(("x", "x"), "_maximum({0}, {1})"),
    "minimum": _Op(("x", "x"), "_minimum({0}, {1})"),
    # Comparisons give 1.0 or 0.0 (IEEE's answer for a NaN: only ne is true, as in torch), so
    # they mix with arithmetic; where takes a nonzero condition as true.
    "gt": _Op(("x", "x"), "tl.where({0} > {1}, 1.0, 0.0)"),
    "ge": _Op(("x", "x"), "tl.where({0} >= {1}, 1.0, 0.0)"),
    "lt": _Op(("x", "x"), "tl.where({0} < {1}, 1.0, 0.0)"),
    "le": _Op(("x", "x"), "tl.where({0} <= {1}, 1.0, 0.0)"),
    "eq": _Op(("x", "x"), "tl.where({0} == {1}, 1.0, 0.0)"),
    "ne": _Op(("x", "x"), "tl.where({0} != {1}, 1.0, 0.0)"),
    "where": _Op(("x", "x", "x"), "tl.where({0} != 0.0, {1}, {2})"),
    "neg": _Op(("x",), "-{0}"),
    "abs": _Op(("x",), "tl.abs({0})"),
    "square": _Op(("x",), "{0} * {0}"),
    "exp": _Op(("x",), "tl.exp({0})"),
    "log": _Op(("x",), "tl.log({0})"),
    "sqrt": _Op(("x",), "tl.sqrt({0})"),
    "rsqrt": _Op(("x",), "tl.rsqrt({0})"),
    "relu": _Op(("x",), "_relu({0})"),
    "leaky_relu": _Op(("x", "num"), "_leaky_relu({0}, {1})"),
    "elu": _Op(("x", "num"), "_elu({0}, {1})"),
    "sigmoid": _Op(("x",), "_sigmoid({0})"),
    "silu": _Op(("x",), "_silu({0})"),
    "tanh": _Op(("x",), "_tanh({0})"),
    "gelu": _Op(("x", "approx"), "_gelu_{1}({0})"),
    "mish": _Op(("x",), "_mish({0})"),
    "softplus": _Op(("x", "num", "num"), "_softplus({0}, {1}, {2})"),
    "hardtanh": _Op(("x", "num", "num"), "_clamp({0}, {1}, {2})"),
    "clamp": _Op(("x", "num?", "num?"), ""),  # rendered by _render_clamp: either bound may be null
    "hardsigmoid": _Op(("x",), "_hardsigmoid({0})"),
    "hardswish": _Op(("x",), "_hardswish({0})"),
}
_GELU_APPROX = {"none": "erf", "tanh": "tanh"}
INPUT_KINDS = ("full", "row", "scalar")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# a part of a parameter's dotted path: a name, or a container's index (nn.Sequential's "0")
_PATH_PART = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+)$")


@dataclass(frozen=True)
class RenderedExpression:
    lines: tuple[str, ...]  # SSA assignments "t0 = ...", in dependency order
    result: str  # the name (or literal) holding the value to store
    used_inputs: tuple[int, ...]  # indices of `inputs` the expression reads, ascending
    used_leaves: tuple[str, ...] = ()  # named leaves (see render_expression) it reads, sorted


def _number(value: Any, where: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidConfig(f"{where}: expected a number, got {value!r}")
    if not math.isfinite(value):
        raise InvalidConfig(f"{where}: {value!r} is not finite (for an open clamp bound use null)")
    return repr(float(value))


def render_expression(expr: Any, n_inputs: int,
                      leaves: dict[str, str] | None = None) -> RenderedExpression:
    """Validate an expression tree and render it as Triton statements over fp32 values.

    Input i is read from the variable `x{i}`; each op node becomes one `t{k} = ...` line, so a
    subtree used twice (and an argument used twice inside a helper) is computed once. `leaves`
    names extra argument-less leaves and the variable each reads: the GEMM template passes
    {"acc": "acc"}, so ["acc"] is its fp32 matmul result.
    """
    lines: list[str] = []
    memo: dict[str, str] = {}
    used: set[int] = set()
    named = dict(leaves or {})
    used_named: set[str] = set()

    def visit(node: Any, where: str) -> str:
        if not isinstance(node, (list, tuple)) or not node or not isinstance(node[0], str):
            raise InvalidConfig(f"{where}: expected [name, args...], got {node!r:.80}")
        name, args = node[0], list(node[1:])
        if name in named:
            if args:
                raise InvalidConfig(f"{where}: the leaf [{name!r}] takes no arguments, got {node!r}")
            used_named.add(name)
            return named[name]
        if name == "input":
            if len(args) != 1 or isinstance(args[0], bool) or not isinstance(args[0], int):
                raise InvalidConfig(f"{where}: an input leaf is ['input', index], got {node!r}")
            if not 0 <= args[0] < n_inputs:
                raise InvalidConfig(f"{where}: input {args[0]} is out of range: the context "
                                    f"declares {n_inputs} input(s)")
            used.add(args[0])
            return f"x{args[0]}"
        if name == "const":
            if len(args) != 1:
                raise InvalidConfig(f"{where}: a const leaf is ['const', number], got {node!r}")
            return _number(args[0], where)
        op = OPS.get(name)
        if op is None:
            raise InvalidConfig(f"{where}: unknown op {name!r}; known: "
                                f"{', '.join(sorted(OPS))}, input, const")
        if len(args) != len(op.args):
            raise InvalidConfig(f"{where}: {name} takes {len(op.args)} argument(s) "
                                f"({', '.join(op.args)}), got {len(args)}")
        key = json.dumps(node)
        if key in memo:
            return memo[key]
        rendered = []
        for i, (kind, arg) in enumerate(zip(op.args, args)):
            arg_where = f"{where}[{i + 1}]"
            if kind == "x":
                rendered.append(visit(arg, arg_where))
            elif kind == "num":
                rendered.append(_number(arg, arg_where))
            elif kind == "num?":
                rendered.append(None if arg is None else _number(arg, arg_where))
            elif arg not in _GELU_APPROX:  # kind == "approx"
                raise InvalidConfig(f"{arg_where}: gelu's approximate is 'none' or 'tanh', "
                                    f"got {arg!r}")
            else:
                rendered.append(_GELU_APPROX[arg])
        if name == "clamp":
            code = _render_clamp(rendered, where)
        else:
            if name == "hardtanh" and float(rendered[1]) > float(rendered[2]):
                raise InvalidConfig(f"{where}: hardtanh needs min_val <= max_val")
            if name == "softplus" and float(rendered[1]) == 0.0:
                raise InvalidConfig(f"{where}: softplus beta must be nonzero")
            code = op.call.format(*rendered)
        target = f"t{len(lines)}"
        lines.append(f"{target} = {code}")
        memo[key] = target
        return target

    result = visit(expr, "expr")
    return RenderedExpression(tuple(lines), result, tuple(sorted(used)), tuple(sorted(used_named)))


def _render_clamp(rendered: list, where: str) -> str:
    x, lo, hi = rendered
    if lo is None and hi is None:
        raise InvalidConfig(f"{where}: clamp needs at least one of min and max")
    if lo is None:
        return f"_clamp_max({x}, {hi})"
    if hi is None:
        return f"_clamp_min({x}, {lo})"
    return f"_clamp({x}, {lo}, {hi})"


def declared_params(params: Any) -> set[str]:
    """The Model parameter paths a context's `params` list declares."""
    return {p["path"] for p in params} if isinstance(params, (list, tuple)) else set()


def check_source(spec: Any, where: str, declared: set[str]) -> None:
    """One input's source: a forward argument by index, or a Model parameter the context
    declares (ModelNew mirrors only those)."""
    if not isinstance(spec, dict):
        raise InvalidConfig(f"{where}: expected a dict, got {spec!r:.60}")
    source = spec.get("source")
    if source == "arg":
        index = spec.get("index")
        if isinstance(index, bool) or not isinstance(index, int) or index < 0:
            raise InvalidConfig(f"{where}: an arg input needs a non-negative int 'index'")
    elif source == "param":
        path = spec.get("path")
        if not isinstance(path, str) or not all(_PATH_PART.match(p) for p in path.split(".")):
            raise InvalidConfig(f"{where}: a param input needs a dotted 'path', got {path!r}")
        if path not in declared:
            raise InvalidConfig(f"{where}: param {path!r} is not in the context's params "
                                f"({sorted(declared)}); ModelNew would not have it")
    else:
        raise InvalidConfig(f"{where}: source must be 'arg' or 'param', got {source!r}")


def check_op(template: str, context: dict) -> None:
    """The context's `op` names `launch_<op>`: an identifier. A missing op is left to Jinja's
    StrictUndefined, which names it."""
    op = context.get("op", "missing")
    if not isinstance(op, str) or not _IDENT.match(op):
        raise InvalidConfig(f"template {template}: op must be an identifier (it names "
                            f"launch_<op>), got {op!r}")


def validate_inputs(inputs: Any, params: Any) -> list[dict]:
    """The `inputs` list, checked: kinds, sources, and param paths that ModelNew declares."""
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise InvalidConfig("inputs must be a non-empty list of {kind, source, ...} dicts")
    declared = declared_params(params)
    checked = []
    for i, spec in enumerate(inputs):
        where = f"inputs[{i}]"
        check_source(spec, where, declared)
        if spec.get("kind") not in INPUT_KINDS:
            raise InvalidConfig(f"{where}: kind must be one of {list(INPUT_KINDS)}, "
                                f"got {spec.get('kind')!r}")
        if "wide" in spec and (not isinstance(spec["wide"], bool)
                               or (spec["wide"] and spec["kind"] != "full")):
            raise InvalidConfig(f"{where}: 'wide' is a bool, and only a full input may be wide")
        if "dtype" in spec and (spec["dtype"] != "bool" or spec["kind"] != "full"
                                or spec.get("wide")):
            raise InvalidConfig(f"{where}: an input's 'dtype' may only be 'bool' (a mask of the "
                                f"output's shape, kind 'full', not wide), got {spec['dtype']!r}")
        checked.append(dict(spec))
    return checked


@dataclass(frozen=True)
class PointwiseTemplate(Template):
    """Renders with the expression tree compiled to Triton statements (`expr_lines`)."""

    def render(self, cfg: Any, **context: Any) -> str:
        # Without expr or inputs, rendering goes on and Jinja's StrictUndefined names what is missing.
        if "expr" in context and "inputs" in context:
            check_op(self.name, context)
            inputs = validate_inputs(context["inputs"], context.get("params", []))
            rendered = render_expression(context["expr"], len(inputs))
            if not any(inputs[i]["kind"] == "full" for i in rendered.used_inputs):
                raise InvalidConfig("the expression reads no 'full' input: the output's shape "
                                    "comes from the full inputs")
            # erfc's fit only where the expression has an erf-GELU: elsewhere the knob renders
            # the very same module (bar its params), which the tuner then times once
            uses_erf_gelu = any("_gelu_erf(" in line for line in rendered.lines)
            fit = getattr(cfg, "gelu_erf_fit", False) and uses_erf_gelu
            context = {**context, "gelu_erf_impl": "erfc_poly" if fit else "libdevice",
                       "inputs": inputs, "expr_lines": rendered.lines,
                       "expr_result": rendered.result, "used_inputs": rendered.used_inputs,
                       "expr_json": json.dumps(context["expr"])}
        return super().render(cfg, **context)


TEMPLATE = PointwiseTemplate(
    name="pointwise",
    family="pointwise",
    jinja_file="pointwise.py.jinja",
    config_type=PointwiseConfig,
    space=SPACE,
    default=DEFAULT,
    constraints=constraints,
    bytes_moved=bytes_moved,
    launcher="launch_<op>",
    doc=__doc__ or "",
)
