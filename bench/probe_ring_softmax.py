"""Float32 softmax over rows of 32768 on an H200: does one CTA an SM that holds a row in registers
while the next row lands in shared memory read more of the copy bandwidth than the served
one-pass kernel?

The served kernel (softmax `cols_le_65536`, one program of 32 warps a row) holds the 128 KB row in
registers, so one program fills an SM's register file and nothing is read on that SM while it
reduces and writes: 71 us at 1024x32768 against a copy of the same bytes' 65 (0.89 of the 1 GiB
copy yardstick; the bar is 0.9). Splitting the row over programs lost (rounds 364, 376: 75-101
us), and so did a cluster of CTAs with bulk copies several rows ahead (round 375: 82.0 us for
clusters of 2), where a cluster barrier a row was the new cost. Here, no partner at all:

- `ring`: a persistent CTA (THREADS threads, one an SM) walks rows with the grid's stride. Each
  thread copies its own float4s of the next row into its own slots of a 128 KB shared buffer
  with `__pipeline_memcpy_async` (cp.async, 16 bytes each; no inline PTX) as soon as it has moved
  this row's out of them into registers; no barrier guards the buffer, since no thread reads
  another's slots. The row's (max, sum of exp) pair takes one block reduction (two barriers).
- `bulk`: bench/probe_cluster_softmax.py's kernel with clusters of one CTA and one stage (one
  thread bulk-copies the whole next row into shared memory once the row is in registers).

A probe, not a template: contiguous float32 rows whose width is a multiple of 4 and at most
THREADS * PER * 4; outputs checked against float64 first; timed as CUDA-graph replays, interleaved
and L2-flushed (verifier.timing), beside kernel_zoo.ops.softmax and a copy of the same bytes.
Writes <out>/probe-ring-softmax-<device>.json.

    python bench/probe_ring_softmax.py [--out DIR]
"""

from __future__ import annotations

import argparse
import ctypes
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from kernel_zoo import cuda_ext  # noqa: E402

RING = r"""
#include <cuda_pipeline_primitives.h>

constexpr float LOG2E = 1.4426950408889634f;

template <int THREADS, int PER, bool LOG>
__global__ void __launch_bounds__(THREADS, 1)
ring_softmax(const float* __restrict__ x, float* __restrict__ y, int64_t n_rows, int64_t n_cols) {
    extern __shared__ __align__(16) float4 slots[];  // [PER][THREADS]: thread t owns column t
    __shared__ float2 red[THREADS / 32];
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int n_f4 = (int)(n_cols / 4);
    auto issue = [&](int64_t row) {  // this thread's float4s of `row` into its own slots
        const float4* src = reinterpret_cast<const float4*>(x + row * n_cols);
#pragma unroll
        for (int j = 0; j < PER; ++j) {
            const int at = tid + j * THREADS;
            if (at < n_f4) __pipeline_memcpy_async(&slots[j * THREADS + tid], &src[at], 16);
        }
        __pipeline_commit();
    };
    int64_t row = blockIdx.x;
    if (row < n_rows) issue(row);
    for (; row < n_rows; row += gridDim.x) {
        __pipeline_wait_prior(0);
        float4 v[PER];
        float m = -INFINITY;
#pragma unroll
        for (int j = 0; j < PER; ++j) {
            const int at = tid + j * THREADS;
            v[j] = at < n_f4 ? slots[j * THREADS + tid]
                             : make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
            m = fmaxf(m, fmaxf(fmaxf(v[j].x, v[j].y), fmaxf(v[j].z, v[j].w)));
        }
        // The slots are this thread's alone and now in registers: the next row may land there.
        if (row + gridDim.x < n_rows) issue(row + gridDim.x);
        float sum = 0.0f;
        if (m != -INFINITY) {
#pragma unroll
            for (int j = 0; j < PER; ++j) {
                // exp as the served Triton kernel computes it: ex2.approx of x * log2(e)
                const float4 e = make_float4(exp2f((v[j].x - m) * LOG2E), exp2f((v[j].y - m) * LOG2E),
                                             exp2f((v[j].z - m) * LOG2E), exp2f((v[j].w - m) * LOG2E));
                sum += (e.x + e.y) + (e.z + e.w);
                if (!LOG) v[j] = e;
            }
        } else if (!LOG) {
#pragma unroll
            for (int j = 0; j < PER; ++j) v[j] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        }
        const float2 pair = warp_combine(make_float2(m, sum));
        if (lane == 0) red[warp] = pair;
        __syncthreads();
        float2 whole = make_float2(-INFINITY, 0.0f);
#pragma unroll
        for (int w = 0; w < THREADS / 32; ++w) whole = combine(whole, red[w]);
        __syncthreads();  // every thread has read red: the next row may write it
        write_slice<THREADS, PER, LOG>(reinterpret_cast<float4*>(y + row * n_cols), v, m, whole,
                                       tid, n_f4);
    }
}

template <int THREADS, int PER, bool LOG>
static int ring_launch(const float* x, float* y, int64_t n_rows, int64_t n_cols, int64_t grid,
                       cudaStream_t stream) {
    if (n_cols % 4 != 0 || n_cols / 4 > (int64_t)THREADS * PER) return (int)cudaErrorInvalidValue;
    const int bytes = THREADS * PER * 16;
    auto kernel = ring_softmax<THREADS, PER, LOG>;
    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    kernel<<<(unsigned)grid, THREADS, bytes, stream>>>(x, y, n_rows, n_cols);
    return (int)cudaGetLastError();
}

template <int THREADS, int PER, bool LOG>
static int ring_blocks(int* out) {
    const int bytes = THREADS * PER * 16;
    auto kernel = ring_softmax<THREADS, PER, LOG>;
    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    return (int)cudaOccupancyMaxActiveBlocksPerMultiprocessor(out, kernel, THREADS, bytes);
}
"""

