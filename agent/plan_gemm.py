"""The GEMM matcher: one matmul (x @ w, torch.matmul/mm/bmm, addmm, F.linear) whose operands are
forward arguments or Model parameters, possibly transposed (`.t()`, `.T`, `.mT`,
`transpose(-2, -1)`), followed by a pointwise chain (bias, activation, scale, residual) and,
last, optionally a LayerNorm or RMSNorm of the last dim (the template's `row_norm`: its weight
and bias become "row" inputs after the chain's).

The chain becomes the gemm template's epilogue: an expression tree in templates/pointwise.py's
format whose leaf ["acc"] is the fp32 matmul result; its other operands are "row" (a bias over N),
"full" (the output's shape: a residual) or "scalar" inputs. F.linear's bias and addmm's input are
folded into the epilogue as an add (scaled by addmm's alpha and beta). The context records the
launcher's argument order, `launch_<op>(a, b, *inputs)`, and where each argument comes from.
A Linear whose epilogue is a function of acc (+ a row bias) alone has the CUDA C++ template
`gemm_cuda` as an alternative (`kzoo optimize --template gemm_cuda`).
"""

from __future__ import annotations

import builtins
import json
import operator
from typing import Any

import torch
import torch.fx
import torch.nn.functional as F

from agent.plan import Graph, PointwiseExpr, _arg, _is, _norm_node

_MATMUL_FUNCTIONS = (operator.matmul, torch.matmul, torch.mm, torch.bmm)
_MATMUL_METHODS = ("matmul", "mm", "bmm")


def _kind(node: torch.fx.Node) -> str | None:
    if _is(node, _MATMUL_FUNCTIONS, _MATMUL_METHODS):
        return "matmul"
    if _is(node, (F.linear,)):
        return "linear"
    if _is(node, (torch.addmm,), ("addmm",)):
        return "addmm"
    return None


def _swaps_last_two(graph: Graph, node: torch.fx.Node) -> bool:
    """Whether `node` transposes the last two dims of its first argument (and does nothing else)."""
    if node.op not in ("call_function", "call_method") or not node.args:
        return False
    rank = graph.rank(node.args[0])
    if _is(node, (torch.t,), ("t",)):
        return rank == 2
    if node.op == "call_function" and node.target is builtins.getattr:
        return (node.args[1] == "T" and rank == 2) or (node.args[1] == "mT" and rank >= 2)
    if _is(node, (torch.transpose,), ("transpose",)) and len(node.args) == 3 and rank >= 2:
        dims = {d % rank for d in node.args[1:] if isinstance(d, int)}
        return dims == {rank - 2, rank - 1}
    return False


def _operand(graph: Graph, node: Any) -> tuple[dict, tuple[int, ...]] | None:
    """Where an operand comes from, whether it is transposed, and its shape as the matmul sees
    it (after the transpose)."""
    if not isinstance(node, torch.fx.Node):
        return None
    transposed = False
    while _swaps_last_two(graph, node):
        transposed = not transposed
        node = node.args[0]
    if node.op == "placeholder":
        source: dict = {"source": "arg", "index": graph.placeholders.index(node)}
        shape = graph.shape(node)
    elif node.op == "get_attr":
        try:
            owner, _, name = str(node.target).rpartition(".")
            shape = tuple(getattr(graph.gm.get_submodule(owner), name).shape)
        except AttributeError:  # a buffer: ModelNew mirrors parameters only
            return None
        source = {"source": "param", "path": str(node.target)}
    else:
        return None
    if shape is None or len(shape) < 2:
        return None  # a matrix-vector product is not a GEMM the template covers
    if transposed:
        shape = (*shape[:-2], shape[-1], shape[-2])
    return {**source, "transposed": transposed}, shape


