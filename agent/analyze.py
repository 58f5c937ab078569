"""`kzoo analyze`: what kernel-zoo would generate for a task, without a GPU or real memory.

For each task file: the captured graph (ops, shapes, dtypes), the plan (the fusion groups with
their families and nodes, the library calls, what matches nothing), the bytes and FLOPs of the
whole op, and its roofline floor on this device or a named one.
"""

from __future__ import annotations

import math
import operator
import time
from typing import Any

import torch

# Datasheet FLOP/s peaks (dense) by dtype: tensor cores for 16-bit, the CUDA cores' IEEE fp32 for
# float32 (the verifier compares without TF32). Bandwidth comes from the verifier's table
# (verifier.timing.PEAK_BANDWIDTH), matched by the device name as CUDA reports it.
DEVICES = {
    "h100": {"name": "NVIDIA H100 80GB HBM3",
             "flops": {"bfloat16": 989e12, "float16": 989e12, "float32": 67e12}},
    "h200": {"name": "NVIDIA H200",
             "flops": {"bfloat16": 989e12, "float16": 989e12, "float32": 67e12}},
    "a100": {"name": "NVIDIA A100-SXM4-80GB",
             "flops": {"bfloat16": 312e12, "float16": 312e12, "float32": 19.5e12}},
}
ITEMSIZE = {"float32": 4, "bfloat16": 2, "float16": 2}


def device_key(named: str | None) -> str | None:
    """The DEVICES key for a name given on the command line, or this machine's GPU."""
    if named is None:
        if not torch.cuda.is_available():
            return None
        named = torch.cuda.get_device_name(0)
    lowered = named.lower()
    for key in DEVICES:
        if key in lowered:
            return key
    return None


def _numel(node) -> int:
    meta = node.meta.get("tensor_meta") if isinstance(node, torch.fx.Node) else None
    shape = getattr(meta, "shape", None)
    return int(math.prod(shape)) if shape is not None else 0


def _shape(node) -> tuple | None:
    meta = node.meta.get("tensor_meta") if isinstance(node, torch.fx.Node) else None
    shape = getattr(meta, "shape", None)
    return tuple(shape) if shape is not None else None


def node_flops(node, gm) -> int:
    """FLOPs of one node: 2 per multiply-add for matmuls and convolutions, one per element for
    pointwise ops and reductions, about 5 per element for softmax and norms."""
    import torch.nn.functional as F

    out = _numel(node)
    target = node.target
    name = getattr(target, "__name__", str(target))
    if name in ("linear", "matmul", "mm", "bmm", "addmm") or target is operator.matmul:
        a = _shape(node.args[1] if name == "addmm" else node.args[0])
        return 2 * out * (a[-1] if a else 0)
    if name.startswith("conv"):
        weight = _shape(node.args[1])
        if weight is None:
            return out
        per_out = math.prod(weight[1:]) if not name.startswith("conv_transpose") else \
            weight[0] * math.prod(weight[2:]) // max(1, weight[0])
        return 2 * out * per_out
    if name == "scaled_dot_product_attention":
        q, k = _shape(node.args[0]), _shape(node.args[1])
        if q and k:
            return 4 * math.prod(q[:-1]) * k[-2] * q[-1]
    if target in (F.softmax, F.log_softmax, F.layer_norm, F.rms_norm, F.cross_entropy):
        return 5 * max(out, _numel(node.args[0]))
    if node.op in ("call_function", "call_method"):
        return max(out, _numel(node.args[0]) if node.args else 0)
    return 0


