"""Float32 softmax and log-softmax over dim 1 of 32x1000x1024 on an H200: does a CUDA C++ kernel
that holds a whole 1000 x W column tile on chip (part in registers, the rest in shared memory,
copied there asynchronously) read more of the copy bandwidth than the served Triton kernel?

The served column kernels hold 1000 x 16 tiles in registers: rows of 64 bytes. Round 457 timed
plain copies walking the same tensor in tiles: 16 columns wide they reach 0.85-0.87 of the 1 GiB
yardstick, 32 wide 0.89-0.91, 64 and wider 0.92-0.93. So the two dim-1 rows of #3 (0.84 each) are
capped by their tile width, and a wider tile must be held somewhere other than registers alone:
a 1000 x 64 float32 tile is 256 KB, a 1000 x 32 one 128 KB. Here, in CUDA C++:

- a block a tile (one outer index, W columns), each thread a float4 of W / 4 columns in RPS =
  THREADS / (W / 4) rows a step; the first REG_STEPS steps in registers, the others copied into
  shared memory (`__pipeline_memcpy_async`, no inline PTX) before the register loads are issued;
- a column's max, then its sum of exponentials, reduced across the threads holding it (warp
  shuffles, then one partial a warp through shared memory); the register part keeps its
  exponentials, the shared-memory part computes them again as it writes;
- `__launch_bounds__(THREADS, MIN_BLOCKS)`: a 64-wide tile's block fills an SM (1024 threads at
  64 registers, or 512 at 128); 32-wide tiles fit two blocks an SM;
- each variant also as a copy (`copy_<variant>`): the same loads, holding and stores with no
  reduction or arithmetic, the walk's own ceiling.

A probe, not a template: float32, contiguous, inner a multiple of W; the reduced length R is a
compile-time constant (1000). Outputs are checked against float64 first, at the probe shape and a
small one; timed as CUDA-graph replays, interleaved and L2-flushed (verifier.timing), beside
kernel_zoo.ops over dim 1 and a copy of the same bytes; each variant's registers, local memory
(spills), shared memory and blocks an SM come from the CUDA runtime. The verifier's CUDA guards
refuse `cuda_pipeline.h` in a candidate: a template would need them to admit it, or a cp.async
wrapper in `kzoo_sm90.cuh`. Writes <out>/probe-cols-hold-cuda-<device>.json.

Written in a session with no device time left (round 460): built for sm_90 here (ptxas: no spills
but 12 bytes in the two 64-register softmax builds, r8), not yet run on a GPU.

    python bench/probe_cols_hold_cuda.py [--out DIR]
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

from kernel_zoo import cuda_ext, ops  # noqa: E402
from row_probes import rel_err, time_beside_copy, write_probe  # noqa: E402
from verifier.timing import L2Flusher  # noqa: E402

R = 1000  # the reduced length the kernels are built for
SHAPES = ((32, R, 1024), (2, R, 128))  # the row of #3, and a small one checked only

# name -> (W columns a tile, THREADS a block, REG_STEPS held in registers, MIN_BLOCKS an SM)
VARIANTS = {
    "w64_t1024_r8": (64, 1024, 8, 1),
    "w64_t1024_r6": (64, 1024, 6, 1),
    "w64_t512_r16": (64, 512, 16, 1),
    "w64_t512_r12": (64, 512, 12, 1),
    "w32_t512_r8": (32, 512, 8, 2),
    "w32_t256_r16": (32, 256, 16, 2),
}

KERNEL = r"""
#include <cuda_runtime.h>
#include <cuda_pipeline.h>
#include <math.h>
#include <stdint.h>

#define LOG2E 1.4426950408889634f

template <bool IS_MAX>
__device__ __forceinline__ float combine(float a, float b) {
    return IS_MAX ? fmaxf(a, b) : a + b;
}

template <bool IS_MAX>
__device__ __forceinline__ float4 combine4(float4 a, float4 b) {
    return make_float4(combine<IS_MAX>(a.x, b.x), combine<IS_MAX>(a.y, b.y),
                       combine<IS_MAX>(a.z, b.z), combine<IS_MAX>(a.w, b.w));
}

