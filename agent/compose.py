"""Plan a graph no single template covers: fusion groups, library calls, and one composed Candidate.

A user's op is rarely one template: a convolution followed by a bias, an activation and a mean; a
Linear followed by a GELU; a softmax of a matmul. `partition` splits the captured graph (after
`decompose` rewrites BatchNorm (eval), GroupNorm and InstanceNorm into a row norm plus pointwise
ops) into:

- **groups**: runs of consecutive nodes that one family matcher of agent.plan covers, found by
  maximal munch: from each node, the longest window (in program order) a matcher accepts. A
  window is cut out as its own graph (its external values become placeholders), so the matchers
  are the same ones that plan a whole task;
- **library calls**: ops no template generates (convolutions, pooling, embedding, ...), kept as
  calls to PyTorch, and views (reshape, flatten, permute, ...), which move no data;
- **unmatched** compute nodes, reported by name; a graph with any is not covered.

`CompositeTemplate` searches the groups together (parameter `g<i>_config` picks one of 24
valid configs of group i's template: its starting config, the shipped zoo's configs for the
group's op (tuned on a GPU for that op alone), the template's other starts, then seeded draws
from its space; a fresh search tries the known picks right after the default) and renders one
module: each group's rendered kernels with their top-level names prefixed `_g<i>_`,
and a `ModelNew` whose forward calls the groups' modules in order with the library calls between, as
the reference graph does. The composed Candidate is verified as a whole against `Model`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import operator
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.fx
import torch.nn.functional as F

from templates.base import InvalidConfig, Param, Template, attr_ref, attr_set, owner_module
from templates.prefix import prefix_module
from verifier.capture import LIBRARY_CALLS, _hashable, propagate

MAX_WINDOW = 16  # nodes a group may span: matchers are tried on every window up to this size

# Views and shape queries: no compute, emitted in forward as the method calls they are.
VIEW_METHODS = {"view", "reshape", "flatten", "permute", "transpose", "contiguous", "unsqueeze",
                "squeeze", "size", "t", "expand", "unflatten", "dim", "view_as", "reshape_as",
                "expand_as", "chunk", "split", "unbind", "narrow", "movedim"}
VIEW_FUNCTIONS = {torch.flatten: "flatten", torch.reshape: "reshape", torch.permute: "permute",
                  torch.transpose: "transpose", torch.unsqueeze: "unsqueeze",
                  torch.squeeze: "squeeze", torch.t: "t", torch.chunk: "chunk",
                  torch.split: "split", torch.unbind: "unbind", torch.narrow: "narrow",
                  torch.movedim: "movedim"}
IDENTITY_FUNCTIONS = {F.dropout, F.dropout1d, F.dropout2d, F.dropout3d, F.alpha_dropout}


@dataclass
class Group:
    index: int
    nodes: list[torch.fx.Node]
    found: dict  # the matcher's answer: op, family, template, context, ...
    inputs: list[torch.fx.Node]  # the window's external values, in placeholder order
    outputs: list[torch.fx.Node]  # its values used after it, in output order

    @property
    def family(self) -> str:
        return self.found["family"]

    @property
    def template(self) -> str:
        return self.found["template"]


@dataclass
class Partition:
    gm: torch.fx.GraphModule
    groups: list[Group] = field(default_factory=list)
    library: list[torch.fx.Node] = field(default_factory=list)  # library calls
    views: list[torch.fx.Node] = field(default_factory=list)
    unmatched: list[torch.fx.Node] = field(default_factory=list)

    @property
    def covered(self) -> bool:
        return not self.unmatched

    def group_of(self, node: torch.fx.Node) -> Group | None:
        for group in self.groups:
            if node in group.nodes:
                return group
        return None


# ---- node kinds ---------------------------------------------------------------------------

def is_view(node: torch.fx.Node) -> bool:
    if node.op == "call_method":
        return node.target in VIEW_METHODS
    if node.op == "call_function":
        if node.target is getattr or node.target is operator.getitem:
            return True
        return _hashable(node.target) and (node.target in VIEW_FUNCTIONS
                                           or node.target in IDENTITY_FUNCTIONS)
    return False


def is_library(node: torch.fx.Node) -> bool:
    return node.op == "call_function" and _hashable(node.target) and node.target in LIBRARY_CALLS


def is_compute(node: torch.fx.Node) -> bool:
    return node.op in ("call_function", "call_method", "call_module") and not is_view(node)


# ---- decomposition ------------------------------------------------------------------------

# convolutions: F.convNd(input, weight, bias, ...) and F.conv_transposeNd(input, weight, bias, ...)
CONV_CALLS = (F.conv1d, F.conv2d, F.conv3d, F.conv_transpose1d, F.conv_transpose2d,
              F.conv_transpose3d)
# F.max_poolNd(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)
MAX_POOLS = (F.max_pool1d, F.max_pool2d, F.max_pool3d)


def decompose(gm: torch.fx.GraphModule, inputs: list, task) -> torch.fx.GraphModule:
    """Rewrite BatchNorm (eval, running stats), GroupNorm and InstanceNorm into a row LayerNorm
    over a view and pointwise ops with reshaped parameters, which the families cover; and move a
    convolution's bias out of the library call into the pointwise tail that follows it."""
    graph = gm.graph
    changed = False
    for node in list(graph.nodes):
        if node.op != "call_function":
            continue
        if node.target is F.batch_norm:
            changed |= _decompose_batch_norm(graph, node)
        elif node.target is F.group_norm:
            changed |= _decompose_group_norm(graph, node)
        elif node.target is F.instance_norm:
            changed |= _decompose_instance_norm(graph, node)
    for node in list(graph.nodes):  # after the norms: their pointwise ops are the users to see
        if node.op == "call_function" and node.target in CONV_CALLS:
            changed |= _split_conv_bias(graph, node)
    if not changed:
        return gm
    graph.lint()
    out = torch.fx.GraphModule(gm, graph)
    propagate(out, inputs, task)
    return out


