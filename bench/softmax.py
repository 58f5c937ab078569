"""Benchmark the zoo's softmax against eager PyTorch and torch.compile, beside the copy bandwidth.

One GPU run: every shape of tasks/softmax.py in each dtype; GB/s from an explicit byte count
(each element read once and written once); the device-to-device copy bandwidth measured in the same
process as the ceiling. Writes bench/results/softmax-<device>.json and prints a table.

    python bench/softmax.py [--dtypes bfloat16,float32] [--out bench/results]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import tasks  # noqa: E402
from kernel_zoo import ops, store  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, bench, copy_bandwidth  # noqa: E402

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def run(dtypes: list[str], out_dir: Path) -> dict:
    if not torch.cuda.is_available():
        sys.exit("bench/softmax.py needs a CUDA GPU: it measures time, which the interpreter never does")
    torch._dynamo.config.cache_size_limit = 64
    device = torch.device("cuda")
    env = environment()
    flusher = L2Flusher(device)
    copy_gbps = copy_bandwidth(device, flusher) / 1e9
    task = tasks.load(ROOT / "tasks" / "softmax.py")
    rows = []
    for dtype_name in dtypes:
        dtype = DTYPES[dtype_name]
        found = store.find_config("softmax", env["arch"], dtype_name, device=env["gpu"])
        entry = None
        if found is not None:
            manifest, config, entry_dir = found
            entry = {"version": manifest["version"], "path": str(entry_dir),
                     "params": config["params"]}
        for shape in task.shapes:
            n_rows, n_cols = shape["batch_size"], shape["dim"]
            torch.manual_seed(0)
            x = (torch.randn(n_rows, n_cols, device=device) * 4.0).to(dtype)
            ref = torch.softmax(x.double(), dim=-1)
            zoo_out = ops.softmax(x, dim=-1)
            rel_err = ((zoo_out.double() - ref).norm() / ref.norm()).item()
            compiled = torch.compile(lambda t: torch.softmax(t, dim=-1), dynamic=False)
            fns = {
                "zoo": lambda: ops.softmax(x, dim=-1),
                "eager": lambda: torch.softmax(x, dim=-1),
                "compile": lambda: compiled(x),
            }
            times = bench(fns, flusher=flusher, budget_ms=600.0, rounds=5)
            nbytes = 2 * x.numel() * x.element_size()
            row = {"dtype": dtype_name, "shape": [n_rows, n_cols], "bytes": nbytes,
                   "zoo_rel_l2_err": rel_err, "zoo_entry": entry}
            for name, t in times.items():
                gbps = nbytes / (t.median_ms * 1e-3) / 1e9
                row[name] = {"ms": t.median_ms, "p20_ms": t.p20_ms, "p80_ms": t.p80_ms, "n": t.n,
                             "gbps": gbps, "fraction_of_copy": gbps / copy_gbps}
            row["speedup_vs_eager"] = times["eager"].median_ms / times["zoo"].median_ms
            row["speedup_vs_compile"] = times["compile"].median_ms / times["zoo"].median_ms
            rows.append(row)
    result = {
        "benchmark": "softmax",
        "environment": env,
        "copy_gbps": copy_gbps,
        "method": "median of CUDA-event-timed runs, L2 flushed before each run, zoo/eager/compile "
                  "interleaved over 5 rounds; bytes = one read + one write of every element",
        "rows": rows,
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"softmax-{device_label()}.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    _print_table(result)
    print(f"\nwrote {path}")
    return result


def _print_table(result: dict) -> None:
    print(f"{result['environment']['gpu']}: copy bandwidth {result['copy_gbps']:.0f} GB/s")
    print(f"{'dtype':<9} {'shape':>14} {'zoo GB/s':>9} {'eager':>7} {'compile':>8} "
          f"{'zoo/copy':>8} {'vs eager':>8} {'vs compile':>10} {'entry':>6}")
    for r in result["rows"]:
        entry = r["zoo_entry"]["version"] if r["zoo_entry"] else "none"
        print(f"{r['dtype']:<9} {'x'.join(map(str, r['shape'])):>14} {r['zoo']['gbps']:9.0f} "
              f"{r['eager']['gbps']:7.0f} {r['compile']['gbps']:8.0f} "
              f"{r['zoo']['fraction_of_copy']:8.2f} {r['speedup_vs_eager']:8.2f} "
              f"{r['speedup_vs_compile']:10.2f} {entry:>6}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dtypes", default="bfloat16,float32",
                        help="comma-separated dtypes (default bfloat16,float32)")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"), help="results folder")
    args = parser.parse_args()
    dtypes = [d.strip() for d in args.dtypes.split(",") if d.strip()]
    unknown = [d for d in dtypes if d not in DTYPES]
    if unknown:
        parser.error(f"unknown dtypes {unknown}; choose from {list(DTYPES)}")
    run(dtypes, Path(args.out))


if __name__ == "__main__":
    main()
