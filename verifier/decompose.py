"""Rewrite composite torch functions in a captured graph into the primitives the planner matches.

`F.normalize`, `torch.norm`, `torch.var`, `F.smooth_l1_loss` and the like are each a few pointwise
ops and reductions; written out, the pointwise, tail and reduce families cover them. Each rule
follows the function's own definition in PyTorch, edge cases included (a zero row, inf, NaN; the
verifier judges the kernels against the functions themselves, not against these rules):

- F.normalize(x, p, dim, eps): x / clamp(norm(x, p, dim, keepdim=True), min=eps)
- torch.norm, Tensor.norm, torch.linalg.vector_norm at p 1, 2 ("fro") and inf: sum(abs(x)),
  sqrt(sum(square(x))), amax(abs(x))
- F.softsign(x): x / (abs(x) + 1); torch.selu, F.selu: SCALE * elu(x, ALPHA);
  F.logsigmoid(x): -softplus(-x)
- torch.var, torch.std and their methods: mean(square(x - mean(x, keepdim))), and its sqrt;
  with a correction (Bessel's by default) the last mean is `corrected_mean`, the sum divided by
  max(n - correction, 0), one leaf call whose n the kernel takes from the call's shape
- F.smooth_l1_loss, F.huber_loss, with d = abs(x - y) and m = clamp(d, max=beta):
  0.5 m m / beta + (d - m), Huber 0.5 m m + (d - m) delta; F.mse_loss, F.l1_loss: square(x - y),
  abs(x - y); then the reduction (mean, sum or none)
- torch.pow(x, n) (and x ** n) at ATen's special exponents: 3: x x x, 0.5: sqrt, -0.5: rsqrt,
  -1: 1 / x, -2: 1 / (x x)
- F.pairwise_distance(x1, x2, p, eps): norm(x1 - x2 + eps, p, dim=-1); F.triplet_margin_loss:
  clamp(margin + d(a, p) - d(a, n), min=0) reduced; F.cosine_similarity(x1, x2, dim, eps):
  sum(x1 / clamp(norm(x1), min=eps) * x2 / clamp(norm(x2), min=eps), dim)
- F.kl_div(input, target): where(target == 0, 0, target log(target)) - target input (a log
  target: exp(target) (target - input)), reduced; "batchmean" as the mean over dim 0 of the sums
  over the other dims
- Tensor.cumsum, .cumprod, .flip, .tril, .triu and .diag: the torch functions (a library call
  each, verifier.capture.LIBRARY_CALLS, which the planner keeps between its generated kernels)
- torch.max/min(x): amax/amin over every dim; torch.max/min(x, other): maximum/minimum;
  torch.max/min(x, dim)[0] (.values): amax/amin(x, dim), [1] (.indices): argmax/argmin(x, dim)

A call in a form these do not cover (another p, an `out=`) is left as
it is, and the planner reports it as unmatched, as before. A rule may use the captured call's rank,
never its sizes: the verifier draws each task at other shapes than the one captured.
"""

from __future__ import annotations

import math
import operator
from typing import Any, Callable

import torch
import torch.fx
import torch.nn.functional as F
from torch.fx.proxy import GraphAppendingTracer, Proxy

# torch.nn.functional.selu's constants (Klambauer et al.)
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


class _Skip(Exception):
    """The call's form is not one the rule writes out: leave the node as it is."""


def _rank(node: Any) -> int:
    """A node's rank: from its propagated shape, or, for an elementwise node a rule wrote (not
    propagated yet), its operands' broadcast rank."""
    if isinstance(node, Proxy):
        node = node.node
    if not isinstance(node, torch.fx.Node):
        return 0
    meta = node.meta.get("tensor_meta")
    if meta is not None and hasattr(meta, "shape"):
        return len(meta.shape)
    if node.op != "call_function" or node.target not in _ELEMENTWISE:
        raise _Skip
    return max((_rank(a) for a in node.args), default=0)


_ELEMENTWISE = (operator.add, operator.sub, operator.mul, operator.truediv, operator.neg,
                operator.eq, torch.where, torch.exp, torch.log, torch.abs, torch.square,
                torch.sqrt, torch.rsqrt, torch.clamp)


def _dims(x: Proxy, dim: Any) -> list[int]:
    rank = _rank(x)
    if dim is None:
        return list(range(rank))
    if isinstance(dim, int) and not isinstance(dim, bool):
        dim = [dim]
    if not isinstance(dim, (list, tuple)) or not dim or \
            not all(isinstance(d, int) and not isinstance(d, bool) for d in dim):
        raise _Skip
    return sorted({d % max(rank, 1) for d in dim})


