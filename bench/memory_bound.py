"""Benchmark every memory-bound zoo op against eager PyTorch and torch.compile, in one GPU run.

For each task in tasks/ whose op is a `kernel_zoo.ops` op (or those named by --ops): every GPU shape
of the task in each dtype, the zoo kernel called as a user calls it (`kernel_zoo.ops.<op>`), eager
PyTorch (the task's Model) and `torch.compile(Model)` (default mode), interleaved and timed with
the verifier's timer (L2 flushed before each run, medians of CUDA-event-timed runs). GB/s from the
task's byte formula (every input read once, every output written once), beside the device-to-device
copy bandwidth measured in the same process. Each zoo output is checked against a float64 reference
before it is timed. Writes bench/results/memory-bound-<device>.json and prints a table and the
issue's acceptance checks (large shapes: data at least 4x the L2 cache).

A call whose host time (Python, the zoo's dispatch, torch.compile's guards) outlasts the L2 flush
before it shows that host time, which varies by machine; `--graphs` captures each callable in a CUDA
graph and times its replay, the GPU's work alone (memory-bound-<device>-graphs.json; a run of
other dtypes than the default pair has them in its name, -float16-graphs.json say); `--host-ahead`
times with the verifier's timer since GPU round 184 (the GPU held busy while the host queues each
batch of calls: the GPU's work alone, without capturing a graph; memory-bound-<device>-host-ahead
.json). Both together time every row both ways in one process: the graph replays are the row's
numbers, and each callable's host_ahead time and its ratio to the replay's are kept beside them,
summed up in "host_ahead_against_graphs".

The copy bandwidth is a 1 GiB copy's; a row moves fewer bytes, and a smaller transfer pays its
ramp-up and drain on more of its time (a 268 MB copy reads 0.96 of the 1 GiB one on an H200,
round 354). `--own-copy` times, interleaved with the row's three callables, a device copy moving
the row's own bytes (half read, half written, in its dtype): the row's "own_copy" and
"vs_own_copy" (its time over the zoo's) say how far the zoo is from the copy of its own bytes,
not only from the yardstick's (-own-copy in the file's name).

Two CUDA graphs of one call read up to 5% apart at some shapes, the same way in every timing and
whatever the calls' order (GPU round 450, bench/probe_graph_twins.py), and the zoo's graph is
captured first. `--copies N` (with --graphs) captures each callable N times, in turn with the
order reversed every other round (`verifier.timing.copies_in_turn`), times all of them
interleaved, and takes each callable's time as the mean of its graphs' (each graph's median kept
in the row's `copies_ms`; -copiesN in the file's name).

What sets two such graphs apart is where their outputs lie: written into outputs at chosen
addresses, one op's graphs read up to 4.6% apart by address alone, and graphs writing one address
within 0.13% (GPU round 451, bench/probe_graph_placement.py). `--paired` (with --graphs) captures
copy k of every callable into one memory pool of its own, each call's outputs released before the
next capture (`graphed_where_possible(..., paired=True)`), so the row's callables write the same
addresses in each copy and are compared at the same places; the row's `output_addresses` lists
each callable's first output per copy and `paired_addresses` says whether they matched (-paired in
the file's name).

    python bench/memory_bound.py [--ops rms_norm,softmax] [--dtypes bfloat16,float32] [--graphs]
                                 [--host-ahead] [--launches] [--own-copy] [--copies 3] [--paired]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import tasks  # noqa: E402
from agent.plan import plan  # noqa: E402
from kernel_zoo import buckets, ops, store  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import (  # noqa: E402
    L2Flusher, bench, copies_in_turn, copy_bandwidth, graphed_where_possible, merge_copies)
from verifier.verdict import geomean  # noqa: E402

# issue #3's ops: the memory-bound zoo ops (kernel_zoo.ops also has matmul, linear, attention)
MEMORY_BOUND_OPS = {"softmax", "log_softmax", "rms_norm", "layer_norm", "add_rms_norm",
                    "cross_entropy", "swiglu", "geglu", "sum", "mean", "amax", "amin", "argmax"}
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
DEFAULT_DTYPES = ["bfloat16", "float32"]
LARGE_L2_MULTIPLE = 4  # a shape is "large" when its bytes are at least this many times the L2
BANDWIDTH_BAR = 0.90
GEOMEAN_BAR = 1.2


def zoo_call(op: str, context: dict, model: torch.nn.Module, inputs: list):
    """`kernel_zoo.ops.<op>` with the arguments the task's Model implies."""
    def param(path):
        return model.get_parameter(path) if path else None

    if op in ("softmax", "log_softmax", "sum", "mean", "amax", "amin", "argmax"):
        # a task may pass the dim to Model's constructor (one task, several dims)
        fn, dim = getattr(ops, op), getattr(model, "dim", context["dim"])
        return lambda: fn(inputs[0], dim)
    if op in ("rms_norm", "layer_norm"):
        k = context["normalized_ndim"]
        weight, bias, eps = param(context["weight_path"]), param(context["bias_path"]), context["eps"]
        shape = list(inputs[0].shape[-k:])
        if op == "rms_norm":
            return lambda: ops.rms_norm(inputs[0], shape, weight, eps)
        return lambda: ops.layer_norm(inputs[0], shape, weight, bias, eps)
    if op == "add_rms_norm":
        weight, eps = param(context["weight_path"]), context["eps"]
        return lambda: ops.add_rms_norm(inputs[0], inputs[1], weight, eps)
    if op == "cross_entropy":
        ignore = context["ignore_index"]
        return lambda: ops.cross_entropy(inputs[0], inputs[1], ignore)
    if op in ("swiglu", "geglu"):
        fn = getattr(ops, op)
        return lambda: fn(inputs[0], inputs[1])
    raise KeyError(op)


