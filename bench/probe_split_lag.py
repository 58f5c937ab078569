"""Float32 softmax over rows of 128256 (and 32768) on an H200: does a split-row kernel that writes a
row LAG rows after it read it, re-reading its slice from L2 then, read more of the copy bandwidth
than the served one, which keeps the slice in registers and waits for the row's partners?

The served kernel (softmax `row_split` 16, `row_ahead`) reads 0.78 of copy at 256x128256 on an
H200 (round 374). Three ways to keep more bytes in flight have lost: a third slice in registers
(`ahead_depth` 2, round 373: registers bound it), TMA loads multi-buffered in shared memory by
Triton's pipeliner (round 374) and a row split over a thread-block cluster in CUDA C++ with bulk
copies and distributed shared memory (round 375). Here no slice is held across a step: step k
loads row k's slice from DRAM, publishes its (max, sum) pair, and writes row k - LAG, whose pairs
its partners published LAG steps ago, from a second load of that slice, which L2 should still
hold (the rows in L2 are LAG + 1 for every resident group: 132 SMs x resident programs x slice
bytes x (LAG + 1), 17-35 MB here, under the H200's 50 MB). A thread's registers hold one slice at
a time, so more programs fit an SM, and nothing waits: DRAM bytes are read once and written once,
as a copy's.

A probe, not a template: float32, contiguous rows; the pairs and their slot words are the served
kernels' own (`_publish_pair`, `_gather_pairs`, `_softmax_slice_partials`, `_softmax_slice_out`
and `_resident_per_sm` from a render of the softmax template); outputs checked against float64
first; timed as CUDA-graph replays, interleaved and L2-flushed (verifier.timing), beside
kernel_zoo.ops.softmax and a copy of the same bytes. `--interpret` checks it in Triton's
interpreter instead (publishing and writing as two launches, for the interpreter runs one program
at a time). Writes <out>/probe-split-lag-<device>.json.

    python bench/probe_split_lag.py [--out DIR] [--shape RxC --variant S,L,W,K,C,LATE,R ...]
    TRITON_INTERPRET=1 python bench/probe_split_lag.py --interpret

Rounds 376-377 (H200, runs/probe-split-lag-h200-round376.json, -round377.json): with the second
read late and maxnreg 80 (three programs an SM), 78.1 and 78.0 us against the served 82.7 at
256x128256; fewer registers spilled and lost. The templates took it up as `row_lag` and
`split_maxnreg` (softmax 1.26.0, log_softmax 1.29.0, round 378).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import torch
import triton
import triton.language as tl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from row_probes import served_split_module  # noqa: E402

_SPLIT = served_split_module("probe-split-lag")
_publish_pair = _SPLIT._publish_pair
_gather_pairs = _SPLIT._gather_pairs
_partials = _SPLIT._softmax_slice_partials
_slice_out = _SPLIT._softmax_slice_out


@triton.jit
def _split_lag_kernel(x_ptr, y_ptr, slot_ptr, n_rows, n_cols, slice_len, SPLIT: tl.constexpr,
                      BLOCK: tl.constexpr, LAG: tl.constexpr, SYNC: tl.constexpr,
                      PHASE: tl.constexpr, KEEP: tl.constexpr, LATE: tl.constexpr):
    # SPLIT programs share a row, program `part` its slice_len columns; groups walk the rows with
    # their stride. Step k reads row k of the group and writes row k - LAG. SYNC False (the
    # interpreter): PHASE 0 publishes every row's pairs, PHASE 1 writes every row. LATE: the
    # second read is issued after the first read's pair is published, so the two slices are not
    # live at once (fewer registers; its L2 latency is exposed to the program).
    part = tl.program_id(0) % SPLIT
    first = tl.program_id(0) // SPLIT
    stride = tl.num_programs(0) // SPLIT
    lane = tl.arange(0, BLOCK)
    cols = part * slice_len + lane
    mask = (lane < slice_len) & (cols < n_cols)
    parts = tl.arange(0, SPLIT)
    n_mine = tl.cdiv(n_rows - first, stride)
    for k in range(0, n_mine + LAG):
        # (a row index is compared lane by lane: the interpreter rejects a scalar mask in `&`)
        done = tl.cast(first + (k - LAG) * stride, tl.int64)
        row = tl.cast(first + k * stride, tl.int64)
        write = (SYNC or PHASE == 1) and k >= LAG
        read = (SYNC or PHASE == 0) and k < n_mine
        if not LATE:
            again = tl.load(x_ptr + done * n_cols + cols,
                            mask=mask & (lane * 0 + k >= LAG),
                            other=float("-inf"), eviction_policy="evict_first")
        if KEEP:
            x = tl.load(x_ptr + row * n_cols + cols,
                        mask=mask & (lane * 0 + k < n_mine),
                        other=float("-inf"), eviction_policy="evict_last")
        else:
            x = tl.load(x_ptr + row * n_cols + cols,
                        mask=mask & (lane * 0 + k < n_mine),
                        other=float("-inf"))
        if not LATE:
            if write:
                pm, ps = _gather_pairs(slot_ptr + done * SPLIT, parts)
                tl.store(y_ptr + done * n_cols + cols, _slice_out(again, pm, ps), mask=mask,
                         eviction_policy="evict_first")
        if read:
            m, s = _partials(x)
            _publish_pair(slot_ptr + row * SPLIT + part, m, s)
        if LATE:
            if write:
                again = tl.load(x_ptr + done * n_cols + cols, mask=mask, other=float("-inf"),
                                eviction_policy="evict_first")
                pm, ps = _gather_pairs(slot_ptr + done * SPLIT, parts)
                tl.store(y_ptr + done * n_cols + cols, _slice_out(again, pm, ps), mask=mask,
                         eviction_policy="evict_first")


def split_lag_softmax(x: torch.Tensor, split: int, lag: int, warps: int, keep: bool, cap: int,
                      late: bool, maxnreg: int, cache: dict,
                      interpret: bool = False) -> torch.Tensor:
    n_rows, n_cols = x.shape
    slice_len = triton.cdiv(n_cols, split)
    block = triton.next_power_of_2(slice_len)
    y = torch.empty_like(x)
    slots = torch.zeros(n_rows * split, dtype=torch.int64, device=x.device)
    args = (x, y, slots, n_rows, n_cols, slice_len)
    meta = dict(SPLIT=split, BLOCK=block, LAG=lag, KEEP=keep, LATE=late, num_warps=warps)
    if maxnreg:
        meta["maxnreg"] = maxnreg
    if interpret:
        groups = min(n_rows, 3)
        for phase in (0, 1):
            _split_lag_kernel[(groups * split,)](*args, SYNC=False, PHASE=phase, **meta)
        return y
    key = (split, block, lag, warps, keep, late, maxnreg)
    if key not in cache:
        kernel = _split_lag_kernel.warmup(*args, SYNC=True, PHASE=0, **meta,
                                          launch_cooperative_grid=True, grid=(split,))
        per_sm = _SPLIT._resident_per_sm(kernel, x.device.index or 0)
        cache[key] = (per_sm, kernel.n_regs)
    sms = torch.cuda.get_device_properties(x.device).multi_processor_count
    groups = min(n_rows, min(cache[key][0], cap) * sms // split)
    _split_lag_kernel[(groups * split,)](*args, SYNC=True, PHASE=0, **meta,
                                         launch_cooperative_grid=True)
    return y


# (rows, cols) -> (programs a row, lag, warps, evict_last on the first read, resident cap an SM,
# second read late, maxnreg or 0)
SHAPES = {
    (256, 128256): ((16, 1, 8, True, 8, False, 0), (16, 1, 8, False, 8, False, 0),
                    (16, 2, 8, True, 8, False, 0), (16, 1, 8, True, 8, True, 0),
                    (16, 1, 8, True, 8, True, 80), (16, 2, 8, True, 8, True, 80),
                    (32, 1, 4, True, 8, False, 0), (32, 1, 4, True, 8, True, 0),
                    (32, 1, 4, True, 4, True, 0), (8, 1, 16, True, 8, True, 0)),
    (1024, 32768): ((4, 1, 8, True, 8, False, 0), (4, 1, 8, True, 8, True, 80),
                    (8, 1, 4, True, 8, True, 0), (2, 1, 16, True, 8, True, 0)),
}


def variant_name(split, lag, warps, keep, cap, late, maxnreg) -> str:
    flags = ("_keep" if keep else "") + ("_late" if late else "")
    return f"lag{lag}_split{split}_w{warps}{flags}_cap{cap}" + (f"_r{maxnreg}" if maxnreg else "")


def interpret_check() -> None:
    torch.manual_seed(0)
    for rows, cols in ((7, 1000), (5, 333)):
        x = torch.randn(rows, cols) * 4.0
        x[1, 5:200] = float("-inf")
        ref = torch.softmax(x.double(), dim=1)
        for split, lag, late in ((4, 1, False), (2, 2, False), (8, 1, True), (4, 2, True)):
            got = split_lag_softmax(x, split, lag, 4, True, 8, late, 0, {}, interpret=True)
            err = ((got.double() - ref).abs().max()).item()
            print(f"interpreter {rows}x{cols} split {split} lag {lag} late {late}: "
                  f"max abs err {err:.2e}")
            assert err < 1e-6, err


def probe_shape(n_rows: int, n_cols: int, variants, flusher) -> dict:
    from row_probes import time_beside_zoo_and_copy

    x = torch.randn(n_rows, n_cols, device="cuda") * 4.0
    x[1, 5:40000 % n_cols] = float("-inf")  # a row with a run of -inf
    ref = torch.softmax(x.double(), dim=1)
    cache: dict = {}
    fns, errors, used = {}, {}, {}
    for variant in variants:
        name = variant_name(*variant)
        try:
            got = split_lag_softmax(x, *variant, cache)
            torch.cuda.synchronize()
            err = ((got.double() - ref).norm() / ref.norm()).item()
        except Exception as exc:  # a variant that does not build or launch is reported, not timed
            errors[name] = f"{type(exc).__name__}: {str(exc)[:400]}"
            print(f"{name}: {errors[name]}", flush=True)
            continue
        errors[name] = err
        split, lag, warps, keep, cap, late, maxnreg = variant
        per_sm, regs = cache[(split, triton.next_power_of_2(triton.cdiv(n_cols, split)), lag,
                              warps, keep, late, maxnreg)]
        used[name] = dict(resident_per_sm=per_sm, registers=regs, per_sm_used=min(per_sm, cap))
        print(f"{n_rows}x{n_cols} {name}: rel l2 err {err:.2e}, {regs} registers, "
              f"{min(per_sm, cap)} programs an SM", flush=True)
        if err < 1e-5:
            fns[name] = (lambda v=variant: split_lag_softmax(x, *v, cache))
    us, failed = time_beside_zoo_and_copy(x, fns, errors, flusher, ref)
    return {"shape": [n_rows, n_cols], "us_graphs": us, "rel_l2_err": errors,
            "resources": used, "graph_capture_failed": failed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "runs"))
    parser.add_argument("--shape", help="ROWSxCOLS: time only this shape (with --variant)")
    parser.add_argument("--variant", action="append", default=[],
                        help="SPLIT,LAG,WARPS,KEEP,CAP,LATE,MAXNREG (KEEP, LATE 0 or 1; "
                             "repeatable): these variants instead of the shape's listed ones")
    parser.add_argument("--interpret", action="store_true",
                        help="check the kernel in Triton's interpreter (set TRITON_INTERPRET=1)")
    args = parser.parse_args()
    if args.interpret:
        if os.environ.get("TRITON_INTERPRET") != "1":
            parser.error("--interpret needs TRITON_INTERPRET=1 in the environment")
        interpret_check()
        return
    from row_probes import write_probe
    from verifier.timing import L2Flusher

    torch.manual_seed(0)
    flusher = L2Flusher(torch.device("cuda"))
    todo = dict(SHAPES)
    if args.shape:
        rows, cols = (int(v) for v in args.shape.lower().split("x"))
        variants = [tuple(int(v) for v in text.split(",")) for text in args.variant]
        todo = {(rows, cols): [(sp, lag, w, bool(k), cap, bool(late), r)
                               for sp, lag, w, k, cap, late, r in variants] or SHAPES[(rows, cols)]}
    shapes = [probe_shape(rows, cols, variants, flusher)
              for (rows, cols), variants in todo.items()]
    write_probe(args.out, "probe-split-lag",
                "float32 softmax: split-row programs that write a row LAG rows after reading it, "
                "from a second read that L2 should still hold, against kernel_zoo.ops.softmax "
                "and a copy of the same bytes; CUDA-graph replays, L2 flushed, medians in us",
                shapes,
                variants="lag<LAG>_split<programs a row>_w<warps>[_keep: evict_last on the first "
                         "read][_late: the second read after the first's pair is published]"
                         "_cap<most programs an SM>[_r<maxnreg>]")

if __name__ == "__main__":
    main()
