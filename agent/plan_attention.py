"""Attention matcher: F.scaled_dot_product_attention, and attention written out in PyTorch.

Two forms are recognized in a captured graph (agent.plan.capture), over a Model whose forward takes
(q, k, v) as (B, H, L, D) tensors:

- `F.scaled_dot_product_attention(q, k, v, is_causal=..., scale=..., enable_gqa=...)` with no
  attn_mask and dropout_p 0.
- the explicit form `softmax(S, dim=-1) @ v`, where S is built from `q @ k^T` (torch.matmul or @,
  k transposed over its last two dims) by, innermost first:
    * scaling: `* c`, `/ c` with c a number or `D ** -0.5` / `D ** 0.5` for D = q's last size
      (the scale must end up a constant or exactly 1/sqrt(D));
    * one score modifier on the scaled score: `+ (q_idx - kv_idx)` (relative position, index
      vectors from torch.arange in forward), or `cap * tanh(S / cap)` (soft cap);
    * a causal mask: `masked_fill(mask, -inf)` with mask `triu(ones, diagonal=1)`, `~tril(ones)`,
      `tril(ones) == 0` or `kv_idx > q_idx`; or `where(keep, S, -inf)` with the complement.

Anything else (another bias, a mask after a soft cap, an in-place op, a node whose meaning is not
read here) makes the matcher answer None: the graph is left to other families or to the LLM,
never guessed at.
"""

from __future__ import annotations

import builtins
import math
import operator
from typing import Any

import torch
import torch.fx
import torch.nn.functional as F

_MATMUL_F = (torch.matmul, operator.matmul)
_SOFTMAX_F = (torch.softmax, F.softmax, torch.Tensor.softmax)
_ADD_F = (operator.add, torch.add)
_SUB_F = (operator.sub, torch.sub)
_MUL_F = (operator.mul, torch.mul)
_DIV_F = (operator.truediv, torch.div)
_NEG_INF = float("-inf")


class _NotAttention(Exception):
    """Raised inside the walk: this part of the graph is not read here."""


def _fn(node: Any, functions: tuple, methods: tuple = ()) -> bool:
    if not isinstance(node, torch.fx.Node):
        return False
    if node.op == "call_function":
        return node.target in functions
    if node.op == "call_method":
        return node.target in methods
    return False


def _arg(node: torch.fx.Node, index: int, name: str, default: Any = None) -> Any:
    if name in node.kwargs:
        return node.kwargs[name]
    return node.args[index] if len(node.args) > index else default


def _shape(node: Any) -> tuple[int, ...] | None:
    meta = node.meta.get("tensor_meta") if isinstance(node, torch.fx.Node) else None
    return tuple(meta.shape) if meta is not None and hasattr(meta, "shape") else None