__device__ __forceinline__ float4 shfl_xor4(float4 v, int offset) {
    return make_float4(__shfl_xor_sync(0xffffffffu, v.x, offset),
                       __shfl_xor_sync(0xffffffffu, v.y, offset),
                       __shfl_xor_sync(0xffffffffu, v.z, offset),
                       __shfl_xor_sync(0xffffffffu, v.w, offset));
}

// Each thread's float4 of per-column values combined over every thread that holds the same four
// columns (threadIdx.x % TPR): shuffles across the warp's rows, one partial a warp in `scratch`
// ([NWARPS][W + 4]), a warp a column to finish, the tile's W results in `result`.
template <int W, int THREADS, bool IS_MAX>
__device__ __forceinline__ float4 column_reduce(float4 v, float* scratch, float* result) {
    constexpr int TPR = W / 4, NWARPS = THREADS / 32, STRIDE = W + 4;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, c = threadIdx.x % TPR;
#pragma unroll
    for (int offset = TPR; offset < 32; offset *= 2) v = combine4<IS_MAX>(v, shfl_xor4(v, offset));
    if (lane < TPR) reinterpret_cast<float4*>(scratch + warp * STRIDE)[c] = v;
    __syncthreads();
    for (int col = warp; col < W; col += NWARPS) {
        float a = lane < NWARPS ? scratch[lane * STRIDE + col] : (IS_MAX ? -INFINITY : 0.0f);
#pragma unroll
        for (int offset = 16; offset > 0; offset /= 2)
            a = combine<IS_MAX>(a, __shfl_xor_sync(0xffffffffu, a, offset));
        if (lane == 0) result[col] = a;
    }
    __syncthreads();
    return reinterpret_cast<const float4*>(result)[c];
}

template <int W, int THREADS, int REG_STEPS>
struct Tile {
    static constexpr int TPR = W / 4;                        // threads across a tile row
    static constexpr int RPS = THREADS / TPR;                // tile rows a step
    static constexpr int STEPS = (@R@ + RPS - 1) / RPS;
    static constexpr int SMEM_STEPS = STEPS - REG_STEPS;     // steps held in shared memory
    static constexpr int NWARPS = THREADS / 32;
    static constexpr size_t SMEM_BYTES =
        sizeof(float4) * SMEM_STEPS * THREADS + sizeof(float) * (NWARPS * (W + 4) + W);
};

enum Mode { SOFTMAX = 0, LOG_SOFTMAX = 1, COPY = 2 };

// Tile rows out: the register part's values through `reg_out`, the shared-memory part's through
// `held_out` (rows past R skipped).
template <int W, int THREADS, int REG_STEPS, class RegOut, class HeldOut>
__device__ __forceinline__ void store_tile(float* yb, int64_t inner, const float4 (&v)[REG_STEPS],
                                           const float4* held, RegOut reg_out,
                                           HeldOut held_out) {
    using T = Tile<W, THREADS, REG_STEPS>;
    const int g = threadIdx.x / T::TPR;
#pragma unroll
    for (int s = 0; s < REG_STEPS; ++s) {
        const int k = s * T::RPS + g;
        if (k < @R@) __stcs(reinterpret_cast<float4*>(yb + k * inner), reg_out(v[s]));
    }
#pragma unroll
    for (int s = 0; s < T::SMEM_STEPS; ++s) {
        const int k = (REG_STEPS + s) * T::RPS + g;
        if (k < @R@)
            __stcs(reinterpret_cast<float4*>(yb + k * inner),
                   held_out(held[s * THREADS + threadIdx.x]));
    }
}