def own_copy_call(nbytes: int, dtype: torch.dtype, device: torch.device):
    """A device copy that moves `nbytes` (reads half, writes half) in `dtype`'s elements: the
    copy of a row's own bytes (`--own-copy`), and the tensors it copies between."""
    itemsize = torch.empty((), dtype=dtype).element_size()
    numel = max(1, nbytes // (2 * itemsize))
    src = torch.empty(numel, dtype=dtype, device=device).uniform_()
    dst = torch.empty_like(src)
    return (lambda: dst.copy_(src)), src, dst


def task_case(task, shape: dict, dtype: torch.dtype, device: torch.device):
    """The task's Model and inputs at `shape` (seed 0, made on `device`), the Model and the
    floating-point inputs in `dtype`: what every row of the table times."""
    task.apply_shape(shape)
    torch.manual_seed(0)
    with torch.device(device):
        model = task.make_model()
        inputs = task.make_inputs()
    model = model.to(device, dtype).eval()
    return model, [t.to(device, dtype) if t.is_floating_point() else t.to(device) for t in inputs]


def _outputs(value) -> list[torch.Tensor]:
    return list(value) if isinstance(value, (tuple, list)) else [value]


def _check(zoo_out, model, inputs) -> float:
    """Largest relative L2 error of the zoo's outputs against a float64 reference (exact match
    required for integer outputs: returns inf on any difference)."""
    import copy

    ref = _outputs(copy.deepcopy(model).double()(*[
        t.double() if isinstance(t, torch.Tensor) and t.is_floating_point() else t for t in inputs
    ]))
    worst = 0.0
    for got, exp in zip(_outputs(zoo_out), ref):
        if not got.is_floating_point():
            worst = max(worst, 0.0 if torch.equal(got, exp.to(got.dtype)) else math.inf)
            continue
        err = ((got.double() - exp).norm() / exp.norm().clamp_min(1e-30)).item()
        worst = max(worst, err if math.isfinite(err) else math.inf)
    return worst


def _bucket(op: str, context: dict, model: torch.nn.Module, inputs: list) -> str:
    """The zoo bucket `kernel_zoo.ops` dispatches this call to (as `ops._decide` computes it)."""
    dim = getattr(model, "dim", context.get("dim")) if op in buckets.DIM_OPS else None
    return buckets.bucket_of(op, tuple(inputs[0].shape), dim)


def _entry_for(op: str, arch: str, dtype: str, bucket: str, gpu: str | None = None) -> dict | None:
    """The config serving `bucket` on the GPU model `gpu`, or None where the call runs the
    PyTorch reference."""
    found = store.find_config(op, arch, dtype, bucket=bucket, device=gpu)
    if found is None:
        return None
    manifest, config, entry_dir = found
    return {"version": manifest["version"], "layer_path": str(entry_dir),
            "template": config["template"], "shape_bucket": config["shape_bucket"],
            "params": config["params"]}


def result_name(op_filter: set[str] | None, dtypes: list[str], graphs: bool,
                host_ahead: bool, own_copy: bool = False, copies: int = 1,
                paired: bool = False) -> str:
    """memory-bound-<device>[-<ops>][-<dtypes>][-graphs][-host-ahead][-own-copy][-copiesN]
    [-paired].json:
    the dtypes are named unless they are the default pair, so runs of one dtype each do not
    overwrite each other."""
    suffix = ("" if op_filter is None else "-" + "-".join(sorted(op_filter)))
    if list(dtypes) != DEFAULT_DTYPES:
        suffix += "-" + "-".join(dtypes)
    suffix += ("-graphs" if graphs else "") + ("-host-ahead" if host_ahead else "")
    suffix += "-own-copy" if own_copy else ""
    suffix += f"-copies{copies}" if copies > 1 else ""
    suffix += "-paired" if paired else ""
    return f"memory-bound-{device_label()}{suffix}.json"


def run(op_filter: set[str] | None, dtypes: list[str], out_dir: Path,
        graphs: bool = False, host_ahead: bool = False, launches: bool = False,
        own_copy: bool = False, copies: int = 1, paired: bool = False) -> dict:
    if not torch.cuda.is_available():
        sys.exit("bench/memory_bound.py needs a CUDA GPU: it measures time")
    torch._dynamo.config.cache_size_limit = 256
    device = torch.device("cuda")
    env = environment()
    flusher = L2Flusher(device)
    l2_bytes = torch.cuda.get_device_properties(device).L2_cache_size
    copy_gbps = copy_bandwidth(device, flusher) / 1e9
    rows = []
    task_files = sorted(p for p in (ROOT / "tasks").glob("*.py")
                        if p.stem not in ("__init__", "loader"))
    for path in task_files:
        task = tasks.load(path)
        if task.op not in MEMORY_BOUND_OPS or (op_filter and task.op not in op_filter):
            continue  # the compute-bound families have bench/gemm.py and bench/attention.py
        found = plan(task)
        for dtype_name in dtypes:
            if dtype_name not in task.dtypes:
                continue
            dtype = DTYPES[dtype_name]
            itemsize = torch.empty((), dtype=dtype).element_size()
            for shape in task.shapes:
                model, inputs = task_case(task, shape, dtype, device)
                zoo = zoo_call(task.op, found.context, model, inputs)
                nbytes = task.formula_value("bytes", itemsize)
                started = time.monotonic()
                with torch.no_grad():
                    err = _check(zoo(), model, inputs)
                    torch._dynamo.reset()
                    compiled = torch.compile(model, dynamic=False)
                    fns = {"zoo": zoo, "eager": lambda: model(*inputs),
                           "compile": lambda: compiled(*inputs)}
                    if own_copy:  # the copy of the row's own bytes, timed among them
                        fns["own_copy"] = own_copy_call(nbytes, dtype, device)[0]
                    capture_failed, ahead = [], None
                    if graphs and host_ahead:  # the same callables, un-captured, the verifier's way
                        ahead = bench(fns, flusher=flusher, budget_ms=400.0, rounds=5,
                                      host_ahead=True)
                    names = list(fns)
                    if copies > 1:  # each callable as several graphs, captured in turn
                        fns = {pair: fns[pair[0]] for pair in copies_in_turn(names, copies)}
                    addresses = {}
                    if graphs:  # a callable that cannot be captured is timed without, and said
                        fns, capture_failed = graphed_where_possible(fns, paired, addresses)
                    times = bench(fns, flusher=flusher, budget_ms=400.0, rounds=5,
                                  host_ahead=host_ahead and not graphs)
                    copies_ms = {}
                    if copies > 1:
                        times, copies_ms = merge_copies(times, names, copies)
                row = {
                    "task": path.stem, "op": task.op, "dtype": dtype_name, "shape": dict(shape),
                    "bytes": nbytes, "large": nbytes >= LARGE_L2_MULTIPLE * l2_bytes,
                    "zoo_rel_l2_err": err,
                    "zoo_entry": _entry_for(task.op, env["arch"], dtype_name,
                                            _bucket(task.op, found.context, model, inputs),
                                            env["gpu"]),
                    "seconds": round(time.monotonic() - started, 1),
                }
                if graphs:
                    row["graph_capture_failed"] = capture_failed  # those were timed without one
                if paired:
                    row["output_addresses"], row["paired_addresses"] = paired_addresses(
                        addresses, [n for n in names if n != "own_copy"], copies)
                for name, t in times.items():
                    gbps = nbytes / (t.median_ms * 1e-3) / 1e9
                    row[name] = {"ms": t.median_ms, "p20_ms": t.p20_ms, "p80_ms": t.p80_ms,
                                 "n": t.n, "gbps": gbps, "fraction_of_copy": gbps / copy_gbps}
                for name, each in copies_ms.items():
                    row[name]["copies_ms"] = each
                row["speedup_vs_eager"] = times["eager"].median_ms / times["zoo"].median_ms
                row["speedup_vs_compile"] = times["compile"].median_ms / times["zoo"].median_ms
                if own_copy:
                    row["vs_own_copy"] = times["own_copy"].median_ms / times["zoo"].median_ms
                if launches:  # the kernels one zoo call launched: grid, block, registers
                    from probe_inductor_glu import launch_dims

                    with torch.no_grad():
                        row["zoo_launches"] = launch_dims(zoo)
                if ahead is not None:
                    row["host_ahead"] = {
                        name: {"ms": t.median_ms, "p20_ms": t.p20_ms, "p80_ms": t.p80_ms,
                               "against_graph": t.median_ms / times[name].median_ms}
                        for name, t in ahead.items()}
                    row["host_ahead"]["speedup_vs_compile"] = (
                        ahead["compile"].median_ms / ahead["zoo"].median_ms)
                rows.append(row)
                _print_row(row)
    result = {
        "benchmark": "memory_bound",
        "environment": env,
        "l2_bytes": l2_bytes,
        "copy_gbps": copy_gbps,
        "method": "median of CUDA-event-timed runs, L2 flushed before each run, zoo/eager/compile "
                  "timed in one process, their calls ordered as environment's call_order says "
                  "(verifier.timing.bench); bytes from each task's KZOO formula "
                  "(inputs read once, outputs written once); compile = torch.compile(Model), "
                  "default mode, dynamic=False"
                  + ("; each callable captured in a CUDA graph and timed as its replay (GPU time "
                     "without host time)" if graphs else "")
                  + (f"; each callable captured {copies} times in turn (copies_in_turn) and "
                     "timed as the mean of its graphs' medians" if copies > 1 else "")
                  + ("; paired: each copy's graphs captured into one shared memory pool, each "
                     "call's outputs released before the next capture, so the callables write "
                     "the same addresses (row's paired_addresses)" if paired else "")
                  + ("; the same callables also timed un-captured with host_ahead (the "
                     "verifier's timer), in the row's host_ahead" if graphs and host_ahead
                     else "; host_ahead: the GPU held busy while the host queues each batch of "
                     "timed calls (the verifier's timer)" if host_ahead else ""),
        "cuda_graphs": graphs,
        "host_ahead": host_ahead,
        "own_copy": own_copy,
        "copies": copies,
        "paired": paired,
        "rows": rows,
        "acceptance": acceptance(rows),
    }
    if graphs and host_ahead:
        result["host_ahead_against_graphs"] = timer_agreement(rows)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / result_name(op_filter, dtypes, graphs, host_ahead, own_copy, copies, paired)
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"\ncopy bandwidth {copy_gbps:.0f} GB/s on {env['gpu']}")
    print(json.dumps(result["acceptance"], indent=1))
    if "host_ahead_against_graphs" in result:
        print(json.dumps(result["host_ahead_against_graphs"], indent=1))
    print(f"wrote {path}")
    return result


