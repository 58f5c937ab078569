"""Plan: capture Model.forward with torch.fx on meta tensors and match it to a template family.

Each family has a matcher that reads the captured graph and, when the graph is that family's op,
returns the render context its templates need. The families: row-wise softmax and log-softmax
(any dim), row normalizations (RMSNorm, LayerNorm, residual add + RMSNorm), reductions over a dim
(sum, mean, amax, amin, argmax, argmin), cross-entropy, GEMM with a pointwise epilogue
(agent.plan_gemm), and fused pointwise chains. A graph no matcher covers is reported plainly, with
what was found, rather than guessed at.
"""

from __future__ import annotations

import json
import operator
from dataclasses import dataclass, field
from typing import Any, Callable

import torch
import torch.fx
import torch.nn.functional as F

from agent.errors import PlanError
from agent.plan_attention import match_attention
from tasks import Task
from verifier.decompose import corrected_mean


@dataclass(frozen=True)
class Plan:
    op: str
    family: str
    template: str
    context: dict[str, Any] = field(default_factory=dict)  # render-time facts (dim, ...)
    graph: tuple[str, ...] = ()  # the captured nodes, for reports
    alternatives: tuple[str, ...] = ()  # other templates (CUDA C++) that cover the same op
    shape_bucket: str = "any"  # the zoo bucket a winner is promoted under
    # a graph no one template covers: its fusion groups and library calls (agent.compose)
    partition: Any = field(default=None, compare=False, repr=False)
    composite: Any = field(default=None, compare=False, repr=False)  # its CompositeTemplate

    def template_object(self, wanted: str | None = None):
        """The Template to search: the plan's own (a composed one for a partitioned graph), or one
        of its alternatives (a CUDA C++ one) when asked for by name."""
        from templates import get_template

        choices = (self.template, *self.alternatives)
        if wanted is not None and wanted not in choices:
            raise PlanError(f"template {wanted!r} does not cover {self.op}; "
                            f"its templates: {', '.join(choices)}")
        if self.composite is not None and wanted in (None, self.template):
            return self.composite
        return get_template(wanted or self.template)

    def describe(self) -> str:
        ctx = ", ".join(f"{k}={v}" for k, v in self.context.items() if k != "params")
        return f"{self.op}: family {self.family}, template {self.template} ({ctx})"


def capture(task: Task) -> tuple[torch.fx.GraphModule, list]:
    """fx graph of Model.forward with shapes propagated on meta tensors (no real memory)."""
    from verifier.capture import CaptureError, capture as flat_capture

    try:
        return flat_capture(task)
    except CaptureError as exc:
        raise PlanError(str(exc)) from exc


def _node_text(node: torch.fx.Node) -> str:
    meta = node.meta.get("tensor_meta")
    shape = f" {tuple(meta.shape)} {meta.dtype}" if meta is not None and hasattr(meta, "shape") else ""
    target = getattr(node.target, "__name__", str(node.target))
    return f"{node.op}:{target}{shape}"


def unmatched_why(node: torch.fx.Node) -> str | None:
    """Why no template takes `node`, where it can be told: an operand that is not a floating
    tensor (an index tensor; a boolean mask other than a pointwise kernel's input of its output's
    shape), which no template reads."""
    for arg in node.all_input_nodes:
        dtype = _dtype(arg)
        if dtype == torch.bool:
            return (f"its operand {arg.name} is torch.bool: the templates read a boolean mask "
                    "only as a pointwise kernel's argument of the output's shape")
        if isinstance(dtype, torch.dtype) and not dtype.is_floating_point:
            return f"its operand {arg.name} is {dtype}: the templates read floating tensors only"
    return None


def unmatched_text(node: torch.fx.Node) -> str:
    """An unmatched node as the planner's error and `kzoo analyze` name it: its call, and why
    where unmatched_why can tell."""
    why = unmatched_why(node)
    return _node_text(node) + (f" ({why})" if why else "")