def _kw(node, index, name, default=None):
    if name in node.kwargs:
        return node.kwargs[name]
    return node.args[index] if len(node.args) > index else default


def _channel_view(graph, value, rank):
    """value (C,) reshaped to broadcast along dim 1 of a rank-`rank` tensor."""
    return graph.call_method("reshape", (value, [1, -1] + [1] * (rank - 2)))


def _affine(graph, y, weight, bias, rank):
    """y * weight + bias per channel (dim 1), either left out when None."""
    if weight is not None:
        y = graph.call_function(operator.mul, (y, _channel_view(graph, weight, rank)))
    if bias is not None:
        y = graph.call_function(operator.add, (y, _channel_view(graph, bias, rank)))
    return y


def _rank(node) -> int:
    meta = node.meta.get("tensor_meta")
    return len(meta.shape) if meta is not None else 0


def _decompose_batch_norm(graph, node) -> bool:
    x = node.args[0]
    mean, var = _kw(node, 1, "running_mean"), _kw(node, 2, "running_var")
    weight, bias = _kw(node, 3, "weight"), _kw(node, 4, "bias")
    training, eps = _kw(node, 5, "training", False), _kw(node, 7, "eps", 1e-5)
    if training or mean is None or var is None or _rank(x) < 2:
        return False  # batch statistics: not a pointwise op
    rank = _rank(x)
    with graph.inserting_before(node):
        y = graph.call_function(operator.sub, (x, _channel_view(graph, mean, rank)))
        inv = graph.call_function(torch.rsqrt, (graph.call_function(
            operator.add, (_channel_view(graph, var, rank), float(eps))),))
        y = _affine(graph, graph.call_function(operator.mul, (y, inv)), weight, bias, rank)
    node.replace_all_uses_with(y)
    graph.erase_node(node)
    return True