def paired_addresses(addresses: dict, names: list[str], copies: int) -> tuple[dict, bool]:
    """Each callable's first output address per copy (hex; None where it was not captured or
    returned no tensor), from `graphed_where_possible`'s `addresses` over `bench` keys (a name, or
    (name, k) with copies), and whether in every copy all captured callables wrote one address."""
    def key(name, k):
        return (name, k) if copies > 1 else name

    table = {name: [addresses.get(key(name, k)) for k in range(copies)] for name in names}
    same = all(len({a for a in (table[n][k] for n in names) if a is not None}) <= 1
               for k in range(copies))
    return {n: [hex(a) if a is not None else None for a in each] for n, each in table.items()}, same


def acceptance(rows: list[dict]) -> dict:
    """The issue's bars: >= 90% of copy bandwidth at large shapes, >= torch.compile everywhere,
    geometric mean over ops and shapes >= 1.2x torch.compile."""
    correct = [r for r in rows if r["zoo_rel_l2_err"] < 0.05]
    large = [r for r in correct if r["large"]]
    slow_large = [f"{r['task']} {r['dtype']} {r['shape']}: {r['zoo']['fraction_of_copy']:.2f}"
                  for r in large if r["zoo"]["fraction_of_copy"] < BANDWIDTH_BAR]
    behind = [f"{r['task']} {r['dtype']} {r['shape']}: {r['speedup_vs_compile']:.2f}x"
              for r in correct if r["speedup_vs_compile"] < 1.0]
    speedups = [r["speedup_vs_compile"] for r in correct]
    overall = geomean(speedups)
    per_op: dict[str, list[float]] = {}
    for r in correct:
        per_op.setdefault(r["op"], []).append(r["speedup_vs_compile"])
    return {
        "rows": len(rows),
        "wrong": [f"{r['task']} {r['dtype']} {r['shape']}" for r in rows if r not in correct],
        "large_rows": len(large),
        "large_below_90pct_of_copy": slow_large,
        "slower_than_compile": behind,
        "geomean_vs_compile": overall,
        "geomean_vs_compile_per_op": {op: geomean(v) for op, v in per_op.items()},
        "passes": bool(correct) and not slow_large and not behind and len(correct) == len(rows)
        and overall is not None and overall >= GEOMEAN_BAR,
    }