@dataclass
class Graph:
    """The captured graph, with what matchers ask of it."""

    gm: torch.fx.GraphModule
    task: Task

    @property
    def placeholders(self) -> list[torch.fx.Node]:
        return [n for n in self.gm.graph.nodes if n.op == "placeholder"]

    @property
    def compute(self) -> list[torch.fx.Node]:
        return [n for n in self.gm.graph.nodes
                if n.op in ("call_function", "call_method", "call_module")
                and n.target is not operator.getitem]

    @property
    def outputs(self) -> list:
        out = next(n for n in self.gm.graph.nodes if n.op == "output").args[0]
        return list(out) if isinstance(out, (tuple, list)) else [out]

    def module(self, node: torch.fx.Node) -> torch.nn.Module | None:
        return self.gm.get_submodule(node.target) if node.op == "call_module" else None

    def rank(self, node: Any) -> int:
        meta = node.meta.get("tensor_meta") if isinstance(node, torch.fx.Node) else None
        return len(meta.shape) if meta is not None else 0

    def shape(self, node: Any) -> tuple[int, ...] | None:
        meta = node.meta.get("tensor_meta") if isinstance(node, torch.fx.Node) else None
        return tuple(meta.shape) if meta is not None else None


def _is(node: torch.fx.Node, functions: tuple = (), methods: tuple = (),
        modules: tuple = (), graph: Graph | None = None) -> bool:
    if node.op == "call_function":
        return node.target in functions
    if node.op == "call_method":
        return node.target in methods
    if node.op == "call_module" and graph is not None:
        return isinstance(graph.module(node), modules)
    return False


def _arg(node: torch.fx.Node, index: int, name: str, default: Any = None) -> Any:
    if name in node.kwargs:
        return node.kwargs[name]
    return node.args[index] if len(node.args) > index else default


def _param_path(node: Any) -> str | None:
    """The state_dict path of a parameter read by a get_attr node."""
    if isinstance(node, torch.fx.Node) and node.op == "get_attr":
        return str(node.target)
    return None


# ---- softmax, log-softmax ----------------------------------------------------------------------

def _match_softmax(graph: Graph) -> dict | None:
    compute = graph.compute
    if len(compute) != 1:
        return None
    node = compute[0]
    log = _is(node, (torch.log_softmax, F.log_softmax, torch.Tensor.log_softmax),
              ("log_softmax",), (torch.nn.LogSoftmax,), graph)
    plain = _is(node, (torch.softmax, F.softmax, torch.Tensor.softmax), ("softmax",),
                (torch.nn.Softmax,), graph)
    if not (log or plain) or not _reads_floating(node):
        return None
    module = graph.module(node)
    dim = module.dim if module is not None else _arg(node, 1, "dim")
    if not isinstance(dim, int):
        raise PlanError(f"{graph.task.path}: softmax needs an explicit integer dim, got {dim!r}.")
    if module is None and _arg(node, 2, "dtype") is not None:
        raise PlanError(f"{graph.task.path}: softmax with a dtype= argument is not covered yet.")
    rank = max(graph.rank(node.args[0]), 1)
    dim %= rank
    return {"op": "log_softmax" if log else "softmax", "family": "softmax_rows",
            "template": "softmax", "alternatives": ("softmax_cuda",),
            "bucket": "any" if dim == rank - 1 else "inner_dim",
            "context": {"op": "log_softmax" if log else "softmax", "log": log, "dim": dim,
                        "dim_is_last": dim == rank - 1, "params": []}}


# ---- RMSNorm, LayerNorm, residual add + RMSNorm ---------------------------------------------------

def _norm_node(graph: Graph, node: torch.fx.Node) -> dict | None:
    """kind, weight/bias paths, eps and normalized dims of one norm node, or None."""
    source = _arg(node, 0, "input")
    if not isinstance(source, torch.fx.Node) or not _floating(source):
        return None  # an integer row: left unmatched, for unmatched_why to name
    module = graph.module(node)
    if isinstance(module, (torch.nn.RMSNorm, torch.nn.LayerNorm)):
        kind = "rms" if isinstance(module, torch.nn.RMSNorm) else "layer"
        prefix = f"{node.target}."
        weight = prefix + "weight" if getattr(module, "weight", None) is not None else None
        bias = prefix + "bias" if getattr(module, "bias", None) is not None else None
        return {"kind": kind, "weight_path": weight, "bias_path": bias, "eps": module.eps,
                "normalized_ndim": len(module.normalized_shape)}
    if _is(node, (F.rms_norm, torch.rms_norm)):
        kind = "rms"
    elif _is(node, (F.layer_norm, torch.layer_norm)):
        kind = "layer"
    else:
        return None
    shape = _arg(node, 1, "normalized_shape")
    weight = _arg(node, 2, "weight")
    bias = _arg(node, 3, "bias") if kind == "layer" else None
    eps = _arg(node, 4 if kind == "layer" else 3, "eps", 1e-5 if kind == "layer" else None)
    for what, value in (("weight", weight), ("bias", bias)):
        if value is not None and _param_path(value) is None:
            raise PlanError(f"{graph.task.path}: the norm's {what} is not a Model parameter; "
                            "pass it as an nn.Parameter of the Model.")
    return {"kind": kind, "weight_path": _param_path(weight),
            "bias_path": _param_path(bias), "eps": eps,
            "normalized_ndim": 1 if isinstance(shape, int) else len(shape)}


