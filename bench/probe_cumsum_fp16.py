"""How far PyTorch's own 16-bit cumsum is from float64 at tasks/sigmoid_cumsum.py's shapes, by the
verifier's comparison (`verifier.tolerance.compare`, the dtype's default tolerances), beside the
same scan accumulated and kept in float32 until the final rounding.

GPU round 327 found the composed kernel wrong-valued in float16 at 128x4000 (26368 of 512000
elements outside rtol 2e-3) with a relative L2 error of 0.00125, the same as eager's own (the
bound, 4x eager's, read 0.00501). This probe asks whether eager itself passes the element-wise
check there, i.e. whether the task's float16 bar is one PyTorch's own op meets.

    python bench/probe_cumsum_fp16.py [--out bench/results]    # writes probe-cumsum-fp16-<dev>.json
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="bench/results")
    args = parser.parse_args()
    from verifier.environment import device_label, environment
    from verifier.tolerance import compare, tolerance_for

    device = "cuda" if torch.cuda.is_available() else "cpu"
    scale = 1.0 / 4000
    rows = []
    for batch, length in ((128, 4000), (4096, 1023)):
        for dtype in (torch.float16, torch.bfloat16, torch.float32):
            torch.manual_seed(0)
            x = torch.randn(batch, length).to(device, dtype)
            ref = torch.cumsum(torch.sigmoid(x.double()), dim=1) * scale
            eager = torch.cumsum(torch.sigmoid(x), dim=1) * scale
            acc32 = (torch.cumsum(torch.sigmoid(x.float()), dim=1) * scale).to(dtype)
            scan32 = torch.cumsum(torch.sigmoid(x), dim=1, dtype=torch.float32).to(dtype) * scale
            tol = tolerance_for(str(dtype).removeprefix("torch."))
            row = {"batch": batch, "length": length, "dtype": str(dtype).removeprefix("torch."),
                   "tolerance": tol}
            for name, got in (("eager", eager), ("fp32_throughout", acc32),
                              ("scan_in_fp32", scan32)):
                comp = compare(got, ref, None, tol)
                row[name] = {"n_bad": comp.n_bad, "numel": comp.numel,
                             "rel_l2": comp.rel_l2_err, "max_rel": comp.max_rel_err}
            rows.append(row)
            print(f"{batch}x{length} {row['dtype']:>8}: " + "; ".join(
                f"{k} {row[k]['n_bad']} bad, rel L2 {row[k]['rel_l2']:.2e}"
                for k in ("eager", "fp32_throughout", "scan_in_fp32")))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"probe-cumsum-fp16-{device_label()}.json"
    path.write_text(json.dumps({
        "benchmark": "probe_cumsum_fp16", "environment": environment(),
        "date": dt.datetime.now(dt.timezone.utc).isoformat(), "device": device, "rows": rows,
    }, indent=1) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