// The tile's column max (the register part's first, while the shared-memory part may still be
// landing), then its sum of exponentials, each reduced over the block; softmax or log-softmax
// written. The register part keeps its exponentials; the shared-memory part computes them again.
template <int W, int THREADS, int REG_STEPS, bool LOG>
__device__ __forceinline__ void normalize(float4 (&v)[REG_STEPS], const float4* held,
                                          float* scratch, float* result, float* yb,
                                          int64_t inner) {
    using T = Tile<W, THREADS, REG_STEPS>;
    constexpr int R = @R@, RPS = T::RPS;
    const int g = threadIdx.x / T::TPR;
    float4 m = v[0];
#pragma unroll
    for (int s = 1; s < REG_STEPS; ++s) m = combine4<true>(m, v[s]);
    __pipeline_wait_prior(0);  // the shared-memory part has landed
#pragma unroll
    for (int s = 0; s < T::SMEM_STEPS; ++s)
        if ((REG_STEPS + s) * RPS + g < R) m = combine4<true>(m, held[s * THREADS + threadIdx.x]);
    m = column_reduce<W, THREADS, true>(m, scratch, result);
    // a column of -inf only: exponentials of x - 0 (0), as the served kernels keep NaN out
    const float4 ms = make_float4(m.x == -INFINITY ? 0.0f : m.x, m.y == -INFINITY ? 0.0f : m.y,
                                  m.z == -INFINITY ? 0.0f : m.z, m.w == -INFINITY ? 0.0f : m.w);
    const float4 mb = make_float4(ms.x * LOG2E, ms.y * LOG2E, ms.z * LOG2E, ms.w * LOG2E);

    float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
    for (int s = 0; s < REG_STEPS; ++s) {
        float4 e;
        e.x = exp2f(fmaf(v[s].x, LOG2E, -mb.x));
        e.y = exp2f(fmaf(v[s].y, LOG2E, -mb.y));
        e.z = exp2f(fmaf(v[s].z, LOG2E, -mb.z));
        e.w = exp2f(fmaf(v[s].w, LOG2E, -mb.w));
        sum = combine4<false>(sum, e);
        if (!LOG) v[s] = e;  // softmax writes e / sum: the exponentials are kept
    }
#pragma unroll
    for (int s = 0; s < T::SMEM_STEPS; ++s) {
        if ((REG_STEPS + s) * RPS + g < R) {
            const float4 h = held[s * THREADS + threadIdx.x];
            sum.x += exp2f(fmaf(h.x, LOG2E, -mb.x));
            sum.y += exp2f(fmaf(h.y, LOG2E, -mb.y));
            sum.z += exp2f(fmaf(h.z, LOG2E, -mb.z));
            sum.w += exp2f(fmaf(h.w, LOG2E, -mb.w));
        }
    }
    sum = column_reduce<W, THREADS, false>(sum, scratch, result);
    // softmax writes e * a, log-softmax x - b
    const float4 a = make_float4(1.0f / sum.x, 1.0f / sum.y, 1.0f / sum.z, 1.0f / sum.w);
    const float4 b = make_float4(ms.x + logf(sum.x), ms.y + logf(sum.y), ms.z + logf(sum.z),
                                 ms.w + logf(sum.w));

    if constexpr (LOG) {
        auto out = [b](float4 h) {
            return make_float4(h.x - b.x, h.y - b.y, h.z - b.z, h.w - b.w);
        };
        store_tile<W, THREADS, REG_STEPS>(yb, inner, v, held, out, out);
    } else {
        auto scaled = [a](float4 e) {
            return make_float4(e.x * a.x, e.y * a.y, e.z * a.z, e.w * a.w);
        };
        auto from_held = [a, mb](float4 h) {
            return make_float4(exp2f(fmaf(h.x, LOG2E, -mb.x)) * a.x,
                               exp2f(fmaf(h.y, LOG2E, -mb.y)) * a.y,
                               exp2f(fmaf(h.z, LOG2E, -mb.z)) * a.z,
                               exp2f(fmaf(h.w, LOG2E, -mb.w)) * a.w);
        };
        store_tile<W, THREADS, REG_STEPS>(yb, inner, v, held, scaled, from_held);
    }
}