def _norm_context(op: str, found: dict, residual: bool) -> dict:
    params = [{"path": p} for p in (found["weight_path"], found["bias_path"]) if p]
    return {"op": op, "family": "norm_rows", "template": "norm", "alternatives": (),
            "bucket": "any",
            "context": {"op": op, "residual": residual, "params": params, **found}}


def _match_norm(graph: Graph) -> dict | None:
    compute = graph.compute
    if len(compute) == 1:
        found = _norm_node(graph, compute[0])
        if found is None:
            return None
        return _norm_context("rms_norm" if found["kind"] == "rms" else "layer_norm", found, False)
    head = _norm_node(graph, compute[0]) if compute else None
    if head is not None:
        return _match_norm_epilogue(graph, compute[0], head)
    if len(compute) == 2:
        add, norm = compute
        found = _norm_node(graph, norm)
        is_add = _is(add, (operator.add, torch.add), ("add",))
        placeholders = graph.placeholders
        if (found is None or found["kind"] != "rms" or not is_add or norm.args[0] is not add
                or len(placeholders) != 2 or set(add.args) != set(placeholders)):
            return None
        if graph.outputs != [norm, add]:
            raise PlanError(f"{graph.task.path}: residual add + RMSNorm must return "
                            "(normed, x + residual), in that order.")
        return _norm_context("add_rms_norm", found, True)
    return None


def _match_norm_epilogue(graph: Graph, norm: torch.fx.Node, found: dict) -> dict | None:
    """A norm followed by a pointwise chain of it alone (activations, scales, constants): the
    chain becomes the norm template's epilogue, applied to the fp32 normalized row before its one
    store. Chains that read other tensors stay a separate pointwise group."""
    outputs = graph.outputs
    if len(outputs) != 1 or not isinstance(outputs[0], torch.fx.Node) or outputs[0] is norm:
        return None
    out_shape = graph.shape(norm)
    if out_shape is None or graph.shape(outputs[0]) != out_shape:
        return None
    builder = PointwiseExpr(graph, out_shape, substitutes={norm.name: ["acc"]})
    epilogue = builder.convert(outputs[0])
    if epilogue is None or builder.inputs or '["acc"]' not in json.dumps(epilogue):
        return None
    planned = _norm_context("rms_norm" if found["kind"] == "rms" else "layer_norm", found, False)
    planned["context"]["epilogue"] = epilogue
    return planned


# ---- reductions over a dim --------------------------------------------------------------------

_REDUCTIONS = {
    "sum": (torch.sum, torch.Tensor.sum), "mean": (torch.mean, torch.Tensor.mean),
    "amax": (torch.amax, torch.Tensor.amax), "amin": (torch.amin, torch.Tensor.amin),
    "argmax": (torch.argmax, torch.Tensor.argmax), "argmin": (torch.argmin, torch.Tensor.argmin),
}


def _match_reduce(graph: Graph) -> dict | None:
    compute = graph.compute
    if len(compute) != 1:
        return None
    node = compute[0]
    for op, functions in _REDUCTIONS.items():
        if _is(node, functions, (op,)):
            break
    else:
        return None
    if not _reads_floating(node):
        return None
    dim = _arg(node, 1, "dim")
    if isinstance(dim, (tuple, list)) and len(dim) == 1:
        dim = dim[0]
    if not isinstance(dim, int):
        raise PlanError(f"{graph.task.path}: {op} needs one integer dim (a reduction over all "
                        f"elements or several dims is not covered yet), got {dim!r}.")
    if _arg(node, 2, "keepdim", False):
        raise PlanError(f"{graph.task.path}: {op} with keepdim=True is not covered yet.")
    rank = max(graph.rank(node.args[0]), 1)
    dim %= rank
    return {"op": op, "family": "reduce", "template": "reduce", "alternatives": (),
            "bucket": "any" if dim == rank - 1 else "inner_dim",
            "context": {"op": op, "dim": dim, "rank": rank, "params": []}}


# ---- cross-entropy ----------------------------------------------------------------------------

