"""Does a constant row stride take float32 mean at 4096x4097 to torch.compile's time? (one GPU run)

The last row more than 1% behind `torch.compile` in the H200 standing is float32 mean over the
last dim of 4096x4097 (19.9 us against 19.5). Round 455 found float32 RMSNorm at 16384x8192
losing 1.6% to a runtime row stride alone (bench/probe_norm_variants.py --served); the reduce
template passes its stride at run time too (its `const_cols` makes only the width a constant,
which did not move this row in round 451). This times, as CUDA-graph replays with the verifier's
timer (L2 discarded before each call, interleaved, medians):
- the zoo (`kernel_zoo.ops.mean`), eager and torch.compile;
- the served one-pass form (one row a program, an 8192-wide tile masked to the row) with the
  width and the row stride each a constant or a runtime argument;
- Inductor's form (a loop over 512-, 1024- or 2048-element blocks, all but the last unmasked),
  the width and stride constants.
- rows read in groups (GPU round 458): G rows a program (G = 4 for 4097-wide float32 rows) read
  as one flat span that starts and ends on a 16-byte boundary, so every load is a full vector
  although no row is aligned; each chunk's elements are summed into their rows by row index.
  And the groups' spans summed flat (not a mean, not checked): the memory side alone.
Each is checked against float64 first. Writes <out>/probe-mean-stride-<device>.json.

GPU round 455 (runs/probe-mean-stride-h200-round455.json): the one pass of 16 warps took 19.42
us with both constants, 19.52 with the stride runtime, 19.74 with both runtime; torch.compile
19.52, the zoo 19.81. A reduce-template knob for the constant stride (commit 6403f81) then lost
its sweep to the served file (19.55 us there) and was reverted.
GPU round 458 (runs/probe-mean-stride-h200-round458.json): the row groups lost, 22.7-26.2 us
against the one pass's 19.65 (torch.compile 19.74, the zoo 20.03), and so did their spans' flat
sums with no per-row work at all (20.29): a one-row program's 4-byte loads are not what holds
this row back, and a group's 64 KB programs (1024 of them) are too coarse a grid.

    python bench/probe_mean_stride.py [--rows 4096] [--cols 4097] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import torch
import triton
import triton.language as tl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from kernel_zoo import ops  # noqa: E402
from probe_ceilings import timed  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher  # noqa: E402


@triton.jit
def _one_pass(x_ptr, out_ptr, n_cols_rt, stride_rt, N: tl.constexpr, BLOCK: tl.constexpr,
              CONST_WIDTH: tl.constexpr, CONST_STRIDE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    if CONST_WIDTH:
        n_cols = N
    else:
        n_cols = n_cols_rt
    if CONST_STRIDE:
        stride = N
    else:
        stride = stride_rt
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0,
                eviction_policy="evict_first")
    tl.store(out_ptr + row, tl.sum(x, axis=0) / n_cols)


@triton.jit
def _looped(x_ptr, out_ptr, N: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for start in tl.static_range(0, N, BLOCK):
        if start + BLOCK <= N:
            acc += tl.load(x_ptr + row * N + start + cols, eviction_policy="evict_first")
        else:
            acc += tl.load(x_ptr + row * N + start + cols, mask=start + cols < N, other=0.0,
                           eviction_policy="evict_first")
    tl.store(out_ptr + row, tl.sum(acc, axis=0) / N)


@triton.jit
def _row_groups(x_ptr, out_ptr, N: tl.constexpr, G: tl.constexpr, CHUNK: tl.constexpr,
                TOTAL_ONLY: tl.constexpr):
    # G rows a program, read as one flat span of G * N elements: with G * N a multiple of the
    # 16-byte vector, every group starts aligned, so the loads are 16 bytes wide although no row
    # is (a 4097-wide float32 row starts 4 bytes past a boundary for 3 rows in 4). A chunk's
    # elements are summed into their rows' accumulators by row index (TOTAL_ONLY: one plain sum
    # of the span, the memory side alone; not the mean).
    SPAN: tl.constexpr = G * N
    base = tl.program_id(0).to(tl.int64) * SPAN
    lanes = tl.arange(0, CHUNK)
    rows = tl.arange(0, G)
    acc = tl.zeros([G], tl.float32)
    for start in tl.static_range(0, SPAN, CHUNK):
        pos = start + lanes
        x = tl.load(x_ptr + base + pos, mask=pos < SPAN, other=0.0, eviction_policy="evict_first")
        if TOTAL_ONLY:
            acc += tl.where(rows == 0, tl.sum(x, axis=0), 0.0)
        else:
            acc += tl.sum(tl.where((pos // N)[None, :] == rows[:, None], x[None, :], 0.0), axis=1)
    if TOTAL_ONLY:
        tl.store(out_ptr + tl.program_id(0) * G + rows, acc)
    else:
        tl.store(out_ptr + tl.program_id(0) * G + rows, acc / N)


def variants(x: torch.Tensor) -> dict:
    n_rows, n = x.shape
    block = triton.next_power_of_2(n)
    found = {}

    def one_pass(const_width, const_stride, warps):
        out = torch.empty(n_rows, device=x.device)
        _one_pass[(n_rows,)](x, out, n, x.stride(0), N=n, BLOCK=block, CONST_WIDTH=const_width,
                             CONST_STRIDE=const_stride, num_warps=warps)
        return out

    def looped(block_l, warps):
        out = torch.empty(n_rows, device=x.device)
        _looped[(n_rows,)](x, out, N=n, BLOCK=block_l, num_warps=warps)
        return out

    for warps in (8, 16):
        for cw in (False, True):
            for cs in (False, True):
                name = (f"one_pass w{warps} width {'const' if cw else 'runtime'}, "
                        f"stride {'const' if cs else 'runtime'}")
                found[name] = lambda cw=cw, cs=cs, warps=warps: one_pass(cw, cs, warps)
    for block_l, warps in ((512, 4), (1024, 4), (1024, 8), (2048, 8), (2048, 16)):
        found[f"looped b{block_l} w{warps}"] = lambda b=block_l, w=warps: looped(b, w)
    vec = 16 // x.element_size()
    groups = vec // math.gcd(n, vec)  # rows whose span starts and ends on a vector boundary
    if groups > 1 and n_rows % groups == 0:

        def row_groups(chunk, warps, total_only=False):
            out = torch.empty(n_rows, device=x.device)
            _row_groups[(n_rows // groups,)](x, out, N=n, G=groups, CHUNK=chunk,
                                             TOTAL_ONLY=total_only, num_warps=warps)
            return out

        for chunk, warps in ((2048, 4), (4096, 8), (4096, 16), (8192, 16)):
            found[f"row groups of {groups} c{chunk} w{warps}"] = \
                lambda c=chunk, w=warps: row_groups(c, w)
        found["flat sums of the groups' spans c4096 w8 (not a mean)"] = \
            lambda: row_groups(4096, 8, True)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=4096)
    parser.add_argument("--cols", type=int, default=4097)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "runs")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("probe_mean_stride.py: needs a CUDA GPU (run it on the device machine)",
              file=sys.stderr)
        return 2
    device = torch.device("cuda")
    flusher = L2Flusher(device)
    torch.manual_seed(0)
    x = torch.randn(args.rows, args.cols, device=device) + 0.5
    compiled = torch.compile(lambda t: torch.mean(t, dim=-1), dynamic=False)
    fns = {"zoo": lambda: ops.mean(x, -1), "eager": lambda: torch.mean(x, dim=-1),
           "compile": lambda: compiled(x), **variants(x)}
    want = x.double().mean(dim=-1)
    errors, wrong = {}, {}
    for name in list(fns):
        if "not a mean" in name:  # the memory side alone: timed, not checked
            errors[name] = None
            continue
        err = ((fns[name]().double() - want).norm() / want.norm()).item()
        errors[name] = err
        if not err < 1e-5:
            wrong[name] = err
            del fns[name]
    us, failed = timed(fns, flusher)
    us = dict(sorted(us.items(), key=lambda kv: kv[1]))
    record = {"benchmark": "probe-mean-stride", "environment": environment(),
              "dtype": "float32", "shape": [args.rows, args.cols], "us": us,
              "rel_l2_err": errors, "wrong": wrong, "graph_failed": failed,
              "method": "CUDA-graph replays timed by verifier.timing.bench (L2 discarded before "
              "each call, medians, interleaved, 5 rounds); every variant checked against float64 "
              "first (relative L2 error < 1e-5)"}
    print(f"mean float32 {args.rows}x{args.cols}" + (f" wrong: {wrong}" if wrong else ""),
          flush=True)
    for name, value in us.items():
        print(f"    {value:8.2f} us  {us['compile'] / value:5.3f}x compile  {name}", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"probe-mean-stride-{device_label()}.json"
    path.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
