"""What does torch.compile generate for GeGLU and SwiGLU? (one GPU run)

GeGLU's zoo kernel has trailed torch.compile by 1-2% at its two large bfloat16 shapes in every
table since round 129 (263.2 against 259.6 us at 8192x16384), whatever its block, warps or grid
(runs/tune-buckets-h100-round129-glu.json). This probe prints the Triton source Inductor writes for
each op at 8192x16384 (torch._inductor.utils.run_and_get_code), so the two kernels can be compared
instruction by instruction offline (bench/compile_pointwise.py compiles for sm_90 without a GPU),
and, at 8192x16384 and at 16 rows (where GeGLU read 0.93x in round 148), each kernel's grid,
block and registers from a profiler trace, and times them side by side as CUDA-graph replays
with the verifier's timer. (Round 146 ran it at 8192x16384 only.) Writes
bench/results/runs/probe-inductor-glu-<device>.json with the sources and the times.

    python bench/probe_inductor_glu.py [--out DIR]
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

from kernel_zoo import ops  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, bench, graphed  # noqa: E402

OPS = {"geglu": (lambda a, b: F.gelu(a) * b, ops.geglu),
       "swiglu": (lambda a, b: F.silu(a) * b, ops.swiglu)}
SHAPES = ((8192, 16384), (16, 16384))


def launch_dims(fn) -> list[dict]:
    """The kernels one call of `fn` launches, with their grids and blocks (a profiler trace)."""
    import tempfile

    from torch.profiler import ProfilerActivity, profile

    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        prof.export_chrome_trace(f.name)
        trace = json.load(open(f.name))
    return [{"name": e["name"][:60], "grid": e["args"].get("grid"),
             "block": e["args"].get("block"),
             "registers": e["args"].get("registers per thread"), "us": e.get("dur")}
            for e in trace["traceEvents"] if e.get("cat") == "kernel"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "runs")
    args = parser.parse_args()
    from torch._inductor.utils import run_and_get_code

    device = torch.device("cuda")
    flusher = L2Flusher(device)
    record = {"benchmark": "probe-inductor-glu", "environment": environment(),
              "dtype": "bfloat16", "method": "CUDA-graph replays timed by verifier.timing.bench "
              "(L2 discarded before each call, medians, interleaved); launch dims from a "
              "profiler trace of one call", "rows": []}
    for shape in SHAPES:
        for name, (reference, zoo) in OPS.items():
            gen = torch.Generator(device=device).manual_seed(0)
            a = torch.randn(shape, device=device, dtype=torch.bfloat16, generator=gen) * 3
            b = torch.randn(shape, device=device, dtype=torch.bfloat16, generator=gen)
            torch._dynamo.reset()
            compiled = torch.compile(reference, dynamic=False)
            _, sources = run_and_get_code(compiled, a, b)
            fns = {"compile": lambda: compiled(a, b), "zoo": lambda: zoo(a, b),
                   "eager": lambda: reference(a, b)}
            dims = {k: launch_dims(v) for k, v in fns.items() if k != "eager"}
            timed = bench({k: graphed(v) for k, v in fns.items()}, flusher=flusher,
                          max_reps=100)
            us = {k: t.median_ms * 1e3 for k, t in timed.items()}
            record["rows"].append({"op": name, "shape": shape, "us": us, "launches": dims,
                                   "inductor_sources": sources})
            print(f"{name} {shape}: " + ", ".join(f"{k} {v:.1f} us" for k, v in us.items()),
                  flush=True)
            for k, launches in dims.items():
                print(f"    {k}: {launches}", flush=True)
            if shape == SHAPES[0]:
                for source in sources:
                    start = source.find("@triton.jit")
                    print(source[start:start + 1400] if start >= 0 else source[:1400])
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"probe-inductor-glu-{device_label()}.json"
    path.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