def _split_conv_bias(graph, node) -> bool:
    """conv(x, w, b, ...) whose every user is a pointwise op -> conv(x, w, None, ...) + b per
    channel: the add joins the fused tail instead of PyTorch adding the bias in a pass of its own
    over the convolution's output (204 us of 0.61 ms in conv_relu_bias_mean at 128x128x62x62 on
    an H100, bench/results/runs/compose-h100-round42.json). A conv whose one user is a max pool
    (max over a window of x + b is the window's max + b: b is one number per channel) moves its
    bias behind the pool when pointwise ops follow that; the add then reads the pooled tensor."""
    from agent.plan import _POINTWISE_FUNCTIONS, _POINTWISE_METHODS

    bias = _kw(node, 2, "bias")
    if not isinstance(bias, torch.fx.Node) or _rank(node) < 2 or not node.users:
        return False
    after = node
    (first, *others) = node.users
    if not others and first.op == "call_function" and _hashable(first.target) \
            and first.target in MAX_POOLS and not _kw(first, 6, "return_indices", False):
        after = first
    rank = _rank(after)
    if rank < 2 or not after.users:
        return False
    for user in after.users:
        pointwise = ((user.op == "call_function" and _hashable(user.target)
                      and user.target in _POINTWISE_FUNCTIONS)
                     or (user.op == "call_method" and user.target in _POINTWISE_METHODS))
        if not pointwise:
            return False
    with graph.inserting_after(after):
        view = _channel_view(graph, bias, rank)
    with graph.inserting_after(view):
        y = graph.call_function(operator.add, (after, view))
    after.replace_all_uses_with(y, delete_user_cb=lambda user: user is not y)
    if "bias" in node.kwargs:
        node.kwargs = {**node.kwargs, "bias": None}
    else:
        node.args = (*node.args[:2], None, *node.args[3:])
    return True


def _rows_norm(graph, node, x, groups, weight, bias, eps) -> None:
    """x (N, C, ...) normalized over each of `groups` channel groups (None: each channel)."""
    rank = _rank(x)
    shape = list(x.meta["tensor_meta"].shape)
    width = 1
    for size in shape[2:]:
        width *= size
    # the traced row width: the norm template reads the width from the tensor it is given, so
    # this constant only serves shape propagation
    width *= shape[1] // groups if groups is not None else 1
    with graph.inserting_before(node):
        n = graph.call_method("size", (x, 0))
        rows = graph.call_method("reshape", (x, n, groups if groups is not None else
                                             graph.call_method("size", (x, 1)), -1))
        normed = graph.call_function(F.layer_norm, (rows, [width], None, None, float(eps)))
        y = graph.call_method("reshape", (normed, graph.call_method("size", (x,))))
        y = _affine(graph, y, weight, bias, rank)
    node.replace_all_uses_with(y)
    graph.erase_node(node)


def _decompose_group_norm(graph, node) -> bool:
    x, groups = node.args[0], _kw(node, 1, "num_groups")
    if not isinstance(groups, int) or _rank(x) < 2:
        return False
    _rows_norm(graph, node, x, groups, _kw(node, 2, "weight"), _kw(node, 3, "bias"),
               _kw(node, 4, "eps", 1e-5))
    return True


def _decompose_instance_norm(graph, node) -> bool:
    x = node.args[0]
    use_input_stats = _kw(node, 5, "use_input_stats", True)
    if not use_input_stats or _rank(x) < 3:
        return False
    _rows_norm(graph, node, x, None, _kw(node, 3, "weight"), _kw(node, 4, "bias"),
               _kw(node, 7, "eps", 1e-5))
    return True


# ---- windows and groups -------------------------------------------------------------------

class _SubTask:
    """What a matcher reads of a task, for a window of the task's graph."""

    def __init__(self, task, op: str | None = None):
        self.path = task.path
        self.op = op
        self.name = getattr(task, "name", "task")


def window_graph(gm: torch.fx.GraphModule, nodes: list[torch.fx.Node]):
    """The window as its own GraphModule (over gm, so get_attr resolves), with its inputs and the
    outputs that nodes after it (or the graph's output) read."""
    inside = set(nodes)
    graph = torch.fx.Graph()
    env: dict[torch.fx.Node, torch.fx.Node] = {}
    external: list[torch.fx.Node] = []
    for node in nodes:
        for used in node.all_input_nodes:
            if used not in inside and used not in external:
                if used.op != "get_attr" and not isinstance(
                        getattr(used.meta.get("tensor_meta"), "shape", None), torch.Size):
                    return None  # a group's module takes tensors only (a size stays glue)
                external.append(used)
    inputs = [n for n in external if n.op != "get_attr"]
    for value in inputs + [n for n in external if n.op == "get_attr"]:
        new = graph.placeholder(value.name) if value.op != "get_attr" else \
            graph.get_attr(value.target)
        new.meta = dict(value.meta)
        env[value] = new
    for node in nodes:
        new = graph.node_copy(node, lambda n: env[n])
        new.meta = dict(node.meta)
        env[node] = new
    outputs = [n for n in nodes if any(u not in inside for u in n.users)]
    if not outputs:
        return None
    graph.output(env[outputs[0]] if len(outputs) == 1 else tuple(env[o] for o in outputs))
    try:
        sub = torch.fx.GraphModule(gm, graph)
    except Exception:
        return None
    return sub, inputs, outputs


