"""Does the timer's L2 flush empty the L2, and what does it add to the timed call? (one GPU run)

Eager softmax (read and write) and row sum (read) over bfloat16 rows of 1000 at 8-131 MB, a
Triton row sum whose loads carry evict_last (a hint to keep the lines cached) beside the same
kernel without it at 8-33 MB, and a column sum of 268 MB, are timed with `verifier.timing.bench` as CUDA-graph replays, once per way
of preparing the L2 before each run:
- `sleep`: a 75 us spin kernel, the L2 left as the previous call left it (warm);
- `discard`: read a buffer 4x the L2 size with evict_last, then discard its lines (the
  verifier's flush since GPU round 79);
- `write`: zero a buffer 4x the L2 size (the verifier's flush before, as triton.testing.do_bench's);
- `write_read`: the same, then sum a second such buffer (clean lines replace the dirty ones);
- `read`: only the sum.
A flush that empties the L2 never lets a call beat the device's datasheet bandwidth; the JSON flags
each time that implies more (`over_peak`). Writes bench/results/runs/l2-flush-<device>.json
(GPU round 80's: runs/l2-flush-h100-round80.json).

    python bench/probe_l2_flush.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch
import triton
import triton.language as tl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, bench, graphed, peak_bandwidth  # noqa: E402

ROWS = (4099, 8192, 16384, 32768, 65536)
MODES = ("discard", "write", "write_read", "read")


@triton.jit
def _triton_row_sum(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr, HINT: tl.constexpr):
    """Row sums, one program per row; HINT "evict_last" asks the L2 to keep the lines, as a
    candidate might to keep its inputs cached across timed calls ("" for the same kernel without)."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0,
                eviction_policy=HINT)
    tl.store(out_ptr + row, tl.sum(x.to(tl.float32), 0))


def _row_sum(x: torch.Tensor, hint: str):
    out = torch.empty(x.shape[0], device=x.device, dtype=torch.float32)
    return lambda: _triton_row_sum[(x.shape[0],)](x, out, x.shape[1], BLOCK=1024, HINT=hint)


def main() -> int:
    device = torch.device("cuda")
    peak = peak_bandwidth(torch.cuda.get_device_name(), 0.0)
    flushers = {"sleep": lambda: torch.cuda._sleep(150_000)}
    flushers.update({mode: L2Flusher(device, mode) for mode in MODES})
    cases = []
    for rows in ROWS:
        x = torch.randn(rows, 1000, device=device).to(torch.bfloat16)
        n = x.numel() * 2
        cases.append((f"softmax {rows}x1000", 2 * n, x, lambda x=x: torch.softmax(x, -1)))
        cases.append((f"row sum {rows}x1000", n + rows * 2, x, lambda x=x: x.sum(-1)))
        if rows <= 16384:
            cases.append((f"triton sum {rows}x1000", n + rows * 4, x, _row_sum(x, "")))
            cases.append((f"evict_last sum {rows}x1000", n + rows * 4, x,
                          _row_sum(x, "evict_last")))
    big = torch.randn(32, 4096, 1024, device=device).to(torch.bfloat16)
    cases.append(("column sum 32x4096x1024", big.numel() * 2 + 32 * 1024 * 2, big,
                  lambda: big.sum(1)))
    flush_us = {mode: round(bench({mode: f}, flusher=lambda: None)[mode].median_ms * 1e3, 1)
                for mode, f in flushers.items()}
    print(f"each flush's own time (us): {flush_us}", flush=True)
    result = {"benchmark": "probe-l2-flush", "environment": environment(),
              "peak_gbps": peak / 1e9, "flush_us": flush_us, "method": "CUDA-graph replays timed by "
              "verifier.timing.bench (CUDA events, medians, interleaved) after each way of "
              "preparing the L2", "rows": []}
    for name, nbytes, _, fn in cases:
        replay = graphed(fn)
        row = {"case": name, "bytes": nbytes, "us": {}, "gbps": {}, "over_peak": []}
        for mode, flusher in flushers.items():
            t = bench({name: replay}, flusher=flusher, budget_ms=100.0)[name].median_ms
            row["us"][mode] = round(t * 1e3, 2)
            row["gbps"][mode] = round(nbytes / (t * 1e-3) / 1e9, 1)
            if mode != "sleep" and nbytes / (t * 1e-3) > peak:
                row["over_peak"].append(mode)
        result["rows"].append(row)
        print(f"{name:26s} {nbytes / 1e6:6.0f} MB  " + "  ".join(
            f"{m} {row['us'][m]:7.1f} us {row['gbps'][m]:6.0f} GB/s" for m in flushers)
            + (f"  OVER PEAK: {row['over_peak']}" if row["over_peak"] else ""), flush=True)
    out = ROOT / "bench" / "results" / "runs" / f"l2-flush-{device_label()}.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