def _vector_norm(x: Proxy, p: Any, dim: Any, keepdim: bool) -> Proxy:
    dims = _dims(x, dim)
    if p in (2, 2.0, "fro", None):
        return torch.sqrt(torch.sum(torch.square(x), dims, keepdim=keepdim))
    if p in (1, 1.0):
        return torch.sum(torch.abs(x), dims, keepdim=keepdim)
    if p == math.inf:
        return torch.amax(torch.abs(x), dims, keepdim=keepdim)
    raise _Skip


def _normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    if out is not None:
        raise _Skip
    return input / torch.clamp(_vector_norm(input, p, dim, True), min=eps)


def _norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    if out is not None or dtype is not None:
        raise _Skip
    return _vector_norm(input, p, dim, keepdim)


def _linalg_vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    if out is not None or dtype is not None:
        raise _Skip
    return _vector_norm(x, ord, dim, keepdim)


def _softsign(input):
    return input / (torch.abs(input) + 1)


def _selu(input, inplace=False):
    if inplace:
        raise _Skip
    return F.elu(input, SELU_ALPHA) * SELU_SCALE


def _logsigmoid(input):
    return -F.softplus(-input)


def corrected_mean(input: torch.Tensor, dim: list[int], keepdim: bool,
                   correction: float) -> torch.Tensor:
    """The sum of `input` over `dim` divided by max(n - correction, 0), n the count of values it
    sums: the last step of var and std with a correction (PyTorch's own divisor). A rule writes
    it as one call node (a leaf the planner's tail matcher reads as a mean whose divisor the
    kernel takes from the call's shape), so no captured size enters the kernel."""
    n = math.prod(input.shape[d] for d in dim)
    return torch.sum(input, dim, keepdim=keepdim) / max(n - correction, 0)


def _variance(input, args: tuple, kwargs: dict, root: bool) -> Proxy:
    # torch.var(input, dim=None, unbiased=True, keepdim=False), torch.var(input, unbiased),
    # torch.var(input, dim, *, correction=1, keepdim=False)
    args = list(args)
    dim = None
    if args and not isinstance(args[0], bool):
        dim = args.pop(0)
    unbiased = args.pop(0) if args else kwargs.pop("unbiased", None)
    keepdim = args.pop(0) if args else kwargs.pop("keepdim", False)
    correction = kwargs.pop("correction", None)
    dim = kwargs.pop("dim", dim)
    if args or kwargs or not isinstance(keepdim, bool) or \
            (unbiased is not None and correction is not None):
        raise _Skip
    if correction is None:
        correction = 0 if unbiased is False else 1
    if isinstance(correction, bool) or not isinstance(correction, (int, float)):
        raise _Skip
    dims = _dims(input, dim)
    centred = input - torch.mean(input, dims, keepdim=True)
    if correction == 0:
        var = torch.mean(torch.square(centred), dims, keepdim=keepdim)
    else:
        # the divisor n - correction depends on the call's shape: one leaf call (corrected_mean)
        # that the kernel divides by its own n, never the captured one
        var = centred.tracer.create_proxy(
            "call_function", corrected_mean, (torch.square(centred), dims, keepdim,
                                              correction), {})
    return torch.sqrt(var) if root else var


def _var(input, *args, **kwargs):
    return _variance(input, args, kwargs, root=False)


def _std(input, *args, **kwargs):
    return _variance(input, args, kwargs, root=True)


def _reduce(loss: Proxy, reduction: str) -> Proxy:
    if reduction == "mean":
        return torch.mean(loss)
    if reduction == "sum":
        return torch.sum(loss)
    if reduction == "none":
        return loss
    raise _Skip


def _no_legacy(size_average, reduce) -> None:
    if size_average is not None or reduce is not None:
        raise _Skip


def _smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    _no_legacy(size_average, reduce)
    if isinstance(beta, bool) or not isinstance(beta, (int, float)) or beta < 0:
        raise _Skip
    d = torch.abs(input - target)
    if beta == 0:
        return _reduce(d, reduction)
    m = torch.clamp(d, max=float(beta))
    # in torch's order of operations where |x - y| < beta (0.5 * d * d / beta; d - m is 0 there)
    return _reduce(0.5 * m * m / float(beta) + (d - m), reduction)