def _match_window(task, gm, nodes, matchers) -> tuple[dict, list, list] | None:
    from agent.plan import Graph

    made = window_graph(gm, nodes)
    if made is None:
        return None
    sub, inputs, outputs = made
    graph = Graph(sub, _SubTask(task))
    for matcher in matchers:
        try:
            found = matcher(graph)
        except Exception:  # a matcher's "not like this" on a window is just no match
            found = None
        if found is not None:
            return found, inputs, outputs
    return None


def partition(task, gm: torch.fx.GraphModule, matchers) -> Partition:
    part = Partition(gm)
    order = [n for n in gm.graph.nodes if n.op in ("call_function", "call_method", "call_module")]
    i = 0
    while i < len(order):
        node = order[i]
        if is_view(node):
            part.views.append(node)
            i += 1
            continue
        if is_library(node):
            part.library.append(node)
            i += 1
            continue
        match = None
        # the longest window from here that a matcher covers; views inside are allowed (a
        # transpose of K in attention), library calls are not
        end = i
        while end < len(order) and end - i < MAX_WINDOW and not is_library(order[end]):
            end += 1
        for j in range(end, i, -1):
            window = order[i:j]
            if is_view(window[-1]) and j - 1 > i:
                continue  # a window does not end in a view: the view stays glue
            match = _match_window(task, gm, window, matchers)
            if match is not None:
                found, inputs, outputs = match
                part.groups.append(Group(len(part.groups), window, found, inputs, outputs))
                i = j
                break
        if match is None:
            part.unmatched.append(node)
            i += 1
    return part


# ---- the composed candidate ---------------------------------------------------------------

