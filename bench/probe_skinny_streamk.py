"""16 x 8192 x 8192 (bfloat16, `a @ b`): does an even share of B for every SM pass cuBLAS?

On an H200 the template's decode tile (16x64 tiles in K steps of 256, three deep, through tensor
descriptors: 128 programs, one 64-column slab of B each) took 35.0-35.3 us where cuBLAS took
34.6 (0.984-0.990x, GPU rounds 337-338), and 11 configs around it did no better. 128 programs
leave 4 of the 132 SMs idle. This probe asks two things, each output first checked against a
float32 reference:

- how fast B can be read at all: a plain sum of B's 128 MiB by 128, 132, 264 and 528 programs
  (each a contiguous share), which bounds any kernel here from below;
- stream-K: 132 (or 264) programs each take an even share of the call's K steps over all tiles
  (a share may begin or end inside a tile); a tile split across programs is summed by the last to
  arrive, which adds the partials in program order (the same sum every run) and resets the
  tile's counter for the next call.

Timed as CUDA-graph replays, interleaved and L2-flushed (verifier.timing), beside cuBLAS
(`torch.matmul`) and the decode tile (bench/probe_skinny_splitk.py's kernel, unsplit). Writes
bench/results/probe-skinny-streamk-<device>.json and prints a table.

    python bench/probe_skinny_streamk.py [--out DIR]
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
sys.path.insert(0, str(ROOT / "bench"))

from probe_skinny_splitk import _call as _decode_call  # noqa: E402

from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, bench, graphed_where_possible  # noqa: E402

M, N, K = 16, 8192, 8192
# (BLOCK_N, BLOCK_K, stages, warps, programs per SM)
STREAMK = [(64, 256, 3, 4, 1), (64, 256, 4, 4, 1), (64, 128, 6, 4, 1), (128, 128, 4, 4, 1),
           (64, 128, 4, 4, 2), (32, 256, 3, 4, 2), (128, 256, 3, 8, 1)]
READ_PROGRAMS = (128, 132, 264, 528)


@triton.jit
def _read_kernel(b_ptr, out_ptr, numel, BLOCK: tl.constexpr):
    # program p sums elements [p * numel // G, (p + 1) * numel // G) of B, BLOCK at a time
    pid = tl.program_id(0)
    grid = tl.num_programs(0)
    lo = (pid.to(tl.int64) * numel) // grid
    hi = ((pid.to(tl.int64) + 1) * numel) // grid
    acc = tl.zeros((BLOCK, ), dtype=tl.float32)
    for start in range(lo, hi, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(b_ptr + offs, mask=offs < hi, other=0.0).to(tl.float32)
    tl.store(out_ptr + pid, tl.sum(acc))


@triton.jit
def _owner(i, total, grid):
    # the program whose share [p * total // grid, (p + 1) * total // grid) holds iteration i
    return ((i + 1) * grid + total - 1) // total - 1


@triton.jit
def _streamk_kernel(a_desc, b_desc, c_ptr, w_ptr, lock_ptr, M, N, K, stride_cm,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                    STAGES: tl.constexpr):
    pid = tl.program_id(0)
    grid = tl.num_programs(0)
    k_tiles = tl.cdiv(K, BLOCK_K)
    total = tl.cdiv(N, BLOCK_N) * k_tiles
    start = (pid * total) // grid
    end = ((pid + 1) * total) // grid
    rows = tl.arange(0, BLOCK_M)
    for tile in range(start // k_tiles, (end - 1) // k_tiles + 1):
        lo = tl.maximum(start, tile * k_tiles)
        hi = tl.minimum(end, (tile + 1) * k_tiles)
        off_n = tile * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for kk in tl.range(lo - tile * k_tiles, hi - tile * k_tiles, num_stages=STAGES):
            a = a_desc.load([0, kk * BLOCK_K])
            b = b_desc.load([kk * BLOCK_K, off_n])
            acc = tl.dot(a, b, acc)
        cols = off_n + tl.arange(0, BLOCK_N)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        first = _owner(tile * k_tiles, total, grid)
        last = _owner((tile + 1) * k_tiles - 1, total, grid)
        if first == last:  # the whole tile is this program's
            tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :],
                     acc.to(c_ptr.dtype.element_ty), mask=mask)
        else:
            # slot 0: the segment that opens this program's share, 1: the one that closes it
            slot = (lo != start).to(tl.int32)
            part = w_ptr + ((pid * 2 + slot) * BLOCK_M + rows[:, None]) * BLOCK_N \
                + tl.arange(0, BLOCK_N)[None, :]
            tl.store(part, acc)
            tl.debug_barrier()
            arrived = tl.atomic_add(lock_ptr + tile, 1, sem="acq_rel")
            if arrived == last - first:
                acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
                for q in range(first, last + 1):
                    q_slot = ((q == first) & ((q * total) // grid != tile * k_tiles)).to(tl.int32)
                    other = w_ptr + ((q * 2 + q_slot) * BLOCK_M + rows[:, None]) * BLOCK_N \
                        + tl.arange(0, BLOCK_N)[None, :]
                    acc += tl.load(other, cache_modifier=".cg")
                tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :],
                         acc.to(c_ptr.dtype.element_ty), mask=mask)
                tl.atomic_xchg(lock_ptr + tile, 0)


def _streamk_call(a, b, c, block_n, block_k, stages, warps, per_sm):
    m, k = a.shape
    n = b.shape[1]
    grid = torch.cuda.get_device_properties(a.device).multi_processor_count * per_sm
    a_desc = TensorDescriptor(a, list(a.shape), list(a.stride()), [16, block_k])
    b_desc = TensorDescriptor(b, list(b.shape), list(b.stride()), [block_k, block_n])
    work = torch.empty(grid * 2 * 16 * block_n, device=a.device, dtype=torch.float32)
    locks = torch.zeros(triton.cdiv(n, block_n), device=a.device, dtype=torch.int32)

    def run():
        _streamk_kernel[(grid, )](a_desc, b_desc, c, work, locks, m, n, k, c.stride(0),
                                  BLOCK_M=16, BLOCK_N=block_n, BLOCK_K=block_k, STAGES=stages,
                                  num_warps=warps, num_stages=stages)
        return c
    return run


def _read_call(b, programs):
    out = torch.empty(programs, device=b.device, dtype=torch.float32)

    def run():
        _read_kernel[(programs, )](b, out, b.numel(), BLOCK=4096, num_warps=8)
        return out
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("bench/probe_skinny_streamk.py needs a CUDA GPU: it measures time")
    device = torch.device("cuda")
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8,
                                                                  device=device))
    torch.manual_seed(0)
    a = torch.randn(M, K, device=device, dtype=torch.bfloat16)
    b = torch.randn(K, N, device=device, dtype=torch.bfloat16)
    want = a.float() @ b.float()
    fns = {"cublas": lambda: torch.matmul(a, b)}
    errors, problems = {}, {}
    decode = torch.empty(M, N, device=device, dtype=torch.bfloat16)
    candidates = {"decode_n64_k256_s3": _decode_call(a, b, decode, 64, 256, 3, 4, 1, 0, 1, 1)}
    for cfg in STREAMK:
        name = "streamk_n{}_k{}_s{}_w{}_x{}".format(*cfg)
        candidates[name] = _streamk_call(a, b, torch.empty(M, N, device=device,
                                                           dtype=torch.bfloat16), *cfg)
    for name, fn in candidates.items():
        try:  # a probe: a config the compiler refuses is recorded, not fatal
            outs = []
            for _ in range(3):  # the counters must come back to zero between calls
                out = fn()
                outs.append(out.clone())
                out.fill_(float("nan"))
            torch.cuda.synchronize()
        except Exception as exc:  # noqa: BLE001
            problems[name] = f"{type(exc).__name__}: {exc}"[:300]
            continue
        errors[name] = float((outs[-1].float() - want).norm() / want.norm())
        if not errors[name] < 1e-2:
            problems[name] = f"wrong: rel l2 {errors[name]:.2e}"
            continue
        if not all(torch.equal(outs[0], o) for o in outs[1:]):
            problems[name] = "not the same output on every call"
            continue
        fns[name] = fn
    total = float(b.float().sum())
    for programs in READ_PROGRAMS:
        name = f"read_b_{programs}"
        fn = _read_call(b, programs)
        got = float(fn().sum())
        if abs(got - total) > 1e-3 * b.numel() ** 0.5:
            problems[name] = f"wrong: sum {got} against {total}"
            continue
        fns[name] = fn
    flusher = L2Flusher(device)
    graphs, failed = graphed_where_possible(fns)
    timed = bench(graphs, flusher=flusher, budget_ms=600.0, rounds=7)
    us = {name: round(t.median_ms * 1e3, 2) for name, t in timed.items()}
    b_bytes = b.numel() * b.element_size()
    print(f"M={M} N={N} K={K} bfloat16, CUDA-graph replays")
    for name, t in us.items():
        vs = f"{us['cublas'] / t:.3f}x cuBLAS" if not name.startswith("read") else "  (B read)"
        print(f"  {name:30} {t:8.2f} us  {b_bytes / t / 1e3:7.0f} GB/s of B  {vs}")
    for name, why in problems.items():
        print(f"  {name:30} not timed: {why}")
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"probe-skinny-streamk-{device_label()}.json"
    path.write_text(json.dumps({
        "what": "16x8192x8192 bf16 a @ b: cuBLAS, the decode tile (16x64, K steps of 256, 3 "
                "stages, 128 programs), stream-K (BLOCK_N, BLOCK_K, stages, warps, programs per "
                "SM: even shares of all K steps, split tiles summed in program order by the last "
                "to arrive), and plain reads of B by G programs; CUDA-graph replays, L2 flushed, "
                "medians in us",
        "environment": environment(), "shape": {"M": M, "N": N, "K": K}, "dtype": "bfloat16",
        "b_bytes": b_bytes, "us_graphs": us, "rel_l2_err": errors, "not_timed": problems,
        "graph_capture_failed": failed}, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
