"""A 16-row bfloat16 GEMM (a decode step, 16x8192x8192) split along K in one launch with
self-cleaning counters, against cuBLAS, the zoo's DECODE_WIDE kernel and a plain read of B.

Round 428 (bench/probe_ceilings.py) read the 128 MiB of B in 33.6 us (P programs of 16 KB each,
8 warps), where cuBLAS took 34.9 and `ops.matmul` 35.4 (DECODE_WIDE: 16x64 tiles, K steps of
256, three stages through tensor descriptors, 128 programs for 132 SMs, one an SM by its shared
memory). The template's split-K zeroes a counter buffer before every call (a second launch) and
loads through pointers; round 338's split-K 2 took 41.8 us. Here each tile's SPLIT programs are
neighbours in the grid, each stores its fp32 partial (16 x BLOCK_N) and counts itself in its
tile's counter (acq_rel); the last to arrive sums the partials in split order, writes the
bfloat16 tile and sets the counter back to 0, so the next call (a CUDA-graph replay too) finds
it zeroed and no memset launch is needed. Smaller stages let two CTAs share an SM, so more of B
is in flight.

A probe, not a template: M = 16 (BLOCK_M), N a multiple of BLOCK_N, K of BLOCK_K x SPLIT.
Every variant is checked against a float32 product (three calls, so a counter left dirty
shows), then timed as CUDA-graph replays, interleaved and L2-flushed.

    python bench/probe_decode_splitk.py [--out DIR]
    TRITON_INTERPRET=1 python bench/probe_decode_splitk.py --check-small   (CPU: 16x256x512)
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

# (BLOCK_N, BLOCK_K, SPLIT, STAGES, warps[, swap[, copy]]): copy tells apart two instances of one
# config, timed side by side to show the timer's spread. Round 429 ran the split ones (SPLIT 2 and
# 4, the first thirteen here); round 430 the single ones.
VARIANTS = (
    (64, 256, 1, 3, 4),  # DECODE_WIDE's own tile: the control
    (64, 256, 1, 4, 4),
    (64, 256, 2, 2, 4),
    (64, 128, 2, 4, 4),
    (64, 128, 2, 5, 4),
    (64, 256, 2, 3, 4),
    (128, 128, 2, 3, 4),
    (128, 128, 4, 3, 4),
    (128, 256, 2, 3, 8),
    (128, 128, 2, 3, 8),
    (64, 128, 4, 4, 4),
    (32, 256, 2, 4, 4),
    (32, 256, 4, 4, 4),
    (64, 256, 1, 3, 4, False, 1),
    (64, 256, 1, 4, 4, False, 1),
    (64, 256, 1, 5, 4),
    (64, 128, 1, 6, 4),
    (64, 256, 1, 4, 2),
    (64, 256, 1, 4, 8),
    (64, 512, 1, 2, 4),
    (64, 256, 1, 3, 4, True),
    (64, 256, 1, 4, 4, True),
    (64, 128, 1, 6, 4, True),
    (64, 256, 1, 4, 8, True),
)
ROUND_430 = VARIANTS[:2] + VARIANTS[13:]


@triton.jit
def _decode_splitk(a_desc, b_desc, c_ptr, w_ptr, lock_ptr, N, k_per_split,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                   SPLIT: tl.constexpr, STAGES: tl.constexpr, UPCAST: tl.constexpr,
                   SWAP: tl.constexpr):
    pid = tl.program_id(0)
    pid_n = pid // SPLIT
    pid_k = pid % SPLIT
    off_n = pid_n * BLOCK_N
    k0 = pid_k * k_per_split
    if SWAP:  # C^T = B^T A^T: the tile's BLOCK_N columns are the dot's rows (a warpgroup MMA)
        acc_t = tl.zeros((BLOCK_N, BLOCK_M), dtype=tl.float32)
        for k in tl.range(k0, k0 + k_per_split, BLOCK_K, num_stages=STAGES):
            a = a_desc.load([0, k])
            b = b_desc.load([k, off_n])
            if UPCAST:
                acc_t = tl.dot(tl.trans(b.to(tl.float32)), tl.trans(a.to(tl.float32)), acc_t)
            else:
                acc_t = tl.dot(tl.trans(b), tl.trans(a), acc_t)
        acc = tl.trans(acc_t)
    else:
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in tl.range(k0, k0 + k_per_split, BLOCK_K, num_stages=STAGES):
            a = a_desc.load([0, k])
            b = b_desc.load([k, off_n])
            if UPCAST:  # the interpreter multiplies bfloat16 tiles as their raw bits
                acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc)
            else:
                acc = tl.dot(a, b, acc)
    offs_m = tl.arange(0, BLOCK_M)
    offs_n = off_n + tl.arange(0, BLOCK_N)
    c_tile = c_ptr + offs_m[:, None] * N + offs_n[None, :]
    if SPLIT > 1:
        tile = BLOCK_M * BLOCK_N
        w_tile = (w_ptr + pid_n.to(tl.int64) * (SPLIT * tile) + offs_m[:, None] * BLOCK_N
                  + tl.arange(0, BLOCK_N)[None, :])
        tl.store(w_tile + pid_k * tile, acc)
        tl.debug_barrier()  # every thread's partial stored before the count releases them
        arrived = tl.atomic_add(lock_ptr + pid_n, 1, sem="acq_rel")
        if arrived == SPLIT - 1:
            acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
            for s in tl.static_range(SPLIT):
                acc += tl.load(w_tile + s * tile, cache_modifier=".cg")
            tl.store(c_tile, acc.to(c_ptr.dtype.element_ty))
            tl.atomic_xchg(lock_ptr + pid_n, 0)  # zeroed for the next call
    else:
        tl.store(c_tile, acc.to(c_ptr.dtype.element_ty))


class DecodeSplitK:
    """C = A @ B for A (16, K) and B (K, N) bfloat16 by one launch of _decode_splitk."""

    def __init__(self, a, b, block_n, block_k, split, stages, warps, swap=False, copy=0):
        m, k = a.shape
        n = b.shape[1]
        assert m == 16 and n % block_n == 0 and k % (block_k * split) == 0, (m, n, k)
        self.a_desc = TensorDescriptor(a, list(a.shape), [a.stride(0), 1], [16, block_k])
        self.b_desc = TensorDescriptor(b, list(b.shape), [b.stride(0), 1], [block_k, block_n])
        self.c = torch.empty(m, n, device=a.device, dtype=a.dtype)
        tiles = n // block_n
        self.w = torch.empty(max(split, 2) * tiles * 16 * block_n, device=a.device,
                             dtype=torch.float32)
        self.lock = torch.zeros(tiles, device=a.device, dtype=torch.int32)
        self.grid = (tiles * split,)
        self.args = dict(N=n, k_per_split=k // split, BLOCK_M=16, BLOCK_N=block_n,
                         BLOCK_K=block_k, SPLIT=split, STAGES=stages, num_warps=warps,
                         UPCAST=a.device.type == "cpu", SWAP=swap)

    def __call__(self):
        _decode_splitk[self.grid](self.a_desc, self.b_desc, self.c, self.w, self.lock,
                                  **self.args)
        return self.c


def name_of(v) -> str:
    block_n, block_k, split, stages, warps, *more = v
    swap, copy = (*more, False, 0)[:2]
    return (f"n{block_n}_k{block_k}_split{split}_s{stages}_w{warps}" + ("_swap" if swap else "")
            + (f"_copy{copy}" if copy else ""))


def check(m, n, k, variants, device):
    a = torch.randn(m, k, device=device, dtype=torch.bfloat16)
    b = torch.randn(k, n, device=device, dtype=torch.bfloat16)
    want = a.float() @ b.float()
    errors, kernels = {}, {}
    for v in variants:
        fn = DecodeSplitK(a, b, *v)
        for _ in range(3):
            got = fn().float()
            err = ((got - want).norm() / want.norm()).item()
            assert err < 1e-2, (name_of(v), err)
        assert int(fn.lock.abs().sum()) == 0, (name_of(v), "counter left dirty")
        errors[name_of(v)] = err
        kernels[name_of(v)] = fn
    return a, b, errors, kernels


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="bench/results", help="folder for the JSON")
    parser.add_argument("--single", action="store_true",
                        help="round 430's variants only: SPLIT 1, the control twice")
    parser.add_argument("--check-small", action="store_true",
                        help="check every variant that fits at 16x256x512 (CPU interpreter)")
    args = parser.parse_args()
    if args.check_small:
        small = [v for v in VARIANTS
                 if 256 % v[0] == 0 and 512 % (v[1] * v[2]) == 0 and (len(v) < 7 or not v[6])]
        _, _, errors, _ = check(16, 256, 512, small, "cpu")
        print(f"{len(errors)} variants correct at 16x256x512:", errors)
        return
    if not torch.cuda.is_available():
        sys.exit("probe_decode_splitk: needs a CUDA GPU (or --check-small in the interpreter)")
    from kernel_zoo import ops
    from verifier.environment import device_label, environment
    from verifier.timing import L2Flusher
    from bench.probe_ceilings import _read_chunks, timed

    m, n, k = 16, 8192, 8192
    a, b, errors, kernels = check(m, n, k, ROUND_430 if args.single else VARIANTS, "cuda")
    fns = {"cublas": lambda: a @ b, "zoo": lambda: ops.matmul(a, b)}
    flat = b.view(-1)
    sink = torch.empty(8192, device="cuda", dtype=torch.float32)
    fns["read_p8192_b8192_w8"] = lambda: _read_chunks[(8192,)](flat, sink, flat.numel() // 8192,
                                                                BLOCK=8192, num_warps=8)
    fns.update(kernels)
    us, failed = timed(fns, L2Flusher(torch.device("cuda")))
    for name, value in sorted(us.items(), key=lambda kv: kv[1]):
        print(f"16x8192x8192 {name:28s} {value:7.2f} us {b.numel() * 2 / value / 1e6:5.2f} TB/s "
              f"{us['cublas'] / value:5.3f}x cuBLAS", flush=True)
    path = Path(args.out) / f"probe-decode-splitk-{device_label()}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({
        "what": __doc__.split("\n\n")[0], "environment": environment(),
        "shape": {"M": m, "N": n, "K": k}, "dtype": "bfloat16",
        "variants": "(BLOCK_N, BLOCK_K, SPLIT, STAGES, warps) as the names say",
        "rel_l2_err": errors, "us_graphs": us, "graph_capture_failed": failed}, indent=1) + "\n")
    print("wrote", path)


if __name__ == "__main__":
    main()