def _match_cross_entropy(graph: Graph) -> dict | None:
    compute = graph.compute
    if len(compute) != 1:
        return None
    node = compute[0]
    module = graph.module(node)
    if isinstance(module, torch.nn.CrossEntropyLoss):
        ignore, reduction = module.ignore_index, module.reduction
        weight, smoothing = module.weight, module.label_smoothing
    elif _is(node, (F.cross_entropy,)):
        ignore = _arg(node, 4, "ignore_index", -100)
        reduction = _arg(node, 6, "reduction", "mean")
        weight = _arg(node, 2, "weight")
        smoothing = _arg(node, 7, "label_smoothing", 0.0)
    else:
        return None
    logits = _arg(node, 0, "input")
    # the target is an index tensor by contract; the logits must be floating like any row's
    if not isinstance(logits, torch.fx.Node) or not _floating(logits):
        return None
    if reduction != "mean" or weight is not None or smoothing:
        raise PlanError(f"{graph.task.path}: cross-entropy is covered with reduction='mean', no "
                        "class weights and no label smoothing.")
    if graph.rank(logits) != 2:
        raise PlanError(f"{graph.task.path}: cross-entropy is covered for (N, C) logits.")
    return {"op": "cross_entropy", "family": "cross_entropy", "template": "cross_entropy",
            "alternatives": (), "bucket": "any",
            "context": {"op": "cross_entropy", "ignore_index": int(ignore), "params": []}}


# ---- fused pointwise chains -------------------------------------------------------------------

def _unary(name: str) -> Callable[[list, dict], list]:
    return lambda args, kw: [name, args[0]]


def _operand(value: Any) -> list | None:
    """A converted operand, or a Python number as a constant."""
    if isinstance(value, list):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return ["const", float(value)]
    return None


def _compare(name: str) -> Callable[[list, dict], list | None]:
    def build(a: list, k: dict) -> list | None:
        x, y = _operand(a[0]), _operand(a[1] if len(a) > 1 else k.get("other"))
        return None if x is None or y is None else [name, x, y]
    return build


def _where(a: list, k: dict) -> list | None:
    if len(a) != 3 or k:
        return None  # torch.where(cond) alone: the indices of nonzeros
    cond, x, y = (_operand(v) for v in a)
    return None if cond is None or x is None or y is None else ["where", cond, x, y]


# fx target -> builder of the expression node from the converted args and kwargs
_POINTWISE_FUNCTIONS: dict[Any, Callable[[list, dict], list]] = {
    operator.gt: _compare("gt"), torch.gt: _compare("gt"),
    operator.ge: _compare("ge"), torch.ge: _compare("ge"),
    operator.lt: _compare("lt"), torch.lt: _compare("lt"),
    operator.le: _compare("le"), torch.le: _compare("le"),
    operator.eq: _compare("eq"), torch.eq: _compare("eq"),
    operator.ne: _compare("ne"), torch.ne: _compare("ne"),
    torch.where: _where,
    # a tensor of one value shaped as its argument, whose values it never reads: a constant
    torch.zeros_like: lambda a, k: None if k else ["const", 0.0],
    torch.ones_like: lambda a, k: None if k else ["const", 1.0],
    torch.full_like: lambda a, k: None if k or len(a) != 2 else _operand(a[1]),
    operator.add: lambda a, k: ["add", a[0], a[1]], torch.add: lambda a, k: ["add", a[0], a[1]],
    operator.sub: lambda a, k: ["sub", a[0], a[1]], torch.sub: lambda a, k: ["sub", a[0], a[1]],
    operator.mul: lambda a, k: ["mul", a[0], a[1]], torch.mul: lambda a, k: ["mul", a[0], a[1]],
    operator.truediv: lambda a, k: ["div", a[0], a[1]],
    torch.div: lambda a, k: ["div", a[0], a[1]],
    operator.neg: _unary("neg"), torch.neg: _unary("neg"),
    torch.relu: _unary("relu"), F.relu: _unary("relu"),
    F.silu: _unary("silu"), torch.sigmoid: _unary("sigmoid"), F.sigmoid: _unary("sigmoid"),
    torch.tanh: _unary("tanh"), F.tanh: _unary("tanh"), F.mish: _unary("mish"),
    torch.exp: _unary("exp"), torch.abs: _unary("abs"), torch.square: _unary("square"),
    torch.rsqrt: _unary("rsqrt"), torch.sqrt: _unary("sqrt"), torch.log: _unary("log"),
    F.hardsigmoid: _unary("hardsigmoid"), F.hardswish: _unary("hardswish"),
    F.elu: lambda a, k: ["elu", a[0], k.get("alpha", a[1] if len(a) > 1 else 1.0)],
    torch.maximum: lambda a, k: ["maximum", a[0], a[1]],
    torch.minimum: lambda a, k: ["minimum", a[0], a[1]],
    F.gelu: lambda a, k: ["gelu", a[0], k.get("approximate", a[1] if len(a) > 1 else "none")],
    F.leaky_relu: lambda a, k: ["leaky_relu", a[0],
                                k.get("negative_slope", a[1] if len(a) > 1 else 0.01)],
    F.hardtanh: lambda a, k: ["hardtanh", a[0], k.get("min_val", a[1] if len(a) > 1 else -1.0),
                              k.get("max_val", a[2] if len(a) > 2 else 1.0)],
    torch.clamp: lambda a, k: ["clamp", a[0], k.get("min", a[1] if len(a) > 1 else None),
                               k.get("max", a[2] if len(a) > 2 else None)],
    operator.pow: lambda a, k: ["square", a[0]] if a[1] == 2 else None,
    torch.pow: lambda a, k: ["square", a[0]] if a[1] == 2 else None,
    F.softplus: lambda a, k: ["softplus", a[0], k.get("beta", a[1] if len(a) > 1 else 1.0),
                              k.get("threshold", a[2] if len(a) > 2 else 20.0)],
}
_POINTWISE_METHODS = {
    name: _POINTWISE_FUNCTIONS[fn] for name, fn in (
        ("add", torch.add), ("sub", torch.sub), ("mul", torch.mul), ("div", torch.div),
        ("neg", torch.neg), ("relu", torch.relu), ("sigmoid", torch.sigmoid),
        ("tanh", torch.tanh), ("exp", torch.exp), ("abs", torch.abs), ("square", torch.square),
        ("clamp", torch.clamp), ("clip", torch.clamp), ("pow", torch.pow),
        ("rsqrt", torch.rsqrt), ("sqrt", torch.sqrt), ("log", torch.log),
        ("gt", torch.gt), ("ge", torch.ge), ("lt", torch.lt), ("le", torch.le), ("eq", torch.eq),
        ("ne", torch.ne),
    )
}


