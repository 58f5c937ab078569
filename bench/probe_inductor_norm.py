"""What does torch.compile generate for RMSNorm at 16384x8192? (one GPU run)

On an H200 the zoo's RMSNorm trails torch.compile by 3-3.5% at 16384x8192 in every dtype (GPU
round 332: 129.4 against 125.0 us in bfloat16), and no config of the norm template's space closes
it (round 334: the best of 100 took 128.6 against 124.4;
bench/results/runs/tune-buckets-h200-round334/). This probe prints the Triton source Inductor
writes for the task's Model (tasks/rms_norm.py, `nn.RMSNorm` with a weight) at that shape, so the
two kernels can be compared offline (`bench/compile_zoo.py` compiles the zoo's for sm_90 without a
GPU), and each kernel's grid, block and registers from a profiler trace, and times Inductor's,
the zoo's and eager side by side as CUDA-graph replays with the verifier's timer, at 16384x8192
and, for contrast, at 8192x4096 (where the zoo leads in 16-bit). Writes
bench/results/runs/probe-inductor-norm-<device>.json with the sources and the times.

    python bench/probe_inductor_norm.py [--dtypes bfloat16,float32] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import tasks  # noqa: E402
from kernel_zoo import ops  # noqa: E402
from probe_inductor_glu import launch_dims  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, bench, graphed  # noqa: E402

SHAPES = ((16384, 8192), (8192, 4096))
EPS = 1e-6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dtypes", default="bfloat16,float32")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "runs")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("probe_inductor_norm.py: needs a CUDA GPU (run it on the device machine)",
              file=sys.stderr)
        return 2
    from torch._inductor.utils import run_and_get_code

    task = tasks.load(ROOT / "tasks" / "rms_norm.py")
    device = torch.device("cuda")
    flusher = L2Flusher(device)
    record = {"benchmark": "probe-inductor-norm", "environment": environment(),
              "method": "CUDA-graph replays timed by verifier.timing.bench (L2 discarded before "
              "each call, medians, interleaved); launch dims from a profiler trace of one call; "
              "compile = torch.compile(Model), default mode, dynamic=False, as "
              "bench/memory_bound.py", "rows": []}
    for dtype_name in [d for d in args.dtypes.split(",") if d]:
        dtype = getattr(torch, dtype_name)
        for tokens, hidden in SHAPES:
            torch.manual_seed(0)
            model = task.module.Model(hidden, EPS).to(device=device, dtype=dtype)
            x = (torch.randn(tokens, hidden, device=device) * 2.0 + 0.5).to(dtype)
            weight = model.norm.weight
            torch._dynamo.reset()
            compiled = torch.compile(model, dynamic=False)
            with torch.no_grad():
                _, sources = run_and_get_code(compiled, x)
            fns = {"compile": lambda: compiled(x),
                   "zoo": lambda: ops.rms_norm(x, [hidden], weight, EPS),
                   "eager": lambda: model(x)}
            with torch.no_grad():
                expected = model(x).float()
                for name in ("compile", "zoo"):
                    err = (fns[name]().float() - expected).norm() / expected.norm()
                    if not err < 1e-2:
                        print(f"{name} wrong at {tokens}x{hidden} {dtype_name}: {err:.2e}")
                        return 1
                dims = {k: launch_dims(v) for k, v in fns.items() if k != "eager"}
                timed = bench({k: graphed(v) for k, v in fns.items()}, flusher=flusher,
                              max_reps=200)
            us = {k: t.median_ms * 1e3 for k, t in timed.items()}
            gbps = {k: 2 * x.numel() * x.element_size() / (v * 1e3) for k, v in us.items()}
            record["rows"].append({"dtype": dtype_name, "shape": [tokens, hidden], "us": us,
                                   "gbps": gbps, "launches": dims,
                                   "inductor_sources": sources})
            print(f"rms_norm {dtype_name} {tokens}x{hidden}: "
                  + ", ".join(f"{k} {v:.1f} us ({gbps[k]:.0f} GB/s)" for k, v in us.items()),
                  flush=True)
            for k, launches in dims.items():
                print(f"    {k}: {launches}", flush=True)
            if (tokens, hidden) == SHAPES[0]:
                for source in sources:
                    start = source.find("@triton.jit")
                    print(source[start:start + 2400] if start >= 0 else source[:2400])
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"probe-inductor-norm-{device_label()}.json"
    path.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