def analyze_file(path: str, device: str | None = None) -> dict[str, Any]:
    import tasks
    from agent.compose import _wide_scans
    from agent.plan import (Graph, _match_whole, _node_text, capture, output_structure_problem,
                            partition, unmatched_text, unmatched_why)

    started = time.monotonic()
    task = tasks.load(path)
    dtype = task.dtypes[0]
    gm, inputs = capture(task)
    nodes = [{"name": n.name, "op": n.op, "target": getattr(n.target, "__name__", str(n.target)),
              "shape": list(_shape(n)) if _shape(n) is not None else None,
              "dtype": str(getattr(n.meta.get("tensor_meta"), "dtype", "")).replace("torch.", "")
              or None}
             for n in gm.graph.nodes]
    found, objections = _match_whole(Graph(gm, task))
    groups, library, unmatched, views, unmatched_texts = [], [], [], [], []
    if found is not None:
        compute = [n.name for n in Graph(gm, task).compute]
        groups.append({"family": found["family"], "template": found["template"],
                       "op": task.op or found["op"], "nodes": compute})
        flops = sum(node_flops(n, gm) for n in Graph(gm, task).compute)
    else:
        part = partition(task, gm, inputs)
        groups = [{"family": g.family, "template": g.template, "op": g.found["op"],
                   "nodes": [n.name for n in g.nodes]} for g in part.groups]
        wide, returned = _wide_scans(part)
        library = [{"node": n.name, "call": _node_text(n),
                    # a scan the composed forward runs in float32 (agent/compose.py, WIDE_SCANS),
                    # and whether a pointwise kernel of its own rounds it (the graph returns it)
                    "float32_scan": n in wide, "rounded": n in returned}
                   for n in part.library]
        views = [n.name for n in part.views]
        unmatched = [{"node": n.name, "call": _node_text(n), "why": unmatched_why(n)}
                     for n in part.unmatched]
        unmatched_texts = [unmatched_text(n) for n in part.unmatched]
        flops = sum(node_flops(n, part.gm) for n in part.gm.graph.nodes
                    if n.op in ("call_function", "call_method"))
    # bytes: what the fused op must move at least: its inputs, parameters and outputs, once
    itemsize = ITEMSIZE[dtype]
    moved = 0
    for n in gm.graph.nodes:
        if n.op in ("placeholder", "get_attr"):
            meta = n.meta.get("tensor_meta")
            is_float = getattr(getattr(meta, "dtype", None), "is_floating_point", False)
            moved += _numel(n) * (itemsize if is_float else getattr(
                getattr(meta, "dtype", None), "itemsize", 8))
    out = next(n for n in gm.graph.nodes if n.op == "output").args[0]
    for o in (out if isinstance(out, (tuple, list)) else [out]):
        moved += _numel(o) * itemsize
    if task.bytes_formula is not None:
        moved = task.formula_value("bytes", itemsize) or moved
    if task.flops_formula is not None:
        flops = task.formula_value("flops", itemsize) or flops
    key = device_key(device)
    roofline = None
    if key is not None:
        from verifier.timing import peak_bandwidth

        spec = DEVICES[key]
        bandwidth = peak_bandwidth(spec["name"], 0.0)
        memory_s = moved / bandwidth
        compute_s = flops / spec["flops"][dtype]
        roofline = {"device": spec["name"], "floor_us": round(max(memory_s, compute_s) * 1e6, 3),
                    "bound": "memory" if memory_s >= compute_s else "compute",
                    "bandwidth_gbps": bandwidth / 1e9,
                    "peak_tflops": spec["flops"][dtype] / 1e12}
    structure = output_structure_problem(gm)
    covered = bool(groups) and not unmatched and structure is None
    reason = structure
    if not covered and structure is None:
        reason = (objections[0] if objections and not groups else
                  "no template covers: " + ", ".join(unmatched_texts) if unmatched
                  else "no node lands in a generated kernel (only library calls and views)")
    return {
        "file": str(path), "op": task.op, "dtype": dtype,
        "shape": {k: getattr(task.module, k) for k in (task.shapes[0] if task.shapes else {})},
        "nodes": nodes, "covered": covered, "groups": groups, "library_calls": library,
        "views": views, "unmatched": unmatched, "reason": reason,
        "bytes": int(moved), "flops": int(flops), "roofline": roofline,
        "seconds": round(time.monotonic() - started, 3),
    }


def print_report(result: dict[str, Any]) -> None:
    print(f"== {result['file']} ({result['dtype']})")
    compute = [n for n in result["nodes"] if n["op"] not in ("placeholder", "get_attr", "output")]
    print("  graph: " + ", ".join(f"{n['target']}{tuple(n['shape']) if n['shape'] else ''}"
                                  for n in compute))
    for i, g in enumerate(result["groups"]):
        print(f"  group {i}: {g['family']} (template {g['template']}): {', '.join(g['nodes'])}")
    for lib in result["library_calls"]:
        how = ""
        if lib.get("float32_scan"):
            how = (" (in float32, then rounded to the run's dtype by a pointwise kernel)"
                   if lib.get("rounded") else " (in float32, read by the pointwise kernels)")
        print(f"  library call: {lib['call']}{how}")
    for u in result["unmatched"]:
        print(f"  UNMATCHED: {u['call']}" + (f": {u['why']}" if u.get("why") else ""))
    roof = result["roofline"]
    floor = (f"; roofline floor {roof['floor_us']} us on {roof['device']} ({roof['bound']}-bound)"
             if roof else "; no roofline (name a device with --device h100|h200|a100)")
    print(f"  {result['bytes'] / 1e6:.2f} MB, {result['flops'] / 1e9:.3f} GFLOP{floor}")
    print(f"  covered: {'yes' if result['covered'] else 'no: ' + (result['reason'] or '')}"
          f" ({result['seconds']:.2f} s)")