def _module_expr(module: torch.nn.Module, arg: list) -> list | None:
    table: list[tuple[type, Callable[[Any], list]]] = [
        (torch.nn.ReLU, lambda m: ["relu", arg]),
        (torch.nn.SiLU, lambda m: ["silu", arg]),
        (torch.nn.Sigmoid, lambda m: ["sigmoid", arg]),
        (torch.nn.Tanh, lambda m: ["tanh", arg]),
        (torch.nn.Mish, lambda m: ["mish", arg]),
        (torch.nn.GELU, lambda m: ["gelu", arg, m.approximate]),
        (torch.nn.LeakyReLU, lambda m: ["leaky_relu", arg, m.negative_slope]),
        (torch.nn.Hardtanh, lambda m: ["hardtanh", arg, m.min_val, m.max_val]),
        (torch.nn.Softplus, lambda m: ["softplus", arg, m.beta, m.threshold]),
    ]
    for cls, build in table:
        if isinstance(module, cls):
            return build(module)
    return None


class PointwiseExpr:
    """Builds a pointwise expression tree (templates/pointwise.py's format) from fx nodes.

    Leaves (placeholders, get_attr parameters) become `inputs` entries, each kind judged against
    `out_shape`: "full", "row" (1-D over the last dim) or "scalar". `substitutes` maps node names
    to subtrees that stand for them (the GEMM matcher puts ["acc"] for its matmul node).
    `convert` returns None for anything outside the pointwise vocabulary.
    """

    def __init__(self, graph: Graph, out_shape: tuple[int, ...],
                 substitutes: dict[str, list] | None = None, masks: bool = False):
        self.graph = graph
        self.out_shape = out_shape
        self.substitutes = dict(substitutes or {})
        self.masks = masks  # whether a boolean argument of the output's shape may be a leaf
        self.inputs: list[dict] = []
        self._leaf_index: dict[str, int] = {}

    def leaf(self, node: torch.fx.Node) -> list | None:
        graph = self.graph
        if node.name not in self._leaf_index:
            if not _floating(node):
                # a boolean mask of the output's shape: the pointwise template reads it as 1.0 or
                # 0.0 (PyTorch's promotion); an index tensor, or a mask elsewhere, no template reads
                if not (self.masks and node.op == "placeholder" and _dtype(node) == torch.bool
                        and graph.shape(node) == self.out_shape):
                    return None
                self._leaf_index[node.name] = len(self.inputs)
                self.inputs.append({"kind": "full", "dtype": "bool", "source": "arg",
                                    "index": graph.placeholders.index(node)})
                return ["input", self._leaf_index[node.name]]
            shape = graph.shape(node)
            if node.op == "get_attr":
                owner, _, name = str(node.target).rpartition(".")
                shape = tuple(getattr(graph.gm.get_submodule(owner), name).shape)
                source = {"source": "param", "path": str(node.target)}
            else:
                source = {"source": "arg", "index": graph.placeholders.index(node)}
            if shape == self.out_shape:
                kind = "full"
            elif shape is not None and len(shape) == 1 and self.out_shape and \
                    shape[0] == self.out_shape[-1]:
                kind = "row"
            elif shape is not None and len(shape) == 0:
                kind = "scalar"
            else:
                return None  # a broadcast the template does not cover
            self._leaf_index[node.name] = len(self.inputs)
            self.inputs.append({"kind": kind, **source})
        return ["input", self._leaf_index[node.name]]

    def convert(self, value: Any) -> list | None:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return ["const", float(value)]
        if not isinstance(value, torch.fx.Node):
            return None
        if value.name in self.substitutes:
            return self.substitutes[value.name]
        if value.op in ("placeholder", "get_attr"):
            return self.leaf(value)
        args = [self.convert(a) if isinstance(a, torch.fx.Node) else a for a in value.args]
        tensor_args = [a for a, raw in zip(args, value.args) if isinstance(raw, torch.fx.Node)]
        if any(a is None for a in tensor_args):
            return None
        # scalars in arithmetic positions become constants
        args = [["const", float(a)] if isinstance(a, (int, float)) and not isinstance(a, bool)
                and i < 2 and _is_arith(value) else a for i, a in enumerate(args)]
        if value.op == "call_function" and value.target in _POINTWISE_FUNCTIONS:
            return _POINTWISE_FUNCTIONS[value.target](args, dict(value.kwargs))
        if value.op == "call_method" and value.target in _POINTWISE_METHODS:
            return _POINTWISE_METHODS[value.target](args, dict(value.kwargs))
        if value.op == "call_module":
            return _module_expr(self.graph.module(value), args[0])
        return None


