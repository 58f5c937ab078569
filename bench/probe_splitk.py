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
from templates.gemm import GemmConfig  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import kernel_times  # noqa: E402

# Pointer loads throughout (split-K has no descriptor kernel); the first is the skinny start
# before GPU round 140 (templates/gemm.py's SKINNY_DEFAULT then).
_BASE = GemmConfig(BLOCK_M=128, BLOCK_N=64, BLOCK_K=64, GROUP_M=1, num_warps=4, num_stages=9,
                   SPLIT_K=1, persistent=0, use_tma=False)
CONFIGS = {
    "128x64x64 s9": _BASE,
    "128x64x64 s9 split 2": dataclasses.replace(_BASE, SPLIT_K=2),
    "128x128x64 s4 w8 split 4": dataclasses.replace(_BASE, BLOCK_N=128, num_warps=8,
                                                    num_stages=4, SPLIT_K=4),
    "128x32x128 s5": dataclasses.replace(_BASE, BLOCK_N=32, BLOCK_K=128, num_stages=5),
}
CALLS = 50


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
    fns = {"cublas": lambda: torch.matmul(a, b)}
    for name, cfg in CONFIGS.items():
        _, model = setup.candidate(dataclasses.replace(cfg, skinny_rows=0), cache)
        fns[name] = (lambda m: lambda: m(*setup.inputs))(model)
    rows = kernel_times(fns, flusher=None, calls=CALLS)  # no flush: B stays in L2
    for name, kernels in rows.items():
        print(f"{name:28s} {sum(kernels.values()):6.1f} us: " + ", ".join(
            f"{k[:40]} {us:.1f}" for k, us in kernels.items()))
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