def _huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    if weight is not None or isinstance(delta, bool) or not isinstance(delta, (int, float)) \
            or delta <= 0:
        raise _Skip
    d = torch.abs(input - target)
    m = torch.clamp(d, max=float(delta))
    return _reduce(0.5 * m * m + (d - m) * float(delta), reduction)


def _mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    _no_legacy(size_average, reduce)
    if weight is not None:
        raise _Skip
    return _reduce(torch.square(input - target), reduction)


def _l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    _no_legacy(size_average, reduce)
    return _reduce(torch.abs(input - target), reduction)


def _kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    # ATen: exp(t) * (t - input) for a log target, else xlogy(t, t) - t * input, where xlogy is 0
    # at t == 0 (and NaN for a NaN t, which t * log(t) is too)
    _no_legacy(size_average, reduce)
    if log_target:
        loss = torch.exp(target) * (target - input)
    else:
        loss = torch.where(target == 0, 0.0, target * torch.log(target)) - target * input
    if reduction != "batchmean":
        return _reduce(loss, reduction)
    # the sum over every element divided by the batch: the mean over dim 0 of the sums over the
    # other dims, so no size is written into the kernel
    rank = _rank(loss)
    if rank <= 1:
        return torch.mean(loss)
    return torch.mean(torch.sum(loss, list(range(1, rank))))


def _pow(input, exponent):
    # ATen's own special cases of a scalar exponent (pow_tensor_scalar_optimized_kernel), so
    # the written-out form rounds as torch's does; 2 is the pointwise family's square already
    if not isinstance(input, Proxy) or isinstance(exponent, bool) or \
            not isinstance(exponent, (int, float)) or \
            not hasattr(input.node.meta.get("tensor_meta"), "shape"):
        raise _Skip  # a tensor's power: not a size's (q.size(-1) ** -0.5 is a Python number)
    if exponent == 3:
        return input * input * input
    if exponent == 0.5:
        return torch.sqrt(input)
    if exponent == -0.5:
        return torch.rsqrt(input)
    if exponent == -1:
        return 1.0 / input
    if exponent == -2:
        return 1.0 / (input * input)
    raise _Skip


def _pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    # torch: norm(x1 - x2 + eps, p, dim=-1, keepdim)
    return _vector_norm(x1 - x2 + float(eps), p, -1, keepdim)


def _triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                         size_average=None, reduce=None, reduction="mean"):
    _no_legacy(size_average, reduce)
    if swap:
        raise _Skip
    d_pos = _pairwise_distance(anchor, positive, p, eps)
    d_neg = _pairwise_distance(anchor, negative, p, eps)
    return _reduce(torch.clamp(float(margin) + d_pos - d_neg, min=0.0), reduction)


def _cosine_similarity(x1, x2, dim=1, eps=1e-8):
    # torch: each side over its norm clamped at eps, then the sum of their product over dim
    n1 = torch.clamp(_vector_norm(x1, 2, dim, True), min=float(eps))
    n2 = torch.clamp(_vector_norm(x2, 2, dim, True), min=float(eps))
    return torch.sum((x1 / n1) * (x2 / n2), _dims(x1, dim))


def _flip(input, *dims, **kwargs):
    """Tensor.flip(*dims) or .flip(dims): torch.flip(input, dims)."""
    if "dims" in kwargs:
        if dims:
            raise TypeError("flip: dims given twice")
        dims = kwargs.pop("dims")
    elif len(dims) == 1 and isinstance(dims[0], (list, tuple)):
        dims = dims[0]
    if kwargs:
        raise TypeError(f"flip: unexpected {sorted(kwargs)}")
    return torch.flip(input, list(dims))


_RULES: dict[Any, Callable[..., Proxy]] = {
    # Tensor methods whose torch function takes the same arguments after the tensor
    **{name: getattr(torch, name) for name in ("cumsum", "cumprod", "tril", "triu", "diag")},
    "flip": _flip,
    torch.pow: _pow, operator.pow: _pow, "pow": _pow,
    F.pairwise_distance: _pairwise_distance, F.triplet_margin_loss: _triplet_margin_loss,
    F.cosine_similarity: _cosine_similarity, F.kl_div: _kl_div,
    F.normalize: _normalize,
    torch.norm: _norm, "norm": _norm,
    torch.linalg.vector_norm: _linalg_vector_norm,
    F.softsign: _softsign,
    torch.selu: _selu, F.selu: _selu,
    F.logsigmoid: _logsigmoid,
    torch.var: _var, "var": _var, torch.std: _std, "std": _std,
    F.smooth_l1_loss: _smooth_l1_loss, F.huber_loss: _huber_loss,
    F.mse_loss: _mse_loss, F.l1_loss: _l1_loss,
}