def _format(value: Any) -> str:
    if isinstance(value, torch.fx.Node):
        return value.name
    if isinstance(value, tuple):
        inner = ", ".join(_format(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return "[" + ", ".join(_format(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_format(v)}" for k, v in value.items()) + "}"
    if isinstance(value, torch.dtype):
        return str(value)  # "torch.float32"
    if isinstance(value, torch.memory_format):
        return str(value)
    if isinstance(value, torch.device):
        return f"torch.device({str(value)!r})"
    if isinstance(value, slice):
        return f"slice({_format(value.start)}, {_format(value.stop)}, {_format(value.step)})"
    if value is Ellipsis:
        return "..."
    if isinstance(value, float) and value != value:
        return 'float("nan")'
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return 'float("inf")' if value > 0 else 'float("-inf")'
    return repr(value)


def _call_args(node: torch.fx.Node, skip: int = 0) -> str:
    parts = [_format(a) for a in node.args[skip:]]
    parts += [f"{k}={_format(v)}" for k, v in node.kwargs.items()]
    return ", ".join(parts)


def _glue_line(node: torch.fx.Node) -> str:
    """One forward line for a view or a library call."""
    if node.op == "call_method":
        return f"{node.name} = {_format(node.args[0])}.{node.target}({_call_args(node, 1)})"
    if node.target is getattr:
        return f"{node.name} = {_format(node.args[0])}.{node.args[1]}"
    if node.target is operator.getitem:
        return f"{node.name} = {_format(node.args[0])}[{_format(node.args[1])}]"
    if node.target in IDENTITY_FUNCTIONS:  # dropout in eval: the identity
        return f"{node.name} = {_format(node.args[0])}"
    if node.target in VIEW_FUNCTIONS:
        return (f"{node.name} = {_format(node.args[0])}.{VIEW_FUNCTIONS[node.target]}"
                f"({_call_args(node, 1)})")
    return f"{node.name} = {LIBRARY_CALLS[node.target]}({_call_args(node)})"


@dataclass(frozen=True)
class CompositeTemplate(Template):
    """The groups' templates searched together; renders the composed Candidate."""

    groups: tuple = ()  # ((Template, context), ...)
    # per group, the configs the search picks from (by index): the group's starting config, then
    # valid configs drawn from its space. Every pick is valid, so a product of several groups'
    # spaces, most of whose points one group's constraints would reject, never starves the sampler.
    menus: tuple = ()
    forward_lines: tuple[str, ...] = ()
    forward_args: tuple[str, ...] = ()
    params: tuple[str, ...] = ()  # the Model parameter paths the composed forward reads
    shares: tuple = ()  # ((group index, param path), ...): parameters each group's module mirrors
    description: str = ""

    def config(self, params: dict[str, Any]) -> Any:
        names = {p.name for p in self.space}
        if set(params) != names:
            raise InvalidConfig(f"template {self.name}: params {sorted(params)} do not match "
                                f"the space {sorted(names)}")
        for p in self.space:
            if params[p.name] not in p.choices:
                raise InvalidConfig(f"template {self.name}: {p.name}={params[p.name]!r} not in "
                                    f"{list(p.choices)}")
        return self.config_type(**params)

    def group_configs(self, cfg: Any) -> list[Any]:
        """Each group's config: the entry of its menu that `cfg` picks."""
        values = dataclasses.asdict(cfg)
        return [menu[values[f"g{i}_config"]] for i, menu in enumerate(self.menus)]

    def render(self, cfg: Any, **context: Any) -> str:
        problems = self.violations(cfg)
        if problems:
            raise InvalidConfig(f"template {self.name}: " + "; ".join(problems))
        imports: list[str] = ["import torch"]
        bodies: list[str] = []
        for i, ((template, group_context), group_cfg) in enumerate(
                zip(self.groups, self.group_configs(cfg))):
            group_imports, body = prefix_module(template.render(group_cfg, **group_context),
                                                f"_g{i}_")
            imports += [line for line in group_imports if line not in imports]
            bodies.append(f"# ---- group {i}: template {template.name} "
                          f"({group_context.get('op', '')}) ----\n{body}")
        future = [line for line in imports if line.startswith("from __future__")]
        imports = future + [line for line in imports if line not in future]
        params = {f"g{i}": dataclasses.asdict(c)
                  for i, c in enumerate(self.group_configs(cfg))}
        lines = [f'"""Composed by kernel-zoo: {self.description}', "",
                 f"Params: {json.dumps(params, sort_keys=True)}", '"""', *imports, "", ""]
        lines += [f"PARAMS = {params!r}", f"SHARES = {list(self.shares)!r}", "", ""]
        lines += ["\n\n".join(bodies), "", ""]
        lines += [
            "def _share(state_dict, prefix, *args):",
            "    # Each group's module mirrors the Model parameters it reads under its own name;",
            "    # loading the Model's state dict hands them the same values.",
            "    for group, path in SHARES:",
            "        if prefix + path in state_dict:",
            "            state_dict[prefix + 'g' + str(group) + '.' + path] = "
            "state_dict[prefix + path]",
            "", "",
            "class ModelNew(torch.nn.Module):",
            '    """Drop-in for the task\'s Model: the composed groups, with library calls '
            'between."""',
            "",
            "    def __init__(self, *args, **kwargs):",
            "        super().__init__()",
        ]
        for i in range(len(self.groups)):
            lines.append(f"        self.g{i} = _g{i}_ModelNew()")
        lines += _declare(self.params)
        lines.append("        self._register_load_state_dict_pre_hook(_share)")
        lines += ["", f"    def forward(self, {', '.join(self.forward_args)}):"]
        lines += [f"        {line}" for line in self.forward_lines]
        return "\n".join(lines) + "\n"


def _passed_on(part: Partition, node: torch.fx.Node, user: torch.fx.Node) -> bool:
    """Whether the composed forward hands `node`'s value to `user` itself: `user` is outside
    every group (a library call, a view, the output), or it is in a group that takes `node` as an
    input."""
    group = part.group_of(user)
    return group is None or any(v is node for v in group.inputs)


# Scans a composed forward runs in float32 where every reader is a pointwise kernel, which takes
# the float32 value as a `wide` input and writes the graph's dtype, or the graph's output, which a
# pointwise kernel of its own rounds to the graph's dtype (skipped in a float32 run): PyTorch's own
# 16-bit cumsum on CUDA accumulates in 16 bits, outside the verifier's 16-bit bar at a few
# thousand elements a row (bench/probe_cumsum_fp16.py, GPU round 328: eager float16 missed the
# element-wise bound at 31414 of 512000 elements of 128x4000, a float32 scan at none). Elsewhere
# (another library call, a view, a template that reads one dtype) the scan stays as the reference
# makes it.
WIDE_SCANS = (torch.cumsum, torch.cumprod)


def _wide_scans(part: Partition) -> tuple[dict[torch.fx.Node, torch.fx.Node], list[torch.fx.Node]]:
    """The scans the composed forward runs in float32: scan -> the value whose dtype its readers
    write (the scan's own input); and, of them, those the graph returns, in graph order."""
    from agent.plan import _floating

    wide, returned = {}, []
    for node in part.library:
        source = node.args[0] if node.args else None
        if node.target not in WIDE_SCANS or "dtype" in node.kwargs or not node.users \
                or not isinstance(source, torch.fx.Node) or not _floating(node):
            continue
        for user in node.users:
            if user.op == "output":
                continue
            group = part.group_of(user)
            if group is None or group.template != "pointwise" or node not in group.inputs:
                break
            index = group.inputs.index(node)
            specs = [spec for spec in group.found["context"]["inputs"]
                     if spec.get("source") == "arg" and spec.get("index") == index]
            if not specs or any(spec.get("kind") != "full" for spec in specs):
                break
        else:
            wide[node] = source
            if any(user.op == "output" for user in node.users):
                returned.append(node)
    return wide, returned


def _rounding_context(scan: torch.fx.Node) -> dict:
    """The pointwise kernel that rounds a float32 scan the graph returns to the graph's dtype."""
    return {"op": f"round_{scan.name}", "expr": ["input", 0], "params": [],
            "inputs": [{"kind": "full", "source": "arg", "index": 0, "wide": True}]}


class _Name(str):
    """A variable of the composed forward, formatted as itself (by _format's repr)."""

    def __repr__(self) -> str:
        return str(self)


def _declare(paths) -> list[str]:
    lines, owners = [], []
    for path in paths:
        parts = path.split(".")
        for k in range(1, len(parts)):
            owner = ".".join(parts[:k])
            if owner not in owners:
                owners.append(owner)
                lines.append(f"        {attr_set(owner, owner_module(owner, paths))}")
        lines.append(f"        {attr_set(path, 'torch.nn.UninitializedParameter()')}")
    return lines


def composite_template(task, part: Partition) -> CompositeTemplate:
    from templates import get_template

    if not part.covered:
        raise ValueError("an uncovered partition has no composed template")
    groups, menus, known = [], [], []
    space, shares = [], []
    wide, returned = _wide_scans(part)

    def add_group(template, context, bucket: str, tuned: list) -> int:
        index = len(groups)
        groups.append((template, context))
        first, *others = template.starts_for(bucket)
        menu = _menu(template, [first, *tuned, *others])
        menus.append(tuple(menu))
        # how many of the menu's first entries are picks worth trying before a sampler's draws
        # (the menu drops repeats: a tuned config may be the start itself)
        known.append(min(len(menu), len(dict.fromkeys([first, *tuned, *others]))))
        space.append(Param(f"g{index}_config", tuple(range(len(menu)))))
        for p in context.get("params", []):
            shares.append((index, p["path"]))
        return index

    for group in part.groups:
        template = get_template(group.template)
        context = dict(group.found["context"])
        if any(value in wide for value in group.inputs):
            context["inputs"] = [
                {**spec, "wide": True} if spec.get("source") == "arg"
                and group.inputs[spec["index"]] in wide else spec
                for spec in context["inputs"]]
        add_group(template, context, group.found.get("bucket", "any"),
                  _tuned(template, context.get("op"), _traced_shape(group)))
    # after the graph's groups, so their indices (g<i>) stay the partition's
    rounding = {scan: add_group(get_template("pointwise"), _rounding_context(scan), "any", [])
                for scan in returned}
    config_type = dataclasses.make_dataclass(
        "CompositeConfig", [(p.name, object) for p in space], frozen=True)
    default = config_type(**{p.name: 0 for p in space})
    seeds = _seeds(config_type, [p.name for p in space], known)

    def constraints(cfg):
        problems = []
        for i, ((template, _), menu) in enumerate(zip(groups, menus)):
            pick = dataclasses.asdict(cfg)[f"g{i}_config"]
            if not isinstance(pick, int) or not 0 <= pick < len(menu):
                problems.append(f"group {i}: config {pick!r} is not one of its {len(menu)}")
                continue
            problems += [f"group {i}: {m}" for m in template.violations(menu[pick])]
        return problems

    # forward: placeholders, parameter reads, glue lines and one call per group, in graph order
    args, lines, params = [], [], []
    emitted: set = set()
    for node in part.gm.graph.nodes:
        if node.op == "placeholder":
            args.append(node.name)
        elif node.op == "get_attr":
            # read here only where the forward itself passes it on (a library call, a group's
            # input, the output); a group reads the parameters it mirrors on its own
            if any(_passed_on(part, node, user) for user in node.users):
                lines.append(f"{node.name} = {attr_ref(str(node.target))}")
            params.append(str(node.target))
        elif node.op == "output":
            value = torch.fx.node.map_arg(
                node.args[0], lambda n: _Name(f"{n.name}_rounded") if n in rounding else n)
            lines.append(f"return {_format(value)}")
        else:
            group = part.group_of(node)
            if group is None:
                line = _glue_line(node)
                if node in wide:  # the scan accumulates and writes float32
                    line = f"{line[:-1]}, dtype=torch.float32)"
                lines.append(line)
                if node in rounding:  # returned: rounded to the graph's dtype, unless float32
                    dtype = f"{wide[node].name}.dtype"
                    lines.append(f"{node.name}_rounded = {node.name} if {dtype} == torch.float32 "
                                 f"else self.g{rounding[node]}.forward({node.name}, "
                                 f"out_dtype={dtype})")
            elif node is group.nodes[-1] and group.index not in emitted:
                emitted.add(group.index)
                outs = ", ".join(o.name for o in group.outputs)
                # the group module's forward, called directly: it is the composed module's
                # own part (no hooks of its own), and nn.Module's call machinery costs the host
                # microseconds a small shape's whole call is made of
                args_text = ", ".join(v.name for v in group.inputs)
                sources = [wide[v] for v in group.inputs if v in wide]
                if sources:  # a wide input: the output takes the scan's input's dtype
                    args_text += f", out_dtype={sources[0].name}.dtype"
                call = f"self.g{group.index}.forward({args_text})"
                lines.append(f"{outs} = {call}")
    names = "+".join(t.name for t, _ in groups)
    # The name (and so the study's) hashes the menus too: a pick is an index into its group's
    # menu, so a study whose menus changed (a template's space, the shipped zoo's configs) must
    # not resume with old scores under new configs.
    menus_text = json.dumps([[dataclasses.asdict(c) for c in m] for m in menus], sort_keys=True,
                            default=str)
    digest = hashlib.sha256(f"{names}\n{menus_text}".encode()).hexdigest()[:6]
    description = ", ".join(f"g{i} {t.name}({c.get('op', '')})" for i, (t, c) in enumerate(groups))
    library = sorted({LIBRARY_CALLS[n.target] for n in part.library})
    if library:
        description += "; library calls: " + ", ".join(library)

    def bytes_moved(*_args, **_kwargs):
        raise NotImplementedError("a composed candidate's bytes come from its task")

    return CompositeTemplate(
        name=f"composite-{names}-{digest}",
        family="composite", jinja_file="", config_type=config_type, space=tuple(space),
        default=default, constraints=constraints, bytes_moved=bytes_moved,
        launcher="ModelNew", doc=__doc__ or "", groups=tuple(groups),
        forward_lines=tuple(lines), forward_args=tuple(args),
        params=tuple(dict.fromkeys(params)), shares=tuple(shares), description=description,
        menus=tuple(menus), seeds=tuple(seeds),
    )


MENU_SIZE = 24  # configs per group the composed search picks from
MAX_TUNED = 6  # of them, at most this many from the shipped zoo's entries for the group's op
MAX_SEEDS = 6  # composed configs a fresh search tries right after its default


def _traced_shape(group) -> tuple[int, ...] | None:
    """The shape of the group's first input as traced, when the capture recorded it."""
    meta = group.inputs[0].meta.get("tensor_meta") if group.inputs else None
    shape = getattr(meta, "shape", None)  # a tuple of metadata (several outputs) has none
    return tuple(shape) if shape is not None else None


def _tuned(template, op: str | None, shape: tuple[int, ...] | None) -> list:
    """The configs of `template` that the shipped zoo's newest entry of `op` holds (tuned on a GPU
    for that op alone, every arch, dtype and shape bucket), at most MAX_TUNED: nearest first to
    the bucket of the traced `shape`, then by arch, dtype and bucket. Only the
    shipped zoo, which changes with the repository, as the template's space does: a user's
    promotions would change the menu, and with it what a resumed study's picks mean."""
    from kernel_zoo import _home, buckets, store

    if not op:
        return []
    try:
        entries = store.newest_entries(op, zoo_dirs=[_home.SHIPPED_ZOO])
    except store.ZooError:  # not an op name, or a broken manifest: the menu goes without
        return []
    configs = [c for entry in entries for c in entry.manifest["configs"]
               if c.get("template") == template.name]
    names = buckets.bucket_names(op)
    wanted = buckets.bucket_of(op, shape) if shape is not None else None

    def distance(bucket: str) -> float:
        """How far a config's bucket is from the traced shape's: buckets apart in the op's
        scheme ("any", tuned across shapes, half a step)."""
        if wanted is None or bucket not in names or wanted not in names:
            return 0.0
        if bucket == buckets.ANY or wanted == buckets.ANY:
            return 0.0 if bucket == wanted else 0.5
        return abs(names.index(bucket) - names.index(wanted))

    configs.sort(key=lambda c: (distance(c["shape_bucket"]), c["arch"], c["dtype"],
                                c["shape_bucket"]))
    found = []
    for c in configs:
        try:
            cfg = template.config(c["params"])
        except InvalidConfig:  # params of an older space: not a pick of this one
            continue
        if cfg not in found and not template.violations(cfg):
            found.append(cfg)
    return found[:MAX_TUNED]


def _seeds(config_type, names: list[str], known: list[int]) -> list:
    """Composed configs a fresh search tries after the default (every group at its start): first
    every group at its first known alternative (a zoo-tuned config where the group has one), then
    one group at a time through its known alternatives, the others at their starts; at most
    MAX_SEEDS. A search of a few trials tries what is known to be good before random draws."""
    seeds = []
    if sum(1 for k in known if k > 1) > 1:
        seeds.append(config_type(**{n: int(k > 1) for n, k in zip(names, known)}))
    for i, (name, k) in enumerate(zip(names, known)):
        for pick in range(1, k):
            cfg = config_type(**{n: (pick if j == i else 0) for j, n in enumerate(names)})
            if cfg not in seeds:
                seeds.append(cfg)
    return seeds[:MAX_SEEDS]


def _menu(template, starts: list) -> list:
    """`starts` (the template's start for the group's bucket, the zoo's tuned configs for the
    group's op, the template's seeds; repeats dropped), then distinct valid configs of the
    template's space up to MENU_SIZE, drawn with a seed of the template's name (the same menu
    every run, so a study resumes)."""
    import random

    rng = random.Random(template.name)
    menu = []
    for cfg in starts:
        if cfg not in menu and len(menu) < MENU_SIZE:
            menu.append(cfg)
    seen = {json.dumps(dataclasses.asdict(cfg), sort_keys=True, default=str) for cfg in menu}
    for _ in range(200 * MENU_SIZE):
        if len(menu) >= MENU_SIZE:
            break
        cfg = template.draw(rng)
        key = json.dumps(dataclasses.asdict(cfg), sort_keys=True, default=str)
        if key not in seen and not template.violations(cfg):
            seen.add(key)
            menu.append(cfg)
    return menu