def match_gemm(graph: Graph) -> dict | None:
    outputs = graph.outputs
    if len(outputs) != 1 or not isinstance(outputs[0], torch.fx.Node):
        return None
    found = [(n, _kind(n)) for n in graph.compute if _kind(n) is not None]
    if len(found) != 1:
        return None
    node, kind = found[0]
    if kind == "linear":
        x, weight, bias = node.args[0], _arg(node, 1, "weight"), _arg(node, 2, "bias")
        a, w = _operand(graph, x), _operand(graph, weight)
        if w is None or len(w[1]) != 2:
            return None
        b = ({**w[0], "transposed": not w[0]["transposed"]}, (w[1][1], w[1][0]))
        addend, alpha, beta = bias, 1.0, 1.0
    elif kind == "addmm":
        addend = node.args[0]
        a, b = _operand(graph, node.args[1]), _operand(graph, node.args[2])
        alpha, beta = _arg(node, 4, "alpha", 1), _arg(node, 3, "beta", 1)
        if not all(isinstance(v, (int, float)) for v in (alpha, beta)):
            return None
    else:
        a, b = _operand(graph, node.args[0]), _operand(graph, node.args[1])
        addend, alpha, beta = None, 1.0, 1.0
    if a is None or b is None:
        return None
    (a_spec, a_shape), (b_spec, b_shape) = a, b
    if a_shape[-1] != b_shape[-2]:
        return None
    if len(a_shape) > 2 and len(b_shape) > 2 and a_shape[:-2] != b_shape[:-2]:
        return None  # broadcast batch dims: not covered
    out_shape = graph.shape(node)
    if out_shape is None or graph.shape(outputs[0]) != out_shape:
        return None
    # a LayerNorm or RMSNorm of the last dim, last: the template's row norm, after the epilogue
    chain_end, norm = outputs[0], _norm_node(graph, outputs[0])
    if norm is not None:
        if norm["normalized_ndim"] != 1 or not chain_end.args:
            return None
        chain_end = chain_end.args[0]
        if not isinstance(chain_end, torch.fx.Node):
            return None

    builder = PointwiseExpr(graph, out_shape)
    acc: list = ["acc"] if alpha == 1 else ["mul", ["acc"], ["const", float(alpha)]]
    if addend is not None:
        term = builder.convert(addend) if isinstance(addend, torch.fx.Node) else None
        if term is None or term[0] != "input":
            return None
        acc = ["add", acc, term if beta == 1 else ["mul", term, ["const", float(beta)]]]
    builder.substitutes[node.name] = acc
    epilogue = builder.convert(chain_end)
    if epilogue is None or '["acc"]' not in json.dumps(epilogue):
        return None
    row_norm = None
    if norm is not None:
        row_norm = {"kind": norm["kind"], "eps": norm["eps"], "weight": None, "bias": None}
        for key in ("weight", "bias"):
            path = norm[f"{key}_path"]
            if path is None:
                continue
            owner, _, name = path.rpartition(".")
            if tuple(getattr(graph.gm.get_submodule(owner), name).shape) != out_shape[-1:]:
                return None
            row_norm[key] = len(builder.inputs)
            builder.inputs.append({"kind": "row", "source": "param", "path": path})
        if row_norm["eps"] is not None and not isinstance(row_norm["eps"], (int, float)):
            return None

    op = graph.task.op or ("linear" if kind == "linear" else "matmul")
    params: list[dict] = []
    for spec in (a_spec, b_spec, *builder.inputs):
        if spec["source"] == "param" and {"path": spec["path"]} not in params:
            params.append({"path": spec["path"]})
    from kernel_zoo import buckets

    bucket = buckets.bucket_of(op, a_shape)  # matmul: skinny (rows_le_128) or not
    context = {"op": op, "a": a_spec, "b": b_spec, "epilogue": epilogue,
               "inputs": builder.inputs, "params": params,
               **({"row_norm": row_norm} if row_norm else {})}
    # the CUDA C++ Linear (templates/gemm_cuda.py) where it computes this context
    from templates.gemm_cuda import covers

    alternatives = ("gemm_cuda",) if covers(context) is None else ()
    return {"op": op, "family": "gemm", "template": "gemm", "alternatives": alternatives,
            "bucket": bucket, "context": context}