class _Walk:
    """One reading of the graph: q, k, v, and the nodes read so far."""

    def __init__(self, gm: torch.fx.GraphModule, q, k, v):
        self.gm, self.q, self.k, self.v = gm, q, k, v
        self.read: set[torch.fx.Node] = set()

    def mark(self, node: torch.fx.Node) -> torch.fx.Node:
        self.read.add(node)
        return node

    # ---- scalars: numbers, and powers of the head dim ------------------------------------------
    def head_dim_power(self, value: Any) -> tuple[float, float]:
        """(c, p) with value == c * D ** p, D the head dim; raises when it is neither."""
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value), 0.0
        if not isinstance(value, torch.fx.Node):
            raise _NotAttention(f"scalar {value!r}")
        if self.is_head_dim(value):
            return 1.0, 1.0
        if _fn(value, (operator.pow,)) and isinstance(value.args[1], (int, float)):
            c, p = self.head_dim_power(value.args[0])
            self.mark(value)
            return c ** value.args[1], p * value.args[1]
        if _fn(value, (operator.truediv,)):
            c1, p1 = self.head_dim_power(value.args[0])
            c2, p2 = self.head_dim_power(value.args[1])
            self.mark(value)
            return c1 / c2, p1 - p2
        if _fn(value, (operator.mul,)):
            c1, p1 = self.head_dim_power(value.args[0])
            c2, p2 = self.head_dim_power(value.args[1])
            self.mark(value)
            return c1 * c2, p1 + p2
        raise _NotAttention(f"scalar node {value.name}")

    def size_of(self, node: Any) -> tuple[torch.fx.Node, int] | None:
        """(tensor, dim) for `t.shape[dim]` / `t.size(dim)`, else None."""
        if not isinstance(node, torch.fx.Node):
            return None
        if node.op == "call_method" and node.target == "size" and len(node.args) == 2:
            return node.args[0], node.args[1]
        if (_fn(node, (operator.getitem,)) and isinstance(node.args[1], int)
                and _fn(node.args[0], (builtins.getattr,)) and node.args[0].args[1] == "shape"):
            return node.args[0].args[0], node.args[1]
        return None

    def is_head_dim(self, node: Any) -> bool:
        found = self.size_of(node)
        if found is None or found[0] not in (self.q, self.k) or found[1] not in (-1, 3):
            return False
        self.mark(node)
        return True

    def scalar(self, value: Any) -> tuple[float, float]:
        try:
            return self.head_dim_power(value)
        except (_NotAttention, ZeroDivisionError, OverflowError):
            raise _NotAttention("not a scale") from None

    # ---- index vectors (torch.arange) and masks --------------------------------------------------
    def index_axis(self, node: Any, scores_shape: tuple[int, ...]) -> str | None:
        """"q" for a vector of query positions along dim -2, "kv" for key positions along -1."""
        chain = []
        cur = node
        while isinstance(cur, torch.fx.Node):
            if _fn(cur, (operator.getitem,)):
                index = cur.args[1] if isinstance(cur.args[1], tuple) else (cur.args[1],)
                if not all(i is None or i is Ellipsis or i == slice(None) for i in index):
                    return None
            elif _fn(cur, (torch.unsqueeze,), ("unsqueeze", "view", "reshape")):
                pass
            elif _fn(cur, (torch.arange,)):
                args = [a for a in cur.args]
                if len(args) == 1:
                    start, step = 0, 1
                elif len(args) in (2, 3):
                    start, step = args[0], (args[2] if len(args) == 3 else 1)
                else:
                    return None
                if start != 0 or step != 1 or set(cur.kwargs) - {"device", "dtype"}:
                    return None
                dtype = cur.kwargs.get("dtype")
                if dtype is not None and dtype not in (torch.int64, torch.int32, torch.long,
                                                       torch.int):
                    return None  # a float arange may round positions past 2^24 (or 2^8)
                chain.append(cur)
                break
            else:
                return None
            chain.append(cur)
            cur = cur.args[0]
        else:
            return None
        shape = _shape(node)
        if shape is None:
            return None
        big = [i - len(shape) for i, s in enumerate(shape) if s != 1]
        if len(big) != 1 or big[0] not in (-1, -2) or len(shape) > len(scores_shape):
            return None
        axis = big[0]
        if shape[axis] != scores_shape[axis]:
            return None
        for n in chain:
            self.mark(n)
        return "q" if axis == -2 else "kv"

    def mask_kind(self, node: Any, scores_shape) -> str:
        """"upper": True exactly where kv_idx > q_idx; "lower": True where kv_idx <= q_idx."""
        flip = {"upper": "lower", "lower": "upper"}
        if not isinstance(node, torch.fx.Node):
            raise _NotAttention("mask")
        if _fn(node, (torch.triu, torch.tril), ("triu", "tril")):
            name = node.target if isinstance(node.target, str) else node.target.__name__
            diagonal = _arg(node, 1, "diagonal", 0)
            self.ones(node.args[0], scores_shape)
            self.mark(node)
            if name == "triu" and diagonal == 1:
                return "upper"
            if name == "tril" and diagonal == 0:
                return "lower"
            raise _NotAttention(f"{name} with diagonal {diagonal}")
        if _fn(node, (torch.logical_not, operator.invert), ("logical_not", "bitwise_not")):
            kind = self.mask_kind(node.args[0], scores_shape)
            self.mark(node)
            return flip[kind]
        if _fn(node, (), ("bool",)) or (_fn(node, (), ("to",)) and node.args[1:] == (torch.bool,)
                                        and not node.kwargs):
            kind = self.mask_kind(node.args[0], scores_shape)
            self.mark(node)
            return kind
        if _fn(node, (operator.eq, torch.eq), ("eq",)) and node.args[1] in (0, False):
            kind = self.mask_kind(node.args[0], scores_shape)
            self.mark(node)
            return flip[kind]
        compare = {operator.gt: "gt", torch.gt: "gt", operator.lt: "lt", torch.lt: "lt",
                   operator.ge: "ge", torch.ge: "ge", operator.le: "le", torch.le: "le"}
        name = compare.get(node.target) if node.op == "call_function" else (
            node.target if node.op == "call_method" and node.target in ("gt", "lt", "ge", "le")
            else None)
        if name is not None:
            a = self.index_axis(node.args[0], scores_shape)
            b = self.index_axis(node.args[1], scores_shape)
            self.mark(node)
            table = {("gt", "kv", "q"): "upper", ("lt", "q", "kv"): "upper",
                     ("ge", "q", "kv"): "lower", ("le", "kv", "q"): "lower"}
            if (name, a, b) in table:
                return table[(name, a, b)]
        raise _NotAttention("mask")

    def ones(self, node: Any, scores_shape) -> None:
        if not _fn(node, (torch.ones,)) or set(node.kwargs) - {"dtype", "device"}:
            raise _NotAttention("not torch.ones")
        shape = _shape(node)
        if shape is None or len(shape) < 2 or shape[-2:] != scores_shape[-2:] or any(
                s != 1 for s in shape[:-2]):
            raise _NotAttention("ones of another shape")
        self.mark(node)

    # ---- the score expression ----------------------------------------------------------------
    def scores(self, node: torch.fx.Node) -> dict:
        """Peel S from the outside in; returns scale, score_mod, softcap, is_causal."""
        shape = _shape(node)
        if shape is None:
            raise _NotAttention("no shape")
        steps: list[tuple] = []  # outermost first
        cur = node
        while True:
            self.mark(cur)
            if _fn(cur, _MATMUL_F, ("matmul",)):
                self.qk(cur)
                break
            if _fn(cur, (torch.masked_fill,), ("masked_fill",)):
                if cur.args[2] != _NEG_INF or self.mask_kind(cur.args[1], shape) != "upper":
                    raise _NotAttention("masked_fill other than a causal -inf")
                steps.append(("causal",))
                cur = cur.args[0]
                continue
            if _fn(cur, (torch.where,)) and len(cur.args) == 3 and cur.args[2] == _NEG_INF:
                if self.mask_kind(cur.args[0], shape) != "lower":
                    raise _NotAttention("where with another mask")
                steps.append(("causal",))
                cur = cur.args[1]
                continue
            softcap = self.softcap(cur)
            if softcap is not None:
                steps.append(("softcap", softcap[0]))
                cur = softcap[1]
                continue
            if _fn(cur, _ADD_F, ("add",)) and len(cur.args) == 2 and not cur.kwargs:
                a, b = cur.args
                for x, bias in ((a, b), (b, a)):
                    if isinstance(bias, torch.fx.Node) and self.is_relpos(bias, shape):
                        steps.append(("relative_position",))
                        cur = x
                        break
                else:
                    raise _NotAttention("an added term other than q_idx - kv_idx")
                continue
            if _fn(cur, _MUL_F, ("mul",)) and len(cur.args) == 2 and not cur.kwargs:
                a, b = cur.args
                tensor, other = (a, b) if _shape(a) is not None else (b, a)
                steps.append(("scale", self.scalar(other)))
                cur = tensor
                continue
            if _fn(cur, _DIV_F, ("div",)) and len(cur.args) == 2 and not cur.kwargs:
                c, p = self.scalar(cur.args[1])
                steps.append(("scale", (1.0 / c, -p)))
                cur = cur.args[0]
                continue
            raise _NotAttention(f"score node {cur.name}")
        return self.fold(list(reversed(steps)))

    def fold(self, steps: list[tuple]) -> dict:
        """Innermost-first steps -> the kernel's terms, when they mean what it computes."""
        const, power = 1.0, 0.0
        mods: list[tuple] = []
        causal = False
        for step in steps:
            if step[0] == "scale":
                if mods:
                    raise _NotAttention("a scale applied after a score modifier")
                const, power = const * step[1][0], power + step[1][1]
            elif step[0] == "causal":
                causal = True
            else:
                if causal and step[0] == "softcap":
                    raise _NotAttention("a mask before a soft cap (tanh(-inf) is no mask)")
                mods.append(step)
        if len(mods) > 1:
            raise _NotAttention("more than one score modifier")
        if power == 0.0 and const > 0:
            scale = const
        elif math.isclose(power, -0.5) and math.isclose(const, 1.0):
            scale = None  # 1/sqrt(D), read from q at call time
        else:
            raise _NotAttention(f"scale {const} * D ** {power}")
        mod = mods[0] if mods else None
        return {"scale": scale, "score_mod": mod[0] if mod else None,
                "softcap": mod[1] if mod and mod[0] == "softcap" else None, "is_causal": causal}

    def qk(self, node: torch.fx.Node) -> None:
        a, b = node.args[0], node.args[1]
        if a is not self.q:
            raise _NotAttention("the score matmul's left operand is not q")
        if _fn(b, (torch.transpose,), ("transpose",)) and b.args[0] is self.k and \
                {b.args[1] % 4, b.args[2] % 4} == {2, 3}:
            self.mark(b)
            return
        if _fn(b, (builtins.getattr,)) and b.args == (self.k, "mT"):
            self.mark(b)
            return
        if _fn(b, (torch.permute,), ("permute",)):
            dims = b.args[1] if isinstance(b.args[1], (tuple, list)) else b.args[1:]
            if b.args[0] is self.k and [d % 4 for d in dims] == [0, 1, 3, 2]:
                self.mark(b)
                return
        raise _NotAttention("the score matmul's right operand is not k transposed")

    def softcap(self, node: torch.fx.Node) -> tuple[float, torch.fx.Node] | None:
        """cap * tanh(x / cap) (either operand order of the product) -> (cap, x)."""
        if not (_fn(node, _MUL_F, ("mul",)) and len(node.args) == 2):
            return None
        for cap, t in (node.args, tuple(reversed(node.args))):
            if isinstance(cap, (int, float)) and _fn(t, (torch.tanh,), ("tanh",)):
                inner = t.args[0]
                if _fn(inner, _DIV_F, ("div",)) and inner.args[1] == cap and cap > 0:
                    self.mark(t)
                    self.mark(inner)
                    return float(cap), inner.args[0]
        return None

    def is_relpos(self, bias: torch.fx.Node, shape) -> bool:
        if not (_fn(bias, _SUB_F, ("sub",)) and len(bias.args) == 2):
            return False
        if (self.index_axis(bias.args[0], shape), self.index_axis(bias.args[1], shape)) != (
                "q", "kv"):
            return False
        self.mark(bias)
        return True