// MODE COPY writes the tile as read: the walk's own cost, no reductions or arithmetic.
template <int W, int THREADS, int REG_STEPS, int MIN_BLOCKS, int MODE>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
cols_hold(const float* __restrict__ x, float* __restrict__ y, int64_t inner) {
    using T = Tile<W, THREADS, REG_STEPS>;
    constexpr int R = @R@, RPS = T::RPS;
    static_assert(W % 4 == 0 && T::TPR <= 32 && THREADS % T::TPR == 0, "tile layout");
    static_assert(REG_STEPS >= 1 && T::SMEM_STEPS >= 0, "steps");
    extern __shared__ float4 held[];                          // [SMEM_STEPS][THREADS]
    float* scratch = reinterpret_cast<float*>(held + T::SMEM_STEPS * THREADS);
    float* result = scratch + T::NWARPS * (W + 4);
    const int64_t tiles = inner / W;
    const int64_t o = blockIdx.x / tiles, j0 = (blockIdx.x % tiles) * W;
    const int c = threadIdx.x % T::TPR, g = threadIdx.x / T::TPR;
    const int64_t offset = o * R * inner + j0 + 4 * c;
    const float* xb = x + offset;
    float* yb = y + offset;

#pragma unroll
    for (int s = 0; s < T::SMEM_STEPS; ++s) {
        const int k = (REG_STEPS + s) * RPS + g;
        if (k < R) __pipeline_memcpy_async(&held[s * THREADS + threadIdx.x], xb + k * inner, 16);
    }
    __pipeline_commit();
    float4 v[REG_STEPS];
#pragma unroll
    for (int s = 0; s < REG_STEPS; ++s) {
        const int k = s * RPS + g;
        v[s] = k < R ? __ldg(reinterpret_cast<const float4*>(xb + k * inner))
                     : make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
    }

    if constexpr (MODE == COPY) {
        __pipeline_wait_prior(0);
        auto same = [](float4 value) { return value; };
        store_tile<W, THREADS, REG_STEPS>(yb, inner, v, held, same, same);
    } else {
        normalize<W, THREADS, REG_STEPS, MODE == LOG_SOFTMAX>(v, held, scratch, result, yb, inner);
    }
}
"""

ENTRY = r"""
extern "C" int run_{name}(const float* x, float* y, int64_t outer, int64_t inner,
                          cudaStream_t stream) {{
    auto kernel = cols_hold<{args}>;
    const size_t smem = Tile<{tile}>::SMEM_BYTES;
    cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           (int)smem);
    if (err != cudaSuccess) return (int)err;
    kernel<<<(unsigned)(outer * (inner / {w})), {threads}, smem, stream>>>(x, y, inner);
    return (int)cudaGetLastError();
}}
extern "C" int info_{name}(int* regs, int* local_bytes, int* smem_bytes, int* blocks_per_sm) {{
    auto kernel = cols_hold<{args}>;
    const size_t smem = Tile<{tile}>::SMEM_BYTES;
    cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           (int)smem);
    if (err != cudaSuccess) return (int)err;
    cudaFuncAttributes attr;
    err = cudaFuncGetAttributes(&attr, kernel);
    if (err != cudaSuccess) return (int)err;
    *regs = attr.numRegs;
    *local_bytes = (int)attr.localSizeBytes;
    *smem_bytes = (int)smem;
    return (int)cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, kernel, {threads},
                                                             smem);
}}
"""


MODES = ("softmax", "log_softmax", "copy")  # the kernel's MODE, in its order


def entry_name(name: str, mode: str) -> str:
    return name if mode == "softmax" else f"{mode}_{name}"


def variant_of(entry: str) -> str:
    """The variant an entry point runs (`entry_name`'s inverse)."""
    for mode in MODES[1:]:
        if entry.startswith(f"{mode}_"):
            return entry.removeprefix(f"{mode}_")
    return entry


def source() -> str:
    """The kernel and, for each variant and mode, entry points `run_<entry>` and `info_<entry>`
    (`entry_name`: log-softmax's start with `log_softmax_`, the copy's with `copy_`)."""
    entries = []
    for name, (w, threads, reg_steps, min_blocks) in VARIANTS.items():
        for index, mode in enumerate(MODES):
            entries.append(ENTRY.format(
                name=entry_name(name, mode), w=w, threads=threads,
                tile=f"{w}, {threads}, {reg_steps}",
                args=f"{w}, {threads}, {reg_steps}, {min_blocks}, {index}"))
    return KERNEL.replace("@R@", str(R)) + "".join(entries)


class Probe:
    def __init__(self):
        self.lib = ctypes.CDLL(str(cuda_ext.compile_source(source())))

    def info(self, name: str) -> dict:
        out = [ctypes.c_int(0) for _ in range(4)]
        err = getattr(self.lib, f"info_{name}")(*(ctypes.byref(o) for o in out))
        if err != 0:
            raise RuntimeError(f"info_{name}: CUDA error {err}")
        return dict(zip(("regs", "local_bytes", "smem_bytes", "blocks_per_sm"),
                        (o.value for o in out)))

    def run(self, name: str, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        outer, r, inner = x.shape
        w = VARIANTS[variant_of(name)][0]
        if r != R or inner % w or not x.is_contiguous() or x.dtype != torch.float32:
            raise ValueError(f"{name} takes contiguous float32 (outer, {R}, k * {w})")
        err = getattr(self.lib, f"run_{name}")(
            ctypes.c_void_p(x.data_ptr()), ctypes.c_void_p(y.data_ptr()), ctypes.c_int64(outer),
            ctypes.c_int64(inner), ctypes.c_void_p(torch.cuda.current_stream().cuda_stream))
        if err != 0:
            raise RuntimeError(f"run_{name}: CUDA error {err}")
        return y


def probe_input(shape: tuple[int, int, int]) -> torch.Tensor:
    """Random float32 with a column of -inf only and a column with a run of -inf."""
    x = torch.randn(shape, device="cuda") * 4.0
    x[0, :, 3] = float("-inf")
    x[-1, 100:700, 5] = float("-inf")
    return x


def probe_shape(probe: Probe, shape, flusher: L2Flusher | None, time_it: bool) -> dict:
    """Each variant's relative error against float64 torch over dim 1 at `shape` (and the zoo's);
    with `time_it`, the correct ones timed beside the zoo and a copy."""
    x = probe_input(shape)
    found: dict = {"shape": list(shape), "errors": {}, "us_graphs": {}}
    fns = {}
    for mode in MODES:
        if mode == "copy":
            ref = x.double()
        else:
            ref = getattr(torch, mode)(x.double(), dim=1)
            zoo = getattr(ops, mode)
            found["errors"][f"zoo_{mode}"] = rel_err(zoo(x, dim=1), ref)
            fns[f"zoo_{mode}"] = (lambda z=zoo: z(x, dim=1))
        for name in VARIANTS:
            entry = entry_name(name, mode)
            y = torch.full_like(x, float("nan"))
            try:
                probe.run(entry, x, y)
                torch.cuda.synchronize()
            except Exception as exc:  # a variant that does not launch is reported, not timed
                found["errors"][entry] = f"{type(exc).__name__}: {str(exc)[:400]}"
                continue
            err = rel_err(y, ref)
            found["errors"][entry] = err
            print(f"{'x'.join(map(str, shape))} {entry}: rel err {err:.2e}", flush=True)
            if err < 1e-5:
                fns[entry] = (lambda e=entry, out=y: probe.run(e, x, out))
    if time_it:
        us, failed = time_beside_copy(x, fns, flusher, "x".join(map(str, shape)))
        found.update(us_graphs=us, graph_capture_failed=failed)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "runs"))
    args = parser.parse_args()
    torch.manual_seed(0)
    probe = Probe()
    info = {}
    for name in VARIANTS:
        for mode in MODES:
            entry = entry_name(name, mode)
            try:
                info[entry] = probe.info(entry)
            except RuntimeError as exc:
                info[entry] = str(exc)
            print(entry, info[entry], flush=True)
    flusher = L2Flusher(torch.device("cuda"))
    shapes = [probe_shape(probe, shape, flusher, time_it=i == 0) for i, shape in enumerate(SHAPES)]
    write_probe(args.out, "probe-cols-hold-cuda",
                "float32 softmax and log-softmax over dim 1: a CUDA C++ block a 1000 x W column "
                "tile, held part in registers and part in shared memory (and the same walk as a "
                "copy); against kernel_zoo.ops over dim 1 and a copy of the same bytes; "
                "CUDA-graph replays, L2 flushed, medians in us", shapes, kernels=info,
                variants="w<tile columns>_t<threads a block>_r<steps held in registers>; "
                         "log_softmax_ for log-softmax, copy_ for the walk with no arithmetic")


if __name__ == "__main__":
    main()
