"""Does a row width that breaks 16-byte alignment cost residual add + RMSNorm its bandwidth, and
does an aligned body with separate edges win it back? (one GPU run)

On an H200, float32 residual add + RMSNorm reads 0.78 of the copy bandwidth at 4096x4097 and 0.98 at
8192x4096 (round 351), and 86 configs of the norm template took 79.3-80 us at 4096x4097 (round
335), torch.compile 82.5 (round 354). A 4097-wide float32 row starts 4 bytes past a 16-byte
boundary for 3 rows in 4, so its loads and stores cannot be 16 bytes wide; the template's
`align_rows` tile starts at the aligned address below the row but masks its lanes per row, which
Triton cannot prove constant over 4 lanes, so those accesses stay 4 bytes wide as well.

This probe times, as CUDA-graph replays with the verifier's timer (L2 discarded before each call,
interleaved), at 4096 rows of 4096, 4097 and 4100 float32 columns: the zoo's op as a user calls it,
torch.compile (default mode), a copy of the same bytes, and `body_edges`, a kernel written here:
each row's 16-byte aligned body read and written with a mask whose bound is a multiple of 4 (so
accesses stay 16 bytes wide), the at most 3 elements before it and 3 after it apart, the weight
read at the row's shift. Every output is checked against float64 first.
Writes bench/results/runs/probe-norm-align-<device>.json.

    python bench/probe_norm_align.py
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
sys.path.insert(0, str(ROOT / "bench"))

from kernel_zoo import ops  # noqa: E402
from probe_inductor_glu import launch_dims  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, bench, copy_bandwidth, graphed  # noqa: E402

ROWS = 4096
WIDTHS = (4096, 4097, 4100)
EPS = 1e-6


@triton.jit
def _add_rms_norm_body_edges(x_ptr, r_ptr, w_ptr, y_ptr, s_ptr, n_cols, eps,
                             BLOCK: tl.constexpr, ALIGN: tl.constexpr):
    row = tl.program_id(0)
    seg = row.to(tl.int64) * n_cols
    head = ((ALIGN - seg % ALIGN) % ALIGN).to(tl.int32)
    head = tl.minimum(head, n_cols)
    body = tl.multiple_of(seg + head, ALIGN)
    limit = ((n_cols - head) // ALIGN) * ALIGN
    cols = tl.arange(0, BLOCK)
    m = cols < limit
    xb = tl.load(x_ptr + body + cols, mask=m, other=0.0).to(tl.float32)
    rb = tl.load(r_ptr + body + cols, mask=m, other=0.0).to(tl.float32)
    sb = xb + rb
    tl.store(s_ptr + body + cols, sb, mask=m)
    lane = tl.arange(0, 2 * ALIGN)
    in_head = lane < ALIGN
    ecol = tl.where(in_head, lane, head + limit + lane - ALIGN)
    em = tl.where(in_head, lane < head, ecol < n_cols)
    xe = tl.load(x_ptr + seg + ecol, mask=em, other=0.0).to(tl.float32)
    re = tl.load(r_ptr + seg + ecol, mask=em, other=0.0).to(tl.float32)
    se = xe + re
    tl.store(s_ptr + seg + ecol, se, mask=em)
    ss = tl.sum(sb * sb, 0) + tl.sum(se * se, 0)
    rstd = 1.0 / tl.sqrt(ss / n_cols + eps)
    wb = tl.load(w_ptr + head + cols, mask=m, other=0.0).to(tl.float32)
    we = tl.load(w_ptr + ecol, mask=em, other=0.0).to(tl.float32)
    tl.store(y_ptr + body + cols, sb * rstd * wb, mask=m)
    tl.store(y_ptr + seg + ecol, se * rstd * we, mask=em)


def body_edges(x, r, w, eps, num_warps):
    n_rows, n_cols = x.shape
    y, s = torch.empty_like(x), torch.empty_like(x)
    _add_rms_norm_body_edges[(n_rows,)](x, r, w, y, s, n_cols, eps,
                                        BLOCK=triton.next_power_of_2(n_cols), ALIGN=4,
                                        num_warps=num_warps)
    return y, s


def reference(x, r, w, eps):
    s = (x.double() + r.double())
    return s * torch.rsqrt(s.pow(2).mean(-1, keepdim=True) + eps) * w.double(), s


def main() -> int:
    if not torch.cuda.is_available():
        print("probe_norm_align.py: needs a CUDA GPU (run it on the device machine)",
              file=sys.stderr)
        return 2
    torch._dynamo.config.cache_size_limit = 64
    device = torch.device("cuda")
    flusher = L2Flusher(device)
    copy_gbps = copy_bandwidth(device, flusher) / 1e9
    record = {"benchmark": "probe-norm-align", "environment": environment(),
              "copy_gbps_1gib": copy_gbps, "dtype": "float32",
              "method": "CUDA-graph replays timed by verifier.timing.bench (L2 discarded before "
              "each call, medians, interleaved); bytes = 4 * rows * width * 4 (x, residual read; "
              "normed, sum written); copy = dst.copy_(src) moving those bytes", "rows": []}

    def model(x, r, w):
        s = x + r
        return torch.nn.functional.rms_norm(s, [s.shape[-1]], w, EPS), s

    for width in WIDTHS:
        torch.manual_seed(0)
        x = torch.randn(ROWS, width, device=device)
        r = torch.randn(ROWS, width, device=device) * 2.0
        w = 1.0 + 0.5 * torch.randn(width, device=device)
        nbytes = 4 * ROWS * width * 4
        src = torch.empty(nbytes // 8, dtype=torch.float32, device=device).uniform_()
        dst = torch.empty_like(src)
        torch._dynamo.reset()
        compiled = torch.compile(model, dynamic=False)
        fns = {"zoo": lambda: ops.add_rms_norm(x, r, w, EPS), "compile": lambda: compiled(x, r, w),
               "copy": lambda: dst.copy_(src)}
        for warps in (4, 8, 16):
            fns[f"body_edges_w{warps}"] = (lambda nw: lambda: body_edges(x, r, w, EPS, nw))(warps)
        ref_y, ref_s = reference(x, r, w, EPS)
        errors = {}
        for name, fn in fns.items():
            if name == "copy":
                continue
            y, s = fn()
            errors[name] = max(((y.double() - ref_y).norm() / ref_y.norm()).item(),
                               ((s.double() - ref_s).norm() / ref_s.norm()).item())
            if not errors[name] < 1e-5:
                print(f"{name} wrong at width {width}: {errors[name]:.2e}", flush=True)
                return 1
        dims = {k: launch_dims(fns[k]) for k in ("zoo", "compile", "body_edges_w8")}
        timed = bench({k: graphed(v) for k, v in fns.items()}, flusher=flusher, budget_ms=400.0,
                      rounds=5)
        us = {k: t.median_ms * 1e3 for k, t in timed.items()}
        row = {"shape": [ROWS, width], "bytes": nbytes, "us": us,
               "fraction_of_copy_1gib": {k: nbytes / (v * 1e3) / copy_gbps for k, v in us.items()},
               "rel_l2_err": errors, "launches": dims}
        record["rows"].append(row)
        print(f"{ROWS}x{width}: " + ", ".join(
            f"{k} {v:.1f} us ({row['fraction_of_copy_1gib'][k]:.2f})" for k, v in us.items()),
            flush=True)
        for k, launches in dims.items():
            print(f"    {k}: {launches}", flush=True)
    out = ROOT / "bench" / "results" / "runs"
    if len(sys.argv) > 1:
        out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"probe-norm-align-{device_label()}.json"
    path.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