def _sdpa(graph, node: torch.fx.Node, q, k, v) -> dict | None:
    if tuple(node.args[:3]) != (q, k, v):
        return None
    if _arg(node, 3, "attn_mask") is not None or _arg(node, 4, "dropout_p", 0.0) != 0.0:
        return None
    is_causal = _arg(node, 5, "is_causal", False)
    if not isinstance(is_causal, bool):
        return None
    walk = _Walk(graph.gm, q, k, v)
    raw_scale = _arg(node, 6, "scale")
    if raw_scale is None:
        scale = None
    else:
        try:
            scale = walk.fold([("scale", walk.scalar(raw_scale))])["scale"]
        except _NotAttention:
            return None
    sq, sk = _shape(q), _shape(k)
    if sq is None or sk is None:
        return None
    if sq[1] != sk[1] and not _arg(node, 7, "enable_gqa", False):
        return None  # SDPA itself refuses this call
    return {"scale": scale, "score_mod": None, "softcap": None, "is_causal": is_causal,
            "_read": walk.read | {node}}


def _explicit(graph, out: torch.fx.Node, q, k, v) -> dict | None:
    if not _fn(out, _MATMUL_F, ("matmul",)) or out.args[1] is not v:
        return None
    p = out.args[0]
    if not _fn(p, _SOFTMAX_F, ("softmax",)):
        return None
    dim = _arg(p, 1, "dim")
    rank = len(_shape(p) or ())
    if not isinstance(dim, int) or dim % max(rank, 1) != rank - 1:
        return None
    if _arg(p, 2, "dtype") is not None:
        return None
    walk = _Walk(graph.gm, q, k, v)
    try:
        found = walk.scores(p.args[0])
    except _NotAttention:
        return None
    return {**found, "_read": walk.read | {out, p}}