def _dtype(node: torch.fx.Node) -> torch.dtype | None:
    return getattr(node.meta.get("tensor_meta"), "dtype", None)


def _floating(node: torch.fx.Node) -> bool:
    dtype = _dtype(node)
    return isinstance(dtype, torch.dtype) and dtype.is_floating_point


def _reads_floating(node: torch.fx.Node) -> bool:
    """Whether every tensor `node` reads is floating. The row templates (softmax, norms,
    reductions) load floats only: a matcher leaves a node with an integer or boolean operand
    unmatched, so `kzoo analyze` reports it with unmatched_why's reason instead of a plan whose
    every trial fails to launch."""
    return all(_floating(arg) for arg in node.all_input_nodes)


def _match_pointwise(graph: Graph) -> dict | None:
    outputs = graph.outputs
    if len(outputs) != 1 or not isinstance(outputs[0], torch.fx.Node) or \
            not _floating(outputs[0]):  # a comparison's bool result: the template writes floats
        return None
    out_shape = graph.shape(outputs[0])
    if out_shape is None:
        return None
    builder = PointwiseExpr(graph, out_shape, masks=True)
    expr = builder.convert(outputs[0])
    inputs = builder.inputs
    # a floating full input gives the output its dtype (a mask alone would be promoted to the
    # default dtype, whatever the run's)
    if expr is None or not any(i["kind"] == "full" and "dtype" not in i for i in inputs):
        return None
    op = graph.task.op or "pointwise"
    params = [{"path": i["path"]} for i in inputs if i["source"] == "param"]
    return {"op": op, "family": "pointwise", "template": "pointwise",
            "alternatives": ("pointwise_cuda",), "bucket": "any",
            "context": {"op": op, "expr": expr, "inputs": inputs, "params": params}}


def _is_arith(node: torch.fx.Node) -> bool:
    return node.target in (operator.add, operator.sub, operator.mul, operator.truediv, torch.add,
                           torch.sub, torch.mul, torch.div) or node.target in (
        "add", "sub", "mul", "div")


# ---- broadcasting pointwise chains, optionally reduced (the fused tail) ------------------------

_TAIL_REDUCTIONS = {torch.sum: "sum", torch.mean: "mean", torch.amax: "amax", torch.amin: "amin",
                    "sum": "sum", "mean": "mean", "amax": "amax", "amin": "amin"}
