"""Where split-K's time goes at the skinny GEMM (128x4096x4096, bfloat16): each kernel's own time.

Round 133's graph replays (bench/gemm.py --configs --graphs) put split-K 2 and 4 at 22.5-27.6 us
against the unsplit 128x64 tiles' 19.4 and cuBLAS's 17.8, though a split grid fills every SM. This
profiles each config's calls (torch.profiler, CUDA activity; no L2 flush, back to back) and
records every kernel's mean device time per call: the GEMM kernel apart from the counter memset.

    python bench/probe_splitk.py --out bench/results/runs
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from gemm import CASES, Setup  # noqa: E402
from templates.gemm import SKINNY_DEFAULT  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402

CONFIGS = {
    "128x64x64 s9": SKINNY_DEFAULT,
    "128x64x64 s9 split 2": dataclasses.replace(SKINNY_DEFAULT, SPLIT_K=2),
    "128x128x64 s4 w8 split 4": dataclasses.replace(SKINNY_DEFAULT, BLOCK_N=128, num_warps=8,
                                                    num_stages=4, SPLIT_K=4),
    "128x32x128 s5": dataclasses.replace(SKINNY_DEFAULT, BLOCK_N=32, BLOCK_K=128, num_stages=5),
}
CALLS = 50


def profile(fn) -> dict:
    from torch.profiler import ProfilerActivity, profile as prof

    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    with prof(activities=[ProfilerActivity.CUDA]) as p:
        for _ in range(CALLS):
            fn()
        torch.cuda.synchronize()
    kernels = {}
    for event in p.events():
        if event.device_type == torch.autograd.DeviceType.CUDA:
            kernels.setdefault(event.name, []).append(event.device_time)
    return {name[:80]: {"calls": len(t), "us_per_call": sum(t) / CALLS}
            for name, t in kernels.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "runs"))
    args = parser.parse_args()
    if not torch.cuda.is_available():
        parser.error("needs a CUDA GPU")
    device = torch.device("cuda")
    case = next(c for c in CASES if c.name == "skinny_128x4096x4096")
    setup = Setup(case, device, smoke=False)
    cache = ROOT / ".kzoo" / "probe-splitk-cache"
    a, b = setup.operands()
    rows = {"cublas": profile(lambda: torch.matmul(a, b))}
    with torch.no_grad():
        for name, cfg in CONFIGS.items():
            cfg = dataclasses.replace(cfg, skinny_rows=0)
            _, model = setup.candidate(cfg, cache)
            rows[name] = profile(lambda: model(*setup.inputs))
    for name, kernels in rows.items():
        total = sum(k["us_per_call"] for k in kernels.values())
        print(f"{name:28s} {total:6.1f} us: " + ", ".join(
            f"{k[:40]} {v['us_per_call']:.1f}" for k, v in kernels.items()))
    result = {"benchmark": "probe_splitk", "environment": environment(),
              "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
              "case": case.name, "shape": case.shape, "dtype": case.dtype, "calls": CALLS,
              "method": "torch.profiler CUDA kernel times, back-to-back calls, no L2 flush",
              "configs": {k: dataclasses.asdict(v) for k, v in CONFIGS.items()}, "kernels": rows}
    path = Path(args.out) / f"probe-splitk-{device_label()}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
