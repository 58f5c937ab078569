"""Plan: capture Model.forward with torch.fx on meta tensors and match it to a template family.

The spine knows one family, row-wise softmax; a graph it cannot cover is reported plainly, with what
it found, rather than guessed at.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.fx

from agent.errors import PlanError
from tasks import Task

_SOFTMAX_FUNCTIONS = {torch.softmax, torch.nn.functional.softmax, torch.Tensor.softmax}
_SOFTMAX_NAMES = {"softmax"}


@dataclass(frozen=True)
class Plan:
    op: str
    family: str
    template: str
    context: dict[str, Any] = field(default_factory=dict)  # render-time facts (dim, ...)
    graph: tuple[str, ...] = ()  # the captured nodes, for reports

    def describe(self) -> str:
        ctx = ", ".join(f"{k}={v}" for k, v in self.context.items())
        return f"{self.op}: family {self.family}, template {self.template} ({ctx})"


def capture(task: Task) -> tuple[torch.fx.GraphModule, list]:
    """fx graph of Model.forward with shapes propagated on meta tensors (no real memory)."""
    with torch.device("meta"):
        model = task.make_model()
        inputs = task.make_inputs()
    try:
        gm = torch.fx.symbolic_trace(model)
    except Exception as exc:
        raise PlanError(
            f"{task.path}: torch.fx could not trace Model.forward ({type(exc).__name__}: {exc}). "
            "Data-dependent control flow cannot be captured; write the op without it."
        ) from exc
    from torch.fx.passes.shape_prop import ShapeProp

    try:
        ShapeProp(gm).propagate(*inputs)
    except Exception as exc:
        raise PlanError(f"{task.path}: shape propagation failed: {type(exc).__name__}: {exc}") from exc
    return gm, inputs


def _node_text(node: torch.fx.Node) -> str:
    meta = node.meta.get("tensor_meta")
    shape = f" {tuple(meta.shape)} {meta.dtype}" if meta is not None and hasattr(meta, "shape") else ""
    target = getattr(node.target, "__name__", str(node.target))
    return f"{node.op}:{target}{shape}"


def plan(task: Task) -> Plan:
    gm, _ = capture(task)
    compute = [n for n in gm.graph.nodes if n.op in ("call_function", "call_method", "call_module")]
    graph = tuple(_node_text(n) for n in gm.graph.nodes)
    softmax = [
        n for n in compute
        if (n.op == "call_function" and n.target in _SOFTMAX_FUNCTIONS)
        or (n.op == "call_method" and n.target in _SOFTMAX_NAMES)
    ]
    others = [n for n in compute if n not in softmax and n.target is not operator.getitem]
    if len(softmax) != 1 or others:
        raise PlanError(
            f"{task.path}: the captured graph ({', '.join(graph)}) matches no template family yet. "
            "This version plans a single row-wise softmax; other ops are not covered."
        )
    node = softmax[0]
    src = node.args[0]
    rank = len(src.meta["tensor_meta"].shape)
    dim = node.kwargs.get("dim", node.args[1] if len(node.args) > 1 else None)
    if not isinstance(dim, int):
        raise PlanError(f"{task.path}: softmax needs an explicit integer dim, got {dim!r}.")
    dim = dim % rank
    if node.kwargs.get("dtype") is not None or (len(node.args) > 2 and node.args[2] is not None):
        raise PlanError(f"{task.path}: softmax with a dtype= argument is not covered yet.")
    return Plan(
        op=task.op or "softmax", family="softmax_rows", template="softmax",
        context={"dim": dim, "dim_is_last": dim == rank - 1}, graph=graph,
    )