_LEAF_VIEWS = ("reshape", "view")


def _tail_reduction(graph: Graph, node: torch.fx.Node) -> dict | None:
    target = node.target if node.op in ("call_function", "call_method") else None
    if target is corrected_mean:  # var/std's last step (verifier/decompose.py)
        source, dims, keepdim, correction = node.args
        rank = graph.rank(source)
        if not rank or not dims:
            return None
        return {"op": "mean", "dims": sorted({d % rank for d in dims}),
                "keepdim": bool(keepdim), "correction": float(correction)}
    try:
        op = _TAIL_REDUCTIONS.get(target)
    except TypeError:
        return None
    if op is None or _arg(node, 3 if op in ("sum", "mean") else 99, "dtype") is not None:
        return None
    rank = graph.rank(node.args[0])
    dim = _arg(node, 1, "dim")
    if dim is None:
        dims = list(range(rank))
    elif isinstance(dim, int):
        dims = [dim]
    elif isinstance(dim, (tuple, list)) and all(isinstance(d, int) for d in dim) and dim:
        dims = list(dim)
    else:
        return None
    if rank == 0:
        return None
    dims = sorted({d % rank for d in dims})
    keepdim = bool(_arg(node, 2, "keepdim", False))
    return {"op": op, "dims": dims, "keepdim": keepdim}


class _TailExpr(PointwiseExpr):
    """A PointwiseExpr for the tail template, which broadcasts by strides: a leaf may have any
    shape, may be read through a reshape/view to constant sizes (its "view"), and a forward
    argument must be a floating tensor."""

    def __init__(self, graph: Graph):
        super().__init__(graph, ())
        self._view_index: dict[tuple, int] = {}

    def leaf(self, node: torch.fx.Node, view: list | None = None) -> list | None:
        key = (node.name, tuple(view) if view is not None else None)
        if key not in self._view_index:
            meta = node.meta.get("tensor_meta")
            if view is None and node.op == "placeholder" and (
                    meta is None or not hasattr(meta, "dtype")
                    or not meta.dtype.is_floating_point):
                return None
            if node.op == "get_attr":
                source = {"source": "param", "path": str(node.target)}
            else:
                source = {"source": "arg", "index": self.graph.placeholders.index(node)}
            self._view_index[key] = len(self.inputs)
            self.inputs.append({**source, "view": view})
        return ["input", self._view_index[key]]

    def convert(self, value: Any) -> list | None:
        if isinstance(value, torch.fx.Node) and value.op == "call_method" and \
                value.target in _LEAF_VIEWS and value.args and \
                isinstance(value.args[0], torch.fx.Node) and \
                value.args[0].op in ("placeholder", "get_attr"):
            shape = value.args[1] if len(value.args) == 2 and isinstance(
                value.args[1], (list, tuple)) else value.args[1:]
            if not all(isinstance(s, int) and not isinstance(s, bool) for s in shape):
                return None
            return self.leaf(value.args[0], list(shape))
        try:
            return super().convert(value)
        except TypeError:  # an op's arguments not in the form its builder reads
            return None


def _tail_post(graph: Graph, root: torch.fx.Node) -> tuple[torch.fx.Node, list] | None:
    """root as a pointwise chain over one tail reduction and constants (sqrt(sum(x * x)), say):
    the reduction's node and the chain as an expression over the leaf ["reduced"]."""
    found: list[torch.fx.Node] = []
    stack, seen = [root], set()
    while stack:
        node = stack.pop()
        if not isinstance(node, torch.fx.Node) or node.name in seen or \
                node.op in ("placeholder", "get_attr"):
            continue
        seen.add(node.name)
        if node is not root and _tail_reduction(graph, node) is not None:
            found.append(node)
            continue
        stack.extend(a for a in node.args if isinstance(a, torch.fx.Node))
    if len(found) != 1:
        return None
    builder = PointwiseExpr(graph, (), substitutes={found[0].name: ["reduced"]})
    try:
        post = builder.convert(root)
    except TypeError:  # an op's arguments not in the form its builder reads
        return None
    if post is None or builder.inputs:
        return None
    return found[0], post