def match_attention(graph) -> dict | None:
    """The attention render context for a graph that computes attention, else None."""
    placeholders = graph.placeholders
    outputs = graph.outputs
    if len(placeholders) != 3 or len(outputs) != 1 or not isinstance(outputs[0], torch.fx.Node):
        return None
    q, k, v = placeholders
    shapes = [_shape(x) for x in (q, k, v)]
    if any(s is None or len(s) != 4 for s in shapes):
        return None
    (b, hq, lq, d), (bk, hk, lk, dk), (bv, hv, lv, dv) = shapes
    if not (b == bk == bv and hk == hv and lk == lv and d == dk == dv and hk and hq % hk == 0):
        return None
    out = outputs[0]
    if _fn(out, (F.scaled_dot_product_attention,)):
        found = _sdpa(graph, out, q, k, v)
    else:
        found = _explicit(graph, out, q, k, v)
    if found is None:
        return None
    # Every tensor the graph computes must have been read: an in-place op or a stray tensor would
    # otherwise change the meaning behind the matcher's back.
    read = found.pop("_read")
    for node in graph.compute:
        if node not in read and _shape(node) is not None:
            return None
        if node.op == "call_method" and str(node.target).endswith("_"):
            return None
    mod = found["score_mod"]
    default_op = "scaled_dot_product_attention" if mod is None else {
        "relative_position": "attention_relpos", "softcap": "attention_softcap",
    }[mod]
    op = graph.task.op or default_op
    return {"op": op, "family": "attention", "template": "attention", "alternatives": (),
            "bucket": "any",
            "context": {"op": op, "params": [], "window": None, **found}}