# torch.max / torch.min and their methods: the reductions they stand for
_EXTREMES = {torch.max: ("amax", "argmax", torch.maximum), "max": ("amax", "argmax", torch.maximum),
             torch.min: ("amin", "argmin", torch.minimum), "min": ("amin", "argmin", torch.minimum)}


def _rule(node: torch.fx.Node) -> Callable[..., Proxy] | None:
    if node.op not in ("call_function", "call_method"):
        return None
    try:
        return _RULES.get(node.target)
    except TypeError:  # an unhashable target
        return None


def _extreme(graph: torch.fx.Graph, node: torch.fx.Node) -> bool:
    """torch.max/min in its three forms; True when the node was rewritten."""
    try:
        names = _EXTREMES.get(node.target)
    except TypeError:
        return False
    if node.op not in ("call_function", "call_method") or names is None:
        return False
    values_op, indices_op, pairwise = names
    args, kwargs = list(node.args), dict(node.kwargs)
    x = args.pop(0) if args else kwargs.pop("input", None)
    other = args[0] if args and isinstance(args[0], torch.fx.Node) else kwargs.get("other")
    tracer = GraphAppendingTracer(graph)
    if other is not None:
        if len(args) > 1 or set(kwargs) - {"other"}:
            return False
        with graph.inserting_before(node):
            new = graph.call_function(pairwise, (x, other))
        _replace(graph, node, new)
        return True
    dim = args.pop(0) if args else kwargs.pop("dim", None)
    keepdim = args.pop(0) if args else kwargs.pop("keepdim", False)
    if args or kwargs or not isinstance(x, torch.fx.Node) or not isinstance(keepdim, bool):
        return False
    reduce = getattr(torch, values_op)
    if dim is None:  # one tensor, the extreme over every element
        with graph.inserting_before(node):
            try:
                new = reduce(Proxy(x, tracer), _dims(Proxy(x, tracer), None)).node
            except _Skip:
                return False
        _replace(graph, node, new)
        return True
    if isinstance(dim, bool) or not isinstance(dim, int):
        return False
    # (values, indices): each use of either part reads its own reduction
    parts = []
    for user in node.users:
        index = user.args[1] if len(user.args) == 2 else None
        part = {0: 0, 1: 1, "values": 0, "indices": 1}.get(index) \
            if user.op == "call_function" and user.target in (operator.getitem, getattr) \
            else None
        if part is None or (part == 1 and indices_op is None):
            return False
        parts.append((user, part))
    for user, part in parts:
        op = reduce if part == 0 else getattr(torch, indices_op)
        with graph.inserting_before(user):
            new = graph.call_function(op, (x, dim), {"keepdim": keepdim})
        _replace(graph, user, new)
    graph.erase_node(node)
    return True


def _replace(graph: torch.fx.Graph, node: torch.fx.Node, new: torch.fx.Node) -> None:
    node.replace_all_uses_with(new)
    graph.erase_node(node)


def decompose(gm: torch.fx.GraphModule) -> bool:
    """Rewrite the graph's composite calls (module docstring); shapes must be propagated. True when
    anything changed (propagate again then)."""
    graph = gm.graph
    changed = False
    for node in list(graph.nodes):
        if _extreme(graph, node):
            changed = True
            continue
        rule = _rule(node)
        if rule is None:
            continue
        tracer = GraphAppendingTracer(graph)

        def proxy(n: torch.fx.Node) -> Proxy:
            return Proxy(n, tracer)

        with graph.inserting_before(node):
            args = torch.fx.node.map_arg(node.args, proxy)
            kwargs = torch.fx.node.map_arg(node.kwargs, proxy)
            before = set(graph.nodes)
            try:
                out = rule(*args, **kwargs)
            except Exception:  # noqa: BLE001 - a form the rule does not write out (_Skip, a
                # signature it does not bind): the call stays as it was, and the planner says so
                for added in reversed([n for n in graph.nodes if n not in before]):
                    graph.erase_node(added)  # what the rule wrote before it gave up
                continue
        if "tensor_meta" in node.meta:  # the same value: a later rule may read its rank
            out.node.meta.setdefault("tensor_meta", node.meta["tensor_meta"])
        _replace(graph, node, out.node)
        changed = True
    if changed:
        graph.lint()
        gm.recompile()
    return changed