RING_ENTRY = r"""
extern "C" int run_{name}(const float* x, float* y, int64_t n_rows, int64_t n_cols,
                          int64_t grid, cudaStream_t stream) {{
    return ring_launch<{threads}, {per}, {log}>(x, y, n_rows, n_cols, grid, stream);
}}
extern "C" int blocks_{name}(int* out) {{
    return ring_blocks<{threads}, {per}, {log}>(out);
}}
"""

COLS = 32768
RING_THREADS = (256, 512, 1024)
# bench/probe_cluster_softmax.py's kernel, one CTA a cluster: (threads, bulk-copy chunk bytes)
BULK = ((512, 16384), (1024, 16384), (512, 65536))


def ring_name(threads: int) -> str:
    return f"ring_t{threads}"


def source() -> str:
    import probe_cluster_softmax as cluster

    parts = [cluster.KERNEL, RING]
    for threads in RING_THREADS:
        parts.append(RING_ENTRY.format(name=ring_name(threads), threads=threads,
                                       per=-(-(COLS // 4) // threads), log="false"))
    for threads, chunk in BULK:
        name = cluster.variant_name(COLS, 1, threads, 1, chunk)
        parts.append(cluster.ENTRY.format(name=name,
                                          args=cluster.template_args(COLS, 1, threads, 1)))
    return "".join(parts)


def _caller(fn, x: torch.Tensor, grid: int, *extra: int):
    """A launch of one variant's entry `fn(x, out, n_rows, n_cols, grid, *extra, stream)` on the
    current stream, given its output `out`; returns the entry's CUDA error code."""
    def call(out: torch.Tensor) -> int:
        return fn(ctypes.c_void_p(x.data_ptr()), ctypes.c_void_p(out.data_ptr()),
                  ctypes.c_int64(x.shape[0]), ctypes.c_int64(x.shape[1]), ctypes.c_int64(grid),
                  *(ctypes.c_int64(v) for v in extra),
                  ctypes.c_void_p(torch.cuda.current_stream().cuda_stream))
    return call


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "runs"))
    parser.add_argument("--rows", type=int, default=1024)
    parser.add_argument("--compile-only", action="store_true",
                        help="build the variants for sm_90 and stop (no GPU needed)")
    args = parser.parse_args()
    if args.compile_only:
        print("built", cuda_ext.compile_source(source(), arch="90"))
        return
    import probe_cluster_softmax as cluster
    from row_probes import time_beside_zoo_and_copy, write_probe
    from verifier.timing import L2Flusher

    torch.manual_seed(0)
    lib = ctypes.CDLL(str(cuda_ext.compile_source(source())))
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    n_rows = args.rows
    x = torch.randn(n_rows, COLS, device="cuda") * 4.0
    x[1, 5:COLS] = float("-inf")  # a row with a run of -inf
    x[2, :] = float("-inf")  # a row of -inf only (NaN in torch: skipped in the error below)
    ref = torch.softmax(x.double(), dim=1)
    finite = torch.isfinite(ref).all(dim=1)
    calls, grids = {}, {}
    for threads in RING_THREADS:
        name = ring_name(threads)
        per_sm = ctypes.c_int(0)
        err = getattr(lib, f"blocks_{name}")(ctypes.byref(per_sm))
        grid = min(n_rows, max(1, per_sm.value) * sms)
        grids[name] = {"per_sm": per_sm.value, "grid": grid, "occupancy_error": err}
        calls[name] = _caller(getattr(lib, f"run_{name}"), x, grid)
    for threads, chunk in BULK:
        name = cluster.variant_name(COLS, 1, threads, 1, chunk)
        clusters = ctypes.c_int(0)
        err = getattr(lib, f"clusters_{name}")(ctypes.c_int64(COLS), ctypes.byref(clusters))
        grid = min(n_rows, clusters.value)
        grids[name] = {"per_sm": None, "grid": grid, "occupancy_error": err}
        calls[name] = _caller(getattr(lib, f"run_{name}"), x, grid, chunk)
    fns, errors = {}, {}
    for name, call in calls.items():
        y = torch.full_like(x, float("nan"))
        rc = call(y)
        torch.cuda.synchronize()
        if rc != 0 or grids[name]["grid"] < 1:
            errors[name] = f"launch error {rc} (grid {grids[name]})"
            print(name, errors[name], flush=True)
            continue
        diff = (y.double() - ref)[finite]
        err = (diff.norm() / ref[finite].norm()).item()
        worst = diff.abs().amax().item()
        # torch gives NaN for the all -inf row; these kernels give 0 (not served, so not judged)
        errors[name] = {"rel_l2": err, "max_abs": worst, "grid": grids[name]}
        print(f"{n_rows}x{COLS} {name}: grid {grids[name]}, rel l2 err {err:.2e}, "
              f"max abs {worst:.2e}", flush=True)
        if err < 1e-5 and worst < 1e-5:
            fns[name] = (lambda c=call, out=y: c(out))
    # the zoo's reference row of -inf: leave it out of the zoo's error too
    x[2, :] = 0.0
    ref = torch.softmax(x.double(), dim=1)
    us, failed = time_beside_zoo_and_copy(x, fns, errors, L2Flusher(torch.device("cuda")), ref)
    write_probe(args.out, "probe-ring-softmax",
                "float32 softmax over 32768-wide rows: a persistent CTA an SM holding a row in "
                "registers while the next lands in shared memory (ring: per-thread cp.async into "
                "the thread's own slots; bulk: one thread's cp.async.bulk of the row), against "
                "kernel_zoo.ops.softmax and a copy of the same bytes; CUDA-graph replays, L2 "
                "flushed, medians in us",
                [{"shape": [n_rows, COLS], "us_graphs": us, "errors": errors,
                  "graph_capture_failed": failed}],
                variants="ring_t<threads> | c1_t<threads>_s1_k<bulk-copy chunk KiB>_w<width>")


if __name__ == "__main__":
    main()
