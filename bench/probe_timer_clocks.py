"""Why the verifier's timer and the CUDA profiler disagree on the fused GEMM (one GPU run).

At gelu(linear(x, W, b)) 4096 x 4096 -> 14336 (bf16) GPU round 71 profiled the fused kernel at
683 us against eager's two kernels' 659 + 93, while the verifier's timer measured the calls at 761
against 753 (bench/results/compose-h100.json); at 8192 x 4096 -> 8192 the README's GEMM section
reports the same disagreement. For the fused candidate (the gemm template's DEFAULT), eager
PyTorch and the bare cuBLAS GEMM (x @ W^T), at both shapes, this probe measures:
- `timer_ms`: the verifier's timer (L2 flushed before each call, CUDA events around it; medians);
- `back_to_back_ms`: 50 calls back to back, no flush, events around the batch;
- `kernels_us`: the CUDA profiler's kernel times (L2 flushed before each call);
- `sustained`: a flushed loop of about a second per callable, as the timer runs one, with the SM
  clock and the board's power sampled by nvidia-smi every 20 ms (mean, min, max).
The kernel is checked against float64 (the verifier's tolerance) before anything is timed.
Writes bench/results/runs/timer-clocks-<device>.json.

    python bench/probe_timer_clocks.py
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import gemm as gemm_bench  # noqa: E402
from probe_gemm_epilogue import _steady_ms  # noqa: E402
from templates.gemm import DEFAULT  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, bench, kernel_times  # noqa: E402

SHAPES = ({"tokens": 4096, "in_features": 4096, "out_features": 14336},
          {"tokens": 8192, "in_features": 4096, "out_features": 8192})
SAMPLE_MS = 20
SUSTAIN_S = 1.0


def sustained(fn, flusher) -> dict:
    """A flushed loop of about SUSTAIN_S seconds with the clock and power sampled meanwhile."""
    sampler = subprocess.Popen(
        ["nvidia-smi", "--query-gpu=clocks.sm,power.draw", "--format=csv,noheader,nounits",
         "-lms", str(SAMPLE_MS)], stdout=subprocess.PIPE, text=True)
    times = []
    deadline = time.perf_counter() + SUSTAIN_S
    while time.perf_counter() < deadline:
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(20)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(20)]
        for s, e in zip(starts, ends):
            flusher()
            s.record()
            fn()
            e.record()
        torch.cuda.synchronize()
        times += [s.elapsed_time(e) for s, e in zip(starts, ends)]
    sampler.terminate()
    out, _ = sampler.communicate(timeout=10)
    clocks, power = [], []
    for line in out.splitlines():
        parts = [p.strip() for p in line.split(",")]
        try:
            clocks.append(float(parts[0]))
            power.append(float(parts[1]))
        except (ValueError, IndexError):
            continue
    summary = {"calls": len(times), "median_ms": statistics.median(times)}
    for name, values in (("sm_clock_mhz", clocks), ("power_w", power)):
        if values:
            summary[name] = {"mean": statistics.fmean(values), "min": min(values),
                             "max": max(values), "samples": len(values)}
    return summary


def main() -> None:
    if not torch.cuda.is_available():
        sys.exit("bench/probe_timer_clocks.py times kernels on a CUDA GPU")
    device = torch.device("cuda")
    cache = Path(tempfile.mkdtemp(prefix="kzoo-timer-clocks-"))
    flusher = L2Flusher(device)
    rows = []
    for shape in SHAPES:
        case = gemm_bench.Case("probe", "linear_bias_gelu", shape, "bfloat16", "fused")
        setup = gemm_bench.Setup(case, device, smoke=False)
        _, model = setup.candidate(DEFAULT, cache)
        row = {"shape": shape, "config": "DEFAULT", "correctness": setup.check(model)}
        print(json.dumps(shape), "correct:", row["correctness"]["ok"], flush=True)
        if not row["correctness"]["ok"]:
            rows.append(row)
            continue
        a, b = setup.operands()
        fns = {"fused": lambda: model(*setup.inputs), "eager": lambda: setup.model(*setup.inputs),
               "cublas": lambda: torch.matmul(a, b)}
        with torch.no_grad():
            row["timer_ms"] = {k: t.median_ms for k, t in bench(fns, flusher=flusher).items()}
            row["back_to_back_ms"] = _steady_ms(fns, calls=50, rounds=1)
            row["kernels_us"] = kernel_times(fns, flusher)
            row["sustained"] = {k: sustained(f, flusher) for k, f in fns.items()}
        rows.append(row)
        for k in fns:
            s = row["sustained"][k]
            print(f"  {k:<7} timer {row['timer_ms'][k] * 1e3:7.1f} us  back-to-back "
                  f"{row['back_to_back_ms'][k] * 1e3:7.1f} us  sustained {s['median_ms'] * 1e3:7.1f} us"
                  f"  clock {s.get('sm_clock_mhz', {}).get('mean', float('nan')):6.0f} MHz "
                  f"(min {s.get('sm_clock_mhz', {}).get('min', float('nan')):4.0f})  power "
                  f"{s.get('power_w', {}).get('mean', float('nan')):5.0f} W", flush=True)
        print("  kernels:", json.dumps({k: {n[:40]: v for n, v in d.items() if "Fill" not in n}
                                        for k, d in row["kernels_us"].items()}), flush=True)
    out = ROOT / "bench" / "results" / "runs" / f"timer-clocks-{device_label()}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"benchmark": "timer_clocks", "environment": environment(),
                               "sample_ms": SAMPLE_MS, "sustain_s": SUSTAIN_S, "rows": rows},
                              indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
