"""A GEMM tile of non-power-of-two width, as several power-of-two dots, on the GPU (a probe).

Triton's tiles are powers of two, so at 1000x1024->3000 (linear + LayerNorm's small call) the
GEMM runs 96 tiles of 128x256 on an H100's 132 SMs, where cuBLAS runs 120 of 128x200 (its
kernel 12.6 us against TILED's 15.9, GPU round 169). This probe times a hand-written kernel
whose program computes a 128 x (PARTS x BLOCK_N) tile as PARTS dots sharing each A tile: 3 x 64
makes 128 tiles of 128x192 at that shape, one wave. Beside it: the template's TILED (128x256),
128x128 tiles, and cuBLAS `F.linear`, all with the bias in the epilogue (bfloat16, fp32
accumulation), as CUDA-graph replays, interleaved, L2 flushed (verifier.timing), each output
checked against the float32 reference first. Not a template: whether the idea pays is what it
measures. Writes bench/results/probe-gemm-parts-<device>.json and prints a table.

    python bench/probe_gemm_parts.py [--out DIR]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
from pathlib import Path

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import tasks  # noqa: E402
from agent.plan import plan  # noqa: E402
from templates import get_template  # noqa: E402
from templates.gemm import TILED  # noqa: E402
from verifier.core import load_candidate  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, bench, graphed_where_possible  # noqa: E402
from probe_gemm_norm import linear_bias_context  # noqa: E402  (bench/ is the script's folder)

SHAPES = ((1000, 1024, 3000), (4000, 1024, 3000), (1000, 1024, 4096))
# (BLOCK_M, BLOCK_N of one part, PARTS, BLOCK_K, warps, stages)
PARTS = {
    "128x(3x64)_s3": (128, 64, 3, 64, 8, 3),
    "128x(3x64)_s4": (128, 64, 3, 64, 8, 4),
    "128x(3x64)_w4": (128, 64, 3, 64, 4, 3),
    "128x(2x128)_s3": (128, 128, 2, 64, 8, 3),  # TILED's tile as two dots: what parts cost
}


@triton.jit
def _store_part(acc, row, cols, bias_ptr, N, m_ok):
    bias = tl.load(bias_ptr + cols, mask=cols < N, other=0.0).to(tl.float32)
    tl.store(row + cols[None, :], (acc + bias[None, :]).to(row.dtype.element_ty),
             mask=m_ok & (cols[None, :] < N))


@triton.jit
def _parts_kernel(a_ptr, b_ptr, bias_ptr, c_ptr, M, N_U, K, stride_am, stride_bn, stride_cm_u,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, PARTS: tl.constexpr,
                  BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, UNIT: tl.constexpr,
                  STAGES: tl.constexpr):
    # C = A @ W^T + bias, A (M, K) row-major, W (N, K) row-major (B = W^T read by strides), C
    # contiguous; N and C's row stride in units of UNIT elements (a 16-byte store at N = 3000).
    N = N_U * UNIT
    pid = tl.program_id(0)
    wide = BLOCK_N * PARTS
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, wide)
    in_group = GROUP_M * tiles_n
    first_m = (pid // in_group) * GROUP_M
    rows = tl.minimum(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (pid % in_group) % rows
    pid_n = (pid % in_group) // rows
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * wide + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] + offs_n[None, :] * stride_bn
    m_ok = offs_m[:, None] < M
    acc0 = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    acc1 = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    acc2 = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, K, BLOCK_K, num_stages=STAGES):  # K a multiple of BLOCK_K here
        a = tl.load(a_ptrs, mask=m_ok, other=0.0)
        b0 = tl.load(b_ptrs, mask=offs_n[None, :] < N, other=0.0)
        acc0 = tl.dot(a, b0, acc0)
        b1 = tl.load(b_ptrs + BLOCK_N * stride_bn, mask=offs_n[None, :] + BLOCK_N < N,
                     other=0.0)
        acc1 = tl.dot(a, b1, acc1)
        if PARTS == 3:
            b2 = tl.load(b_ptrs + 2 * BLOCK_N * stride_bn,
                         mask=offs_n[None, :] + 2 * BLOCK_N < N, other=0.0)
            acc2 = tl.dot(a, b2, acc2)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K
    row = c_ptr + offs_m[:, None] * (stride_cm_u * UNIT)
    _store_part(acc0, row, offs_n, bias_ptr, N, m_ok)
    _store_part(acc1, row, offs_n + BLOCK_N, bias_ptr, N, m_ok)
    if PARTS == 3:
        _store_part(acc2, row, offs_n + 2 * BLOCK_N, bias_ptr, N, m_ok)


def _parts_linear(x, w, b, spec):
    block_m, block_n, parts, block_k, warps, stages = spec
    m, k = x.shape
    n = w.shape[0]
    assert k % block_k == 0 and x.stride(1) == 1 and w.stride(1) == 1
    out = torch.empty((m, n), dtype=x.dtype, device=x.device)
    unit = 8
    while n % unit:
        unit //= 2
    grid = (triton.cdiv(m, block_m) * triton.cdiv(n, block_n * parts),)
    _parts_kernel[grid](x, w, b, out, m, n // unit, k, x.stride(0), w.stride(0), n // unit,
                        BLOCK_M=block_m, BLOCK_N=block_n, PARTS=parts, BLOCK_K=block_k,
                        GROUP_M=8, UNIT=unit, STAGES=stages, num_warps=warps,
                        num_stages=stages)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("bench/probe_gemm_parts.py needs a CUDA GPU: it measures time")
    device = torch.device("cuda")
    found = plan(tasks.load(ROOT / "tasks" / "linear_layer_norm.py"))
    context = linear_bias_context(found)
    gemm = get_template("gemm")
    cache = Path(tempfile.mkdtemp())
    templates = {"tiled": dataclasses.replace(TILED),
                 "tiled_split2": dataclasses.replace(TILED, EPILOGUE_SPLIT=2),
                 "128x128": dataclasses.replace(TILED, BLOCK_N=128)}
    modules = {name: load_candidate(gemm.render(cfg, **context), cache)
               for name, cfg in templates.items()}
    flusher = L2Flusher(device)
    rows, notes = [], []
    for m, k, n in SHAPES:
        label = f"{m}x{k}x{n}"
        torch.manual_seed(0)
        x = torch.randn(m, k, device=device, dtype=torch.bfloat16)
        w = torch.randn(n, k, device=device, dtype=torch.bfloat16) / k ** 0.5
        b = torch.randn(n, device=device, dtype=torch.bfloat16)
        want = F.linear(x.float(), w.float(), b.float())
        calls = {"cublas": lambda: F.linear(x, w, b)}
        for name, module in modules.items():
            calls[name] = (lambda mod: lambda: mod.launch_linear_layer_norm(x, w, b))(module)
        for name, spec in PARTS.items():
            calls[name] = (lambda s: lambda: _parts_linear(x, w, b, s))(spec)
        errors = {}
        for key, fn in list(calls.items()):
            try:
                out = fn()
                torch.cuda.synchronize()
            except Exception as exc:  # noqa: BLE001 - recorded, not timed
                notes.append(f"{label}/{key}: {type(exc).__name__}: {exc}"[:300])
                calls.pop(key)
                continue
            errors[key] = float((out.float() - want).norm() / want.norm())
            if not errors[key] < 1e-2:
                notes.append(f"{label}/{key}: wrong output (rel err {errors[key]:.3g}), not timed")
                calls.pop(key)
        fns, failed = graphed_where_possible(calls)
        notes += [f"{label}: not graphed: {f}" for f in failed]
        times = bench(fns, flusher=flusher, budget_ms=600.0, rounds=5)
        us = {key: round(t.median_ms * 1e3, 2) for key, t in times.items()}
        rows.append({"shape": {"M": m, "K": k, "N": n}, "us": us, "rel_l2_err": errors})
        for key, t in us.items():
            print(f"{label} {key:18} {t:8.2f} us", flush=True)
    for note in notes:
        print("note:", note)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"probe-gemm-parts-{device_label()}.json"
    path.write_text(json.dumps({
        "what": "Linear + bias (bf16): a tile of PARTS power-of-two dots sharing A (a probe "
                "kernel) beside the gemm template's TILED, TILED with two epilogue slices, "
                "128x128 tiles and cuBLAS F.linear. CUDA-graph replays, L2 flushed, medians in us",
        "environment": environment(), "dtype": "bfloat16",
        "parts": {k: dict(zip(("BLOCK_M", "BLOCK_N", "PARTS", "BLOCK_K", "num_warps",
                               "num_stages"), v)) for k, v in PARTS.items()},
        "templates": {k: dataclasses.asdict(v) for k, v in templates.items()},
        "rows": rows, "notes": notes}, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