def _match_tail(graph: Graph) -> dict | None:
    outputs = graph.outputs
    if len(outputs) != 1 or not isinstance(outputs[0], torch.fx.Node) or \
            not _floating(outputs[0]):
        return None
    root = outputs[0]
    reduce = _tail_reduction(graph, root) if root.op != "placeholder" else None
    post = None
    if reduce is None and root.op != "placeholder":
        peeled = _tail_post(graph, root)
        if peeled is not None:
            root, post = peeled
            reduce = _tail_reduction(graph, root)
    if reduce is not None:
        root = root.args[0]
    builder = _TailExpr(graph)
    expr = builder.convert(root)
    inputs = builder.inputs
    if expr is None or not inputs:
        return None
    op = graph.task.op or "tail"
    params = [{"path": p} for p in dict.fromkeys(
        i["path"] for i in inputs if i["source"] == "param")]
    return {"op": op, "family": "tail", "template": "tail", "alternatives": (), "bucket": "any",
            "context": {"op": op, "expr": expr, "inputs": inputs, "reduce": reduce,
                        "params": params, **({"post": post} if post is not None else {})}}


from agent.plan_gemm import match_gemm  # noqa: E402 - it builds on this module's Graph

MATCHERS: tuple[Callable[[Graph], dict | None], ...] = (
    match_attention, _match_softmax, _match_norm, _match_reduce, _match_cross_entropy,
    match_gemm, _match_pointwise, _match_tail,
)


def _match_whole(graph: Graph) -> tuple[dict | None, list[str]]:
    """The first family matcher that covers the whole graph, and what the others objected."""
    objections = []
    for matcher in MATCHERS:
        try:
            found = matcher(graph)
        except PlanError as exc:
            objections.append(str(exc))
            continue
        if found is not None:
            return found, objections
    return None, objections


def output_structure_problem(gm: torch.fx.GraphModule) -> str | None:
    """Why no candidate could match what forward() returns, or None: the verifier compares a
    tensor, or a flat tuple or list of tensors, output by output."""
    out = next(n for n in gm.graph.nodes if n.op == "output").args[0]
    if isinstance(out, dict):
        return ("forward() returns a dict; the verifier compares a tensor or a flat tuple of "
                "tensors: return the values as a tuple")
    items = out if isinstance(out, (tuple, list)) else [out]
    if any(isinstance(item, (tuple, list, dict)) for item in items):
        return ("forward() returns nested tuples, lists or dicts; the verifier compares a tensor "
                "or a flat tuple of tensors: flatten what it returns")
    return None


def plan(task: Task) -> Plan:
    """One family's template for the whole graph; else fusion groups composed (agent.compose)."""
    from agent import compose

    gm, inputs = capture(task)
    problem = output_structure_problem(gm)
    if problem is not None:
        raise PlanError(f"{task.path}: {problem}.")
    graph = Graph(gm, task)
    text = tuple(_node_text(n) for n in gm.graph.nodes)
    found, objections = _match_whole(graph)
    if found is not None:
        return Plan(op=task.op or found["op"], family=found["family"],
                    template=found["template"], context=found["context"], graph=text,
                    alternatives=found["alternatives"], shape_bucket=found["bucket"])
    part = partition(task, gm, inputs)
    if part.covered and part.groups:
        composite = compose.composite_template(task, part)
        return Plan(op=task.op or _identifier(task.name), family="composite",
                    template=composite.name, context={}, graph=text, partition=part,
                    composite=composite)
    if objections and not part.groups:
        raise PlanError(objections[0])
    what = ("no template covers " + ", ".join(map(unmatched_text, part.unmatched))
            if part.unmatched else "no node lands in a generated kernel")
    raise PlanError(
        f"{task.path}: the captured graph matches no template family: {what} "
        f"(captured: {', '.join(text)}). "
        "Covered: softmax and log-softmax, RMSNorm, LayerNorm, GroupNorm, InstanceNorm, "
        "BatchNorm (eval), residual add + RMSNorm, sum/mean/amax/amin/argmax/argmin, "
        "cross-entropy, "
        "GEMM (matmul, bmm, addmm, linear) with a pointwise epilogue, pointwise chains with "
        "broadcasts and a reduction, and library calls (convolutions, pooling, cumsum/cumprod, "
        "flip, tril/triu, diag) with the pointwise ops around them fused."
    )


def partition(task: Task, gm: torch.fx.GraphModule, inputs: list):
    """The graph (decomposed) split into fusion groups, library calls and unmatched nodes."""
    from agent import compose

    return compose.partition(task, compose.decompose(gm, inputs, task), MATCHERS)


def _identifier(name: str) -> str:
    import re

    ident = re.sub(r"\W", "_", name)
    return ident if ident and not ident[0].isdigit() else f"op_{ident}"
