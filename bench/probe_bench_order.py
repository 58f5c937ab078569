"""Does what verifier.timing.bench ran just before a call change its time? The same callables
under several names, timed in blocks (each variant's calls together, round by round in one
order, as bench did before GPU round 349) and interleaved (every variant once a sweep, each sweep
in a new order: bench's default since): identical GEMMs (cuBLAS through torch.matmul at
8192x8192x4096 bfloat16, power-limited on an H100/H200) with eager's gelu(linear) among them,
and identical memory-bound softmaxes (16384x8192 bfloat16); then one captured graph under two
names and separate captures of one callable. CUDA-graph replays, L2 flushed. Writes
bench/results/probe-bench-order-<device>.json. (GPU round 348 ran it with a third order, each
round's rotated, which a later commit dropped: it ran as the blocks did.)

    python bench/probe_bench_order.py [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, bench, graphed, graphed_where_possible  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("bench/probe_bench_order.py needs a CUDA GPU: it measures time")
    torch.manual_seed(0)
    dev, dt = "cuda", torch.bfloat16
    x = torch.randn(8192, 4096, device=dev, dtype=dt)
    w = torch.randn(8192, 4096, device=dev, dtype=dt) / 64
    bias = torch.randn(8192, device=dev, dtype=dt)
    wt = w.t().contiguous()
    s = torch.randn(16384, 8192, device=dev, dtype=dt)
    groups = {
        "gemm": {f"matmul_{i}": (lambda: torch.matmul(x, wt)) for i in range(1, 5)},
        "softmax": {f"softmax_{i}": (lambda: torch.softmax(s, dim=-1)) for i in range(1, 4)},
    }
    fns = {**groups["gemm"], "eager_gelu_linear": lambda: F.gelu(F.linear(x, w, bias)),
           **groups["softmax"]}
    flusher = L2Flusher(torch.device(dev))
    graphs, failed = graphed_where_possible(fns)
    result = {"what": __doc__.split("\n\n")[0], "environment": environment(),
              "order": list(fns), "graph_capture_failed": failed}
    for mode, interleave in (("blocks", False), ("interleaved", True), ("blocks_again", False)):
        timed = bench(graphs, flusher=flusher, budget_ms=1200.0, rounds=7, interleave=interleave)
        us = {name: round(t.median_ms * 1e3, 2) for name, t in timed.items()}
        spread = {}
        for group, names in groups.items():
            times = [us[n] for n in names]
            spread[group] = round(max(times) / min(times) - 1, 4)
        result[mode] = {"us_graphs": us, "spread_of_identical": spread}
        print(f"{mode}: " + "  ".join(f"{k} {v:.1f}" for k, v in us.items()))
        print(f"  identical ones' spread (max/min - 1): {spread}")
    # the same capture under two names, and separate captures of one callable (each with its
    # own output buffer from its graph's pool): is it the capture or the name that differs?
    captures = {}
    for group, fn in (("matmul", lambda: torch.matmul(x, wt)),
                      ("softmax", lambda: torch.softmax(s, dim=-1))):
        first = graphed(fn)
        captures[f"{group}_cap1"] = first
        captures[f"{group}_cap1_again"] = first
        for i in range(2, 5):
            captures[f"{group}_cap{i}"] = graphed(fn)
    for mode, interleave in (("blocks", False), ("interleaved", True)):
        timed = bench(captures, flusher=flusher, budget_ms=1200.0, rounds=7,
                      interleave=interleave)
        us = {name: round(t.median_ms * 1e3, 2) for name, t in timed.items()}
        result[f"captures_{mode}"] = {"us_graphs": us}
        print(f"captures, {mode}: " + "  ".join(f"{k} {v:.1f}" for k, v in us.items()))
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"probe-bench-order-{device_label()}.json"
    path.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
