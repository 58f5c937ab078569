"""Broadcasting pointwise chains, optionally reduced: the fused tail behind a library op.

A convolution's output followed by `+ bias[C,1,1]`, an activation and a mean over (H, W) is one
pass of this template, where eager PyTorch makes one pass per op. It is the general (and slower
per byte) cousin of `pointwise`: operands broadcast along any dims, and the result may be reduced
over any set of dims.

Render context (besides `op` and `params`):
- `expr`: an expression tree in `templates.pointwise`'s format over ["input", i] leaves.
- `inputs`: one dict per launcher argument, in order: {"source": "arg", "index": k} (the k-th
  forward argument) or {"source": "param", "path": "bn.weight"} (a Model parameter, listed in
  `params`), with an optional "view": a shape the operand is reshaped to before broadcasting
  (a (C,) weight read as [1, C, 1, 1], say).
- `reduce`: null, or {"op": "sum"|"mean"|"amax"|"amin", "dims": [d, ...], "keepdim": bool},
  the dims counted in the broadcast result's rank; a mean may carry "correction": c, dividing
  the sum by max(n - c, 0) (var and std with Bessel's correction: verifier/decompose.py).
- `post` (optional, with `reduce`): an expression over the leaf ["reduced"] (the fp32 reduced
  value, after the mean's division) and constants, applied before the one rounding to the output
  dtype: `sqrt(sum(square(x)))` stores the norm, which fits a 16-bit dtype where the sum of
  squares may not (the norm's own kernel in PyTorch also takes its root in fp32).

The launcher `launch_<op>(*tensors)` broadcasts the operands as PyTorch does (views, no copies),
merges dims that every operand walks contiguously, and launches one kernel: a flat map over the
output when nothing is reduced, else a (kept x reduced) tile loop, fp32 throughout. Each operand
may have up to 4 kept and 3 reduced dims after merging. The output takes the dtype of the first
floating operand. amax/amin propagate NaN, as torch's do.

Knobs (scale-free, read by the launcher): `map_block`/`map_warps` for the flat map;
`tile_elems` elements per reduction tile, of which up to `r_block_max` along the reduced dims
(the rest are outputs), `red_warps` warps.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from templates.base import InvalidConfig, Param, Template
from templates.pointwise import check_op, check_source, declared_params, render_expression

REDUCE_OPS = ("sum", "mean", "amax", "amin")
MAX_KEPT_DIMS = 4
MAX_REDUCED_DIMS = 3


@dataclass(frozen=True)
class TailConfig:
    map_block: int
    map_warps: int
    tile_elems: int
    r_block_max: int
    red_warps: int
    red_split: int


SPACE = (
    Param("map_block", (512, 1024, 2048, 4096)),
    Param("map_warps", (2, 4, 8)),
    Param("tile_elems", (1024, 2048, 4096, 8192)),
    Param("r_block_max", (16, 64, 256, 1024, 4096)),
    Param("red_warps", (2, 4, 8, 16)),
    Param("red_split", (0, 1, 2, 4)),
)

DEFAULT = TailConfig(map_block=1024, map_warps=4, tile_elems=4096, r_block_max=1024, red_warps=8,
                     red_split=2)


def constraints(cfg: TailConfig) -> list[str]:
    problems = []
    if cfg.map_block // (32 * cfg.map_warps) < 1:
        problems.append("map_block is smaller than one element per thread of map_warps")
    if cfg.map_block // (32 * cfg.map_warps) > 32:
        problems.append("map_block holds more than 32 values per thread")
    if cfg.r_block_max > cfg.tile_elems:
        problems.append("r_block_max exceeds tile_elems")
    if cfg.tile_elems // (32 * cfg.red_warps) > 64:
        problems.append("the reduction tile holds more than 64 fp32 values per thread (spills)")
    if cfg.tile_elems // (32 * cfg.red_warps) < 1:
        problems.append("the reduction tile is smaller than one element per thread")
    return problems


def bytes_moved(operand_elems: list[int], n_out: int, itemsize: int) -> int:
    """Every operand read once (broadcast operands at their own size), the output written once."""
    return (sum(operand_elems) + n_out) * itemsize


def _check_inputs(inputs: Any, params: Any) -> list[dict]:
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise InvalidConfig("inputs must be a non-empty list of {source, ...} dicts")
    declared = declared_params(params)
    checked = []
    for i, spec in enumerate(inputs):
        where = f"inputs[{i}]"
        check_source(spec, where, declared)
        view = spec.get("view")
        if view is not None and (not isinstance(view, (list, tuple)) or not all(
                isinstance(v, int) and not isinstance(v, bool) for v in view)):
            raise InvalidConfig(f"{where}: view must be a list of ints, got {view!r}")
        checked.append({**spec, "view": list(view) if view is not None else None})
    return checked


def _check_reduce(reduce: Any) -> dict | None:
    if reduce is None:
        return None
    if not isinstance(reduce, dict) or reduce.get("op") not in REDUCE_OPS:
        raise InvalidConfig(f"reduce must be null or {{op: one of {list(REDUCE_OPS)}, dims, "
                            f"keepdim}}, got {reduce!r:.80}")
    dims = reduce.get("dims")
    if not isinstance(dims, (list, tuple)) or not dims or not all(
            isinstance(d, int) and d >= 0 for d in dims) or len(set(dims)) != len(dims):
        raise InvalidConfig(f"reduce.dims must be distinct non-negative ints, got {dims!r}")
    correction = reduce.get("correction")
    if correction is not None and (reduce["op"] != "mean" or isinstance(correction, bool)
                                   or not isinstance(correction, (int, float))
                                   or correction != correction):
        raise InvalidConfig(f"reduce.correction is a number, for a mean only, got {correction!r}")
    checked = {"op": reduce["op"], "dims": sorted(dims), "keepdim": bool(reduce.get("keepdim"))}
    return {**checked, "correction": float(correction)} if correction else checked


@dataclass(frozen=True)
class TailTemplate(Template):
    def render(self, cfg: Any, **context: Any) -> str:
        if "expr" in context and "inputs" in context:
            check_op(self.name, context)
            inputs = _check_inputs(context["inputs"], context.get("params", []))
            rendered = render_expression(context["expr"], len(inputs))
            reduce = _check_reduce(context.get("reduce"))
            post = context.get("post")
            if post is not None and reduce is None:
                raise InvalidConfig("post applies to a reduced value: it needs a reduce")
            post_rendered = None if post is None else render_expression(
                post, 0, leaves={"reduced": "res"})
            if post_rendered is not None and "reduced" not in post_rendered.used_leaves:
                raise InvalidConfig("post must read the reduced value, the leaf ['reduced']")
            context = {**context, "inputs": inputs, "expr_lines": rendered.lines,
                       "expr_result": rendered.result, "reduce": reduce,
                       "expr_json": json.dumps(context["expr"]),
                       "post_lines": post_rendered.lines if post_rendered else [],
                       "post_result": post_rendered.result if post_rendered else None,
                       "post_json": json.dumps(post)}
        return super().render(cfg, **context)


TEMPLATE = TailTemplate(
    name="tail",
    family="tail",
    jinja_file="tail.py.jinja",
    config_type=TailConfig,
    space=SPACE,
    default=DEFAULT,
    constraints=constraints,
    bytes_moved=bytes_moved,
    launcher="launch_<op>",
    doc=__doc__ or "",
)
