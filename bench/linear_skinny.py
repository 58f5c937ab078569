"""`kernel_zoo.ops.linear` at few rows (a decode or small batch against a weight), beside the
previous version of its entry, eager PyTorch, torch.compile and the bare cuBLAS GEMM.

A linear entry's module serves calls of at most 128 output rows with its skinny companion
(`templates/gemm.py`'s SKINNY_DEFAULT, rendered into the module when it was promoted) and those of
at most 16 with its decode companions, whatever tile its search picked for the task's large
shapes. This times what a user's call runs: for each activation (the zoo's `linear_bias_<act>`
entries), dtype, row count and weight shape, the newest shipped entry through `ops.linear`, the
entry version named by --previous loaded from its own folder, `act(F.linear(x, w, b))` eager and
under torch.compile (default mode), and `F.linear(x, w, b)` alone (cuBLAS with its bias: the GEMM
without the activation's pass). Each output is first checked against float64 as the verifier
checks a candidate (verifier.tolerance.compare: element-wise, and norm-wise within the dtype's
bound or four times eager's own error; a wrong one is not timed), and its relative error is
recorded beside eager's. (Rounds 287, 295 and 296 gated on at most eager's own error instead: a
plain GEMM's output, rounded once as cuBLAS's is, ties it to six digits and falls either side.)
Each callable is captured in a CUDA graph and timed as its replay, interleaved, the L2 flushed
before each run (verifier.timing). A call counts as served by the zoo when kernel_zoo.ops's
dispatch chose the entry and the output is the entry's, bit for bit. With --matmul, the same
for `ops.matmul(x, wt)` (the matmul entry, whose module has the same companions; wt the weight
as a row-major (K, N) operand) beside its --matmul-previous entry and `torch.matmul` (cuBLAS:
eager and the bare GEMM at once) and torch.compile. Writes
bench/results/linear-skinny-<device>.json (matmul-skinny-<device>.json where only ops.matmul is
timed: --activations "" --matmul) and prints a table.

    python bench/linear_skinny.py [--previous 1.1.0] [--dtypes bfloat16,float16]
        [--activations silu,gelu] [--matmul [--matmul-previous 1.1.0]] [--out DIR]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import kernel_zoo.ops  # noqa: E402 - first: it defines what kernel_zoo._ops_gemm imports
from kernel_zoo._ops_gemm import ACTIVATIONS  # noqa: E402 - ops.linear's activations by name

ROWS = (1, 16, 24, 32, 40, 48, 64, 100, 128)  # all within matmul's rows_le_128 bucket
WEIGHTS = ((4096, 4096), (4096, 14336), (1000, 3000))  # (in_features, out_features)


def _entry_launcher(op: str, version: str | None, dtype: str, arch: str):
    """launch_<op> of the shipped entry's `version` (None: the newest) for (arch, dtype), as
    kernel_zoo.ops loads a call pinned to that entry's folder; None where it has no config.
    matmul's entries are its rows_le_128 bucket's, which serves every row count timed here."""
    from kernel_zoo import ops, store

    entry = store.find_entry(op, version, zoo_dirs=[ROOT / "kernel_zoo" / "entries"])
    bucket = "rows_le_128" if op == "matmul" else "any"
    return ops._zoo_launcher(op, arch, dtype, bucket=bucket, entry=str(entry.path))


def _dispatched(op: str, act_name: str | None, args: tuple) -> bool:
    """Whether kernel_zoo.ops sends this call to a zoo launcher rather than its reference."""
    from kernel_zoo import _ops_gemm, ops

    kind = _ops_gemm.MATMUL if op == "matmul" else _ops_gemm.VARIANTS[(True, act_name)]
    launcher = ops._choose(kind, args, None)[0]
    return launcher is not None


def _rel_err(got: torch.Tensor, ref: torch.Tensor) -> float:
    return ((got.double() - ref).norm() / ref.norm()).item()


def run(args) -> dict:
    from kernel_zoo import store
    from verifier.environment import environment
    from verifier.timing import L2Flusher, bench, graphed_where_possible
    from verifier.tolerance import compare, tolerance_for

    import torch._dynamo

    # one compiled function over many shapes (dynamic=False): past dynamo's recompile limit it
    # would run eager unannounced
    for name in ("cache_size_limit", "recompile_limit", "accumulated_cache_size_limit",
                 "accumulated_recompile_limit"):
        if hasattr(torch._dynamo.config, name):
            setattr(torch._dynamo.config, name, 4096)
    device = torch.device("cuda")
    arch = "sm_%d%d" % torch.cuda.get_device_capability(device)
    flusher = L2Flusher(device)
    jobs = [(f"linear_bias_{name}", args.previous, name) for name in args.activations.split(",")
            if name]
    if args.matmul:
        jobs.append(("matmul", args.matmul_previous, None))
    rows_out = []
    for op, previous_version, act_name in jobs:
        newest = store.find_entry(op, zoo_dirs=[ROOT / "kernel_zoo" / "entries"]).version
        for dtype_name in args.dtypes.split(","):
            dtype = getattr(torch, dtype_name)
            previous = _entry_launcher(op, previous_version, dtype_name, arch)
            served = _entry_launcher(op, None, dtype_name, arch)
            if act_name is None:  # ops.matmul(x, wt): eager is cuBLAS's GEMM itself
                ref_fn = torch.matmul
                zoo_fn = kernel_zoo.ops.matmul
                compiled = torch.compile(lambda x, wt: torch.matmul(x, wt), dynamic=False)
            else:
                act = ACTIVATIONS[act_name]
                ref_fn = (lambda x, w, b, act=act: act(F.linear(x, w, b)))
                zoo_fn = (lambda x, w, b, act_name=act_name:
                          kernel_zoo.ops.linear(x, w, b, act_name))
                compiled = torch.compile(ref_fn, dynamic=False)
            for k, n in WEIGHTS:
                torch.manual_seed(0)
                w = (torch.randn(n, k, device=device) / k ** 0.5).to(dtype)
                b = torch.randn(n, device=device, dtype=dtype)
                # matmul's operands: x and the weight as a row-major (K, N) matrix
                operands = ((w.t().contiguous(),) if act_name is None else (w, b))
                for m in ROWS:
                    x = torch.randn(m, k, device=device, dtype=dtype)
                    args_ = (x, *operands)
                    fns = {
                        "zoo": lambda a=args_: zoo_fn(*a),
                        "eager": lambda a=args_: ref_fn(*a),
                        "compile": lambda a=args_: compiled(*a),
                    }
                    if act_name is not None:  # cuBLAS with its bias, without the activation
                        fns["cublas_gemm"] = lambda x=x, w=w, b=b: F.linear(x, w, b)
                    if previous is not None:
                        fns["previous"] = lambda a=args_: previous(*a)
                    ref = ref_fn(*(t.double() for t in args_))
                    same_dtype = ref_fn(*args_)
                    tol = tolerance_for(dtype_name)
                    outputs = {name: fns[name]() for name in ("zoo", "previous", "compile")
                               if name in fns}
                    errors = {name: _rel_err(out, ref) for name, out in outputs.items()}
                    # a wrong kernel of ours is not timed; torch.compile's own rounding (its
                    # epilogue in fp32 or not) is recorded beside it, and it is timed either way
                    wrong = sorted(name for name in ("zoo", "previous") if name in outputs
                                   and not compare(outputs[name], ref, same_dtype, tol).ok)
                    # the op's dispatch chose the zoo (not its fallback), and its output is the
                    # newest entry's, bit for bit (bits alone cannot tell: at K = 1000 cuBLAS's
                    # output and the entry's coincide)
                    zoo_served = (_dispatched(op, act_name, args_) and served is not None
                                  and torch.equal(fns["zoo"](), served(*args_)))
                    timed = {name: fn for name, fn in fns.items() if name not in wrong}
                    with torch.no_grad():
                        timed, failed = graphed_where_possible(timed)
                        timings = bench(timed, flusher=flusher, budget_ms=40.0 * len(timed))
                    us = {name: t.median_ms * 1e3 for name, t in timings.items()}
                    row = {"op": op, "entry": newest, "previous": previous_version,
                           "dtype": dtype_name, "rows": m, "in_features": k,
                           "out_features": n, "us": us, "rel_l2_err": errors,
                           "eager_rel_l2_err": _rel_err(same_dtype, ref), "wrong": wrong,
                           "zoo_served": zoo_served,
                           "graph_capture_failed": failed}
                    for key in ("eager", "compile", "previous", "cublas_gemm"):
                        if "zoo" in us and key in us:
                            row[f"zoo_vs_{key}"] = us[key] / us["zoo"]
                    rows_out.append(row)
                    print(_line(row), flush=True)
    return {
        "benchmark": "ops.linear (and with --matmul ops.matmul) at few rows against its "
                     "previous entry, eager, torch.compile and the bare cuBLAS GEMM",
        "environment": environment(),
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "method": "each callable captured in a CUDA graph and timed as its replay (GPU time "
                  "without host time), interleaved, L2 flushed before each run; median",
        "rows": rows_out, "summary": summarize(rows_out),
    }


def summarize(rows_out: list[dict]) -> dict:
    """Geomeans over all rows and per op: of the zoo call against eager, torch.compile and the
    bare cuBLAS GEMM over every row (what a user's call gets, the op's fallback where the entry
    does not serve), and against the previous entry only over the rows the newest entry serves
    (elsewhere the call runs the fallback, and the ratio says nothing of either entry: round
    444's matmul sweep, summed before this rule, read 1.039x over all 54 rows, 1.011x over the 36
    served); then which rows were not served and which were wrong."""
    summary = {}
    for label, picked in (("", rows_out),
                          *((f"_{op}", [r for r in rows_out if r["op"] == op])
                            for op in dict.fromkeys(r["op"] for r in rows_out))):
        for key in ("zoo_vs_eager", "zoo_vs_compile", "zoo_vs_previous", "zoo_vs_cublas_gemm"):
            values = [r[key] for r in picked
                      if key in r and (key != "zoo_vs_previous" or r["zoo_served"])]
            if values:
                summary[f"geomean_{key}{label}"] = math.exp(sum(map(math.log, values))
                                                            / len(values))
    summary["not_served"] = [f"{r['op']} {r['dtype']} {r['rows']}x{r['in_features']}->"
                             f"{r['out_features']}" for r in rows_out if not r["zoo_served"]]
    summary["wrong"] = [f"{r['op']} {r['dtype']} {r['rows']}x{r['in_features']}->"
                        f"{r['out_features']}: {r['wrong']}" for r in rows_out if r["wrong"]]
    return summary


def _line(row: dict) -> str:
    us = row["us"]
    cells = " ".join(f"{name} {us[name]:6.1f}" for name in
                     ("zoo", "previous", "eager", "compile", "cublas_gemm") if name in us)
    return (f"{row['op']:17s} {row['dtype']:8s} {row['rows']:4d}x{row['in_features']}->"
            f"{row['out_features']:<6d} {cells}"
            + (f"  WRONG {row['wrong']}" if row["wrong"] else "")
            + ("" if row["zoo_served"] else "  (the op did not run the entry)"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--previous", default="1.1.0",
                        help="the entry version to time beside the newest (default 1.1.0)")
    parser.add_argument("--dtypes", default="bfloat16,float16")
    parser.add_argument("--activations", default="silu,gelu",
                        help="the linear_bias_<act> entries to time, of "
                             f"{','.join(ACTIVATIONS)} (default silu,gelu; empty: none)")
    parser.add_argument("--matmul", action="store_true",
                        help="also time ops.matmul (the matmul entry) at the same shapes")
    parser.add_argument("--matmul-previous", default="1.1.0",
                        help="with --matmul: the matmul entry version to time beside the newest")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"), help="results folder")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("bench/linear_skinny.py times GPU kernels: no CUDA device here", file=sys.stderr)
        return 2
    from verifier.environment import device_label

    result = run(args)
    # ops.matmul alone (--activations "" --matmul) writes its own file
    kind = "linear-skinny" if args.activations else "matmul-skinny"
    path = Path(args.out) / f"{kind}-{device_label()}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result["summary"], indent=1))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
