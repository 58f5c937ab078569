"""Skinny GEMMs (M <= 128, bfloat16) by split-K through tensor descriptors: can they pass cuBLAS?

SKINNY_DEFAULT gives each of 128 programs all 128 rows of A and a 32-column slab of B, so every
program reads the whole of A from L2: at 128 x 4096 x 4096 that is 128 MB of L2 reads beside B's
32 MB from memory, and the tile loop runs at cuBLAS's pace, not past it (0.98-0.99x). Wider
slabs read A fewer times but leave too few programs for 132 SMs unless K is split too. The
template's split-K has no descriptor-load kernel (tma_plan). This probe times a descriptor-load
tile loop with K split across a grid axis: each split stores its fp32 partial, counts itself in
its tile's counter, and the last to arrive sums the partials in split order (the same sum every
run) and stores the output, then zeroes the counter for the next call. `swap` computes the
transposed product (B^T tile times A^T tile), so that the wide N side fills the MMA's M side
where M is 16. Timed against cuBLAS (`torch.matmul`) as CUDA-graph replays, interleaved and
L2-flushed (verifier.timing), and by the verifier's timer without graphs (host_ahead); every
output is first checked against a float32 reference. Writes
bench/results/probe-skinny-splitk-<device>.json and prints a table.

    python bench/probe_skinny_splitk.py [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, bench, graphed_where_possible  # noqa: E402

# (BLOCK_N, BLOCK_K, stages, warps, split, swap, num_ctas, fixup) per shape (M, N, K). fixup 0:
# the splits store their partials and nothing sums them, a wrong output timed only to see what the
# split's fixup costs (never compared with cuBLAS as a result).
SHAPES = {
    (128, 4096, 4096): [
        (32, 128, 5, 4, 1, 0, 1, 1),  # SKINNY_DEFAULT's tile loop
        (64, 64, 8, 4, 1, 0, 2, 1),
        (64, 64, 10, 4, 1, 0, 2, 1),
        (64, 64, 12, 4, 1, 0, 2, 1),
        (64, 128, 5, 4, 1, 0, 2, 1),
        (64, 128, 6, 4, 1, 0, 2, 1),
        (64, 64, 8, 8, 1, 0, 2, 1),
        (64, 32, 16, 4, 1, 0, 2, 1),
        (64, 64, 13, 4, 1, 0, 2, 1),
    ],
    (16, 8192, 8192): [
        (64, 128, 4, 4, 1, 0, 1, 1),  # DECODE-like tiles through descriptors
        (64, 256, 4, 4, 1, 1, 1, 1),
        (64, 128, 6, 4, 1, 1, 1, 1),
        (64, 128, 5, 4, 1, 0, 1, 1),
        (64, 256, 3, 4, 1, 0, 1, 1),
        (32, 256, 4, 4, 1, 0, 1, 1),
        (64, 128, 4, 4, 1, 0, 2, 1),
    ],
}
# Round 264 (the same kernel; graphs / host_ahead against cuBLAS): 128x4096x4096: 128x32 tiles
# 1.009x/1.000x; every split slower (64 wide, 2 splits 0.85x; 128 wide, 4 splits 0.70x; 256 wide,
# 8 splits 0.47x). 16x8192x8192: 64-wide tiles 128 deep, 4 stages 1.012x/1.013x, swapped 256 deep
# 1.012x/1.014x; 2 splits 0.94-0.98x. Round 265: 128x32 tiles 1.000x/0.996x; in CTA pairs
# (num_ctas=2) 64x64 tiles eight deep 1.011x/1.012x, six deep 0.958x, 128x32 pairs 0.67-0.75x;
# split-K's fixup costs 3.7-7.8 us (64 wide, 2 splits: 21.5 us, 17.8 without the fixup; 128
# wide, 4 splits: 26.7, 18.9); 16x8192x8192: 64x256 steps three deep 1.023x/1.022x, 64x128 four
# deep 1.016x/1.016x. Round 266 (these configs): CTA pairs of 128x64 tiles in K steps of 128, six
# deep, 1.057x/1.057x, now SKINNY_DEFAULT; 16x8192x8192: 64x256 steps three deep 1.015x/1.016x.


@triton.jit
def _splitk_kernel(a_desc, b_desc, c_ptr, w_ptr, lock_ptr, M, N, K, k_per_split, stride_cm,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                   STAGES: tl.constexpr, SPLIT: tl.constexpr, SWAP: tl.constexpr,
                   FIXUP: tl.constexpr):
    pid_n = tl.program_id(0)
    pid_k = tl.program_id(1)
    off_n = pid_n * BLOCK_N
    k0 = pid_k * k_per_split
    k1 = tl.minimum(K, k0 + k_per_split)
    if SWAP:
        acc = tl.zeros((BLOCK_N, BLOCK_M), dtype=tl.float32)
    else:
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(k0, k1, BLOCK_K, num_stages=STAGES):
        a = a_desc.load([0, k])
        b = b_desc.load([k, off_n])
        if SWAP:
            acc = tl.dot(b.T, a.T, acc)
        else:
            acc = tl.dot(a, b, acc)
    if SWAP:
        acc = acc.T
    rows = tl.arange(0, BLOCK_M)
    cols = off_n + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    if SPLIT > 1:
        w_tile = w_ptr + rows[:, None] * N + cols[None, :]
        tl.store(w_tile + pid_k * M * N, acc, mask=mask)
        if not FIXUP:
            return
        tl.debug_barrier()
        arrived = tl.atomic_add(lock_ptr + pid_n, 1, sem="acq_rel")
        if arrived == SPLIT - 1:
            acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
            for s in tl.static_range(SPLIT):
                acc += tl.load(w_tile + s * M * N, mask=mask, other=0.0, cache_modifier=".cg")
            tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :],
                     acc.to(c_ptr.dtype.element_ty), mask=mask)
            tl.atomic_xchg(lock_ptr + pid_n, 0)
    else:
        tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :],
                 acc.to(c_ptr.dtype.element_ty), mask=mask)


def _call(a, b, c, block_n, block_k, stages, warps, split, swap, ctas, fixup):
    m, k = a.shape
    n = b.shape[1]
    block_m = max(16, triton.next_power_of_2(m))
    a_desc = TensorDescriptor(a, list(a.shape), list(a.stride()), [block_m, block_k])
    b_desc = TensorDescriptor(b, list(b.shape), list(b.stride()), [block_k, block_n])
    k_tiles = triton.cdiv(k, block_k)
    k_per_split = triton.cdiv(k_tiles, split) * block_k
    work = torch.empty(split, m, n, device=a.device, dtype=torch.float32)
    locks = torch.zeros(triton.cdiv(n, block_n), device=a.device, dtype=torch.int32)
    grid = (triton.cdiv(n, block_n), split)

    def run():
        _splitk_kernel[grid](a_desc, b_desc, c, work, locks, m, n, k, k_per_split, c.stride(0),
                             BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, STAGES=stages,
                             SPLIT=split, SWAP=bool(swap), FIXUP=bool(fixup), num_warps=warps,
                             num_stages=stages, num_ctas=ctas)
        return c
    return run


def _shape_rows(shape, device, configs):
    m, n, k = shape
    torch.manual_seed(0)
    a = torch.randn(m, k, device=device, dtype=torch.bfloat16)
    b = torch.randn(k, n, device=device, dtype=torch.bfloat16)
    want = a.float() @ b.float()
    fns, errors, problems = {"cublas": lambda: torch.matmul(a, b)}, {}, {}
    for cfg in configs:
        name = "n{}_k{}_s{}_w{}_split{}_swap{}_c{}".format(*cfg) + ("" if cfg[7] else "_nofixup")
        c = torch.empty(m, n, device=device, dtype=torch.bfloat16)
        fn = _call(a, b, c, *cfg)
        try:  # a probe: a config the compiler refuses is recorded, not fatal
            for _ in range(3):  # the counters must come back to zero between calls
                c.fill_(float("nan"))
                out = fn()
            torch.cuda.synchronize()
        except Exception as exc:  # noqa: BLE001
            problems[name] = f"{type(exc).__name__}: {exc}"[:300]
            continue
        errors[name] = float((out.float() - want).norm() / want.norm())
        if cfg[7] and not errors[name] < 1e-2:
            problems[name] = f"wrong: rel l2 {errors[name]:.2e}"
            continue
        fns[name] = fn
    flusher = L2Flusher(device)
    graphs, failed = graphed_where_possible(fns)
    g = bench(graphs, flusher=flusher, budget_ms=400.0, rounds=5)
    h = bench(fns, flusher=flusher, budget_ms=400.0, rounds=5, host_ahead=True)
    us = {k: round(t.median_ms * 1e3, 2) for k, t in g.items()}
    us_ahead = {k: round(t.median_ms * 1e3, 2) for k, t in h.items()}
    print(f"M={m} N={n} K={k}")
    for name in us:
        print(f"  {name:34} graphs {us[name]:7.2f} us {us['cublas'] / us[name]:.3f}x   "
              f"host_ahead {us_ahead[name]:7.2f} us {us_ahead['cublas'] / us_ahead[name]:.3f}x")
    for name, why in problems.items():
        print(f"  {name:34} not timed: {why}")
    return {"shape": {"M": m, "N": n, "K": k}, "us_graphs": us, "us_host_ahead": us_ahead,
            "rel_l2_err": errors, "not_timed": problems, "graph_capture_failed": failed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("bench/probe_skinny_splitk.py needs a CUDA GPU: it measures time")
    device = torch.device("cuda")
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8,
                                                                  device=device))
    rows = [_shape_rows(shape, device, configs) for shape, configs in SHAPES.items()]
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"probe-skinny-splitk-{device_label()}.json"
    path.write_text(json.dumps({
        "what": "skinny GEMMs bf16: a descriptor-load tile loop with K split over a grid axis "
                "(BLOCK_N, BLOCK_K, stages, warps, split, swap, num_ctas; _nofixup: partials "
                "never summed, timing only) against cuBLAS; CUDA-graph "
                "replays and the verifier's host_ahead timer, L2 flushed, medians in us",
        "environment": environment(), "rows": rows}, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
