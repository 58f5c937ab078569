"""A skinny GEMM (128 x 4096 x 4096, bfloat16) in CTA clusters: does a cluster share A?

The skinny start of rounds 140-263 (128x32 tiles) gives each of 128 programs all 128 rows of A
and a 32-column slab of B: every program reads the whole of A (1 MB) from L2, 128 MB in all
beside B's 32 MB from memory. Triton
on sm_90 can launch a program as a cluster of `num_ctas` CTAs, which split its tile; where the
compiler multicasts a tile both CTAs load, A would be read once a cluster. This probe times a
plain descriptor-load skinny kernel (the template's tile loop, no epilogue) at a few tiles,
depths and cluster sizes against cuBLAS (`torch.matmul`), as CUDA-graph replays, interleaved and
L2-flushed (verifier.timing), each output first checked against a float32 reference. Writes
bench/results/probe-skinny-clusters-<device>.json and prints a table.

    python bench/probe_skinny_clusters.py [--out DIR]
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

M, N, K = 128, 4096, 4096
# (BLOCK_N, BLOCK_K, stages, warps, num_ctas)
CONFIGS = [
    (32, 128, 5, 4, 1),  # SKINNY_DEFAULT's tile loop
    (64, 128, 4, 4, 1),
    (64, 128, 4, 4, 2),
    (64, 128, 4, 8, 2),
    (128, 64, 4, 4, 2),
    (128, 128, 3, 8, 2),
    (128, 64, 4, 8, 4),
    (64, 64, 6, 4, 2),
]


@triton.jit
def _skinny_kernel(a_desc, b_desc, c_ptr, K, stride_cm, BLOCK_M: tl.constexpr,
                   BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, STAGES: tl.constexpr):
    off_n = tl.program_id(0) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, K, BLOCK_K, num_stages=STAGES):
        a = a_desc.load([0, k])
        b = b_desc.load([k, off_n])
        acc = tl.dot(a, b, acc)
    rows = tl.arange(0, BLOCK_M)
    cols = off_n + tl.arange(0, BLOCK_N)
    tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :], acc.to(c_ptr.dtype.element_ty))


def _call(a, b, c, block_n, block_k, stages, warps, ctas):
    a_desc = TensorDescriptor(a, list(a.shape), list(a.stride()), [M, block_k])
    b_desc = TensorDescriptor(b, list(b.shape), list(b.stride()), [block_k, block_n])

    def run():
        _skinny_kernel[(N // block_n,)](a_desc, b_desc, c, K, c.stride(0), BLOCK_M=M,
                                        BLOCK_N=block_n, BLOCK_K=block_k, STAGES=stages,
                                        num_warps=warps, num_stages=stages, num_ctas=ctas)
        return c
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("bench/probe_skinny_clusters.py needs a CUDA GPU: it measures time")
    device = torch.device("cuda")
    torch.manual_seed(0)
    a = torch.randn(M, K, device=device, dtype=torch.bfloat16)
    b = torch.randn(K, N, device=device, dtype=torch.bfloat16)
    want = a.float() @ b.float()
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8,
                                                                  device=device))
    fns, errors, problems = {"cublas": lambda: torch.matmul(a, b)}, {}, {}
    for cfg in CONFIGS:
        name = "n{}_k{}_s{}_w{}_c{}".format(*cfg)
        c = torch.empty(M, N, device=device, dtype=torch.bfloat16)
        fn = _call(a, b, c, *cfg)
        try:  # a probe: a config the compiler refuses is recorded, not fatal
            out = fn()
            torch.cuda.synchronize()
        except Exception as exc:  # noqa: BLE001
            problems[name] = f"{type(exc).__name__}: {exc}"[:300]
            continue
        errors[name] = float((out.float() - want).norm() / want.norm())
        if not errors[name] < 1e-2:
            problems[name] = f"wrong: rel l2 {errors[name]:.2e}"
            continue
        fns[name] = fn
    flusher = L2Flusher(device)
    graphed, failed = graphed_where_possible(fns)
    times = bench(graphed, flusher=flusher, budget_ms=400.0, rounds=5)
    us = {k: round(t.median_ms * 1e3, 2) for k, t in times.items()}
    for name, t in us.items():
        print(f"{name:20} {t:7.2f} us  {us['cublas'] / t:.3f}x cuBLAS")
    for name, why in problems.items():
        print(f"{name:20} not timed: {why}")
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"probe-skinny-clusters-{device_label()}.json"
    path.write_text(json.dumps({
        "what": "skinny GEMM 128x4096x4096 bf16: a descriptor-load tile loop per config "
                "(BLOCK_N, BLOCK_K, stages, warps, num_ctas) against cuBLAS; CUDA-graph "
                "replays, L2 flushed, medians in us",
        "environment": environment(), "shape": {"M": M, "N": N, "K": K},
        "us": us, "rel_l2_err": errors, "not_timed": problems,
        "graph_capture_failed": failed}, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