def timer_agreement(rows: list[dict]) -> dict:
    """Per callable, host_ahead's time over the graph replay's (median, least, most, and the
    rows past 3% either way), and how many rows' verdict against torch.compile (>= 1.0 or not)
    the two timers disagree on."""
    out: dict = {}
    for name in ("zoo", "eager", "compile"):
        against = [(r, r["host_ahead"][name]["against_graph"]) for r in rows if "host_ahead" in r]
        if not against:
            continue
        ratios = sorted(x for _, x in against)
        out[name] = {
            "median": ratios[len(ratios) // 2], "min": ratios[0], "max": ratios[-1],
            "rows_off_by_3pct": [f"{r['task']} {r['dtype']} {r['shape']}: {x:.3f}"
                                 for r, x in against if abs(x - 1.0) > 0.03],
        }
    out["verdict_vs_compile_differs"] = [
        f"{r['task']} {r['dtype']} {r['shape']}: graphs {r['speedup_vs_compile']:.3f}x, "
        f"host_ahead {r['host_ahead']['speedup_vs_compile']:.3f}x"
        for r in rows if "host_ahead" in r
        and (r["speedup_vs_compile"] >= 1.0) != (r["host_ahead"]["speedup_vs_compile"] >= 1.0)]
    return out


def _print_row(r: dict) -> None:
    shape = "x".join(str(v) for v in r["shape"].values())
    entry = r["zoo_entry"]
    where = (f"{entry['template']} {entry['version']} [{entry['shape_bucket']}]" if entry
             else "no config: the PyTorch reference")
    print(f"{r['task']:<18} {r['dtype']:<9} {shape:>16} zoo {r['zoo']['gbps']:6.0f} GB/s "
          f"({r['zoo']['fraction_of_copy']:.2f} copy)  eager {r['eager']['gbps']:6.0f}  "
          f"compile {r['compile']['gbps']:6.0f}  x{r['speedup_vs_eager']:.2f} eager "
          f"x{r['speedup_vs_compile']:.2f} compile  err {r['zoo_rel_l2_err']:.1e}  {where}"
          + (f"  own copy {r['own_copy']['fraction_of_copy']:.2f} copy, zoo at "
             f"{r['vs_own_copy']:.2f} of it" if "vs_own_copy" in r else ""),
          flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ops", help="comma-separated zoo ops (default: every op with a task)")
    parser.add_argument("--dtypes", default=",".join(DEFAULT_DTYPES),
                        help="comma-separated dtypes (default bfloat16,float32; other choices "
                             "are named in the output file's name)")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"), help="results folder")
    parser.add_argument("--graphs", action="store_true",
                        help="time CUDA-graph replays of each callable: GPU time only, so the "
                             "host (Python, dispatch, torch.compile's guards) drops out")
    parser.add_argument("--host-ahead", action="store_true",
                        help="time as the verifier does (the GPU held busy while the host queues "
                             "each batch); with --graphs, time each row both ways and compare")
    parser.add_argument("--launches", action="store_true",
                        help="after timing each row, record the kernels one zoo call launches "
                             "(grid, block, registers, from a profiler trace) in its zoo_launches")
    parser.add_argument("--own-copy", action="store_true",
                        help="also time a device copy moving each row's own bytes, among the "
                             "row's callables: its own_copy and vs_own_copy (the copy's time "
                             "over the zoo's)")
    parser.add_argument("--copies", type=int, default=1,
                        help="with --graphs: capture each callable this many times, in turn, and "
                             "time it as the mean of its graphs (two graphs of one call read up "
                             "to 5%% apart at some shapes)")
    parser.add_argument("--paired", action="store_true",
                        help="with --graphs: capture each copy's graphs of the row's callables "
                             "into one shared memory pool, outputs released in between, so they "
                             "write the same addresses (an output's address alone moved a 10 us "
                             "kernel by up to 4.6%%)")
    args = parser.parse_args()
    dtypes = [d.strip() for d in args.dtypes.split(",") if d.strip()]
    unknown = [d for d in dtypes if d not in DTYPES]
    if unknown:
        parser.error(f"unknown dtypes {unknown}; choose from {list(DTYPES)}")
    if args.copies < 1 or (args.copies > 1 and not args.graphs):
        parser.error("--copies takes a count of 1 or more, and more than 1 only with --graphs "
                     "(it times graphs of each callable)")
    if args.paired and not args.graphs:
        parser.error("--paired needs --graphs (it pairs the callables' graphs)")
    op_filter = {o.strip() for o in args.ops.split(",")} if args.ops else None
    run(op_filter, dtypes, Path(args.out), graphs=args.graphs, host_ahead=args.host_ahead,
        launches=args.launches, own_copy=args.own_copy, copies=args.copies, paired=args.paired)


if __name__ == "__main__":
    main()
