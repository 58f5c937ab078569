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
- or a cluster of CLUSTER blocks a tile (`c<CLUSTER>_` variants), each block R / CLUSTER of its
  rows: a 64- or 128-wide tile in the footprint of a 32-wide one, so two blocks fit an SM; the
  blocks' column max and sum meet in distributed shared memory (cooperative_groups' cluster);
- a column's max, then its sum of exponentials, reduced across the threads holding it (warp
  shuffles, then one partial a warp through shared memory); softmax keeps the exponentials where
  it holds x (one exponential an element);
- `__launch_bounds__(THREADS, MIN_BLOCKS)`: e.g. a 64-wide tile's block fills an SM (1024 threads
  at 64 registers); 32-wide tiles, and the clusters' halves of 64-wide ones, fit two blocks an SM;
- each variant also as a copy (`copy_<variant>`): the same loads, holding and stores with no
  reduction or arithmetic, the walk's own ceiling.

A probe, not a template: float32, contiguous, inner a multiple of W; the reduced length R is a
compile-time constant (1000). Outputs are checked against float64 first, at the probe shape and a
small one; timed as CUDA-graph replays, interleaved and L2-flushed (verifier.timing), beside
kernel_zoo.ops over dim 1 and a copy of the same bytes; each variant's registers, local memory
(spills), shared memory and blocks an SM come from the CUDA runtime. The verifier's CUDA guards
refuse `cuda_pipeline.h` in a candidate: a template would need them to admit it, or a cp.async
wrapper in `kzoo_sm90.cuh`. Writes <out>/probe-cols-hold-cuda-<device>.json.

Round 460, first run (bench/results/runs/probe-cols-hold-cuda-h200-round460.json; six variants,
no clusters, softmax computing the shared-memory part's exponentials twice): beside the zoo's 72.90
(softmax) and 72.77 us (log-softmax) and a 63.52 us copy, the 64-wide tiles at one block an SM
lost (softmax 81-87 us, log-softmax 80-86) though their copies walked fastest (67.7-68.8 us);
w32_t512_r8, two blocks an SM, gave 74.37 (softmax) and 69.86 us (log-softmax; its copy 71.07).
#3's bar is 0.90 of the yardstick: about 0.939 of the zoo's time in the same run.

Second run (round460b.json; clusters, softmax keeping its exponentials): softmax w32_t512_r6
71.01 us and log-softmax w32_t512_r8 69.90 beside the zoo's 73.07 and 73.02 (0.972 and 0.957 of
it). Every cluster lost (79-103 us) though its copy walked fastest (c2_w64: 67.6-67.9 us): the
cluster's barriers hold the SMs in step, so no block loads while its partners compute.

Third run (round460c.json; PAIR, FAST): one (max, sum) reduction lost (softmax 71.5-81 us,
log-softmax 72.4-73.8), __expf changed nothing beyond noise (softmax 70.82 against 71.15). Best:
softmax f_w32_t512_r6 70.82 us (0.969 of the zoo's 73.06), log-softmax w32_t512_r8 69.47 (0.949
of 73.17). The verdict: the 32-wide walk itself, as a copy with no arithmetic, takes 70.0-71.0
us, above the ~68.6 us the bar allows, and only the 64-wide walks (68.0-69.0 us as copies) are
under it, with nothing to spare for the reductions (80-89 us as softmax). A held column tile does
not reach 0.90 of the yardstick at 32x1000x1024; no template follows from this probe.

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

# name -> (W columns a tile, THREADS a block, REG_STEPS held in registers, MIN_BLOCKS an SM,
#          CLUSTER blocks sharing a tile's rows, PAIR one (max, sum) reduction, FAST __expf);
# prefixes: p_ PAIR, f_ FAST, c<CLUSTER>_ a cluster. Round 460 timed w64_t1024_r6, w64_t512_r16,
# w64_t512_r12, w32_t256_r16 (first run), w32_t1024_r4, w32_t256_r14, c2_w32_t256_r8,
# c2_w64_t512_r6, c2_w64_t1024_r4, c2_w64_t256_r14, c4_w128_t512_r8 (second run) too: all
# slower than w32_t512_r8 or w32_t512_r6.
VARIANTS = {
    "w32_t512_r8": (32, 512, 8, 2, 1, False, False),
    "w32_t512_r6": (32, 512, 6, 2, 1, False, False),
    "f_w32_t512_r6": (32, 512, 6, 2, 1, False, True),
    "p_w32_t512_r8": (32, 512, 8, 2, 1, True, False),
    "p_w32_t512_r6": (32, 512, 6, 2, 1, True, False),
    "pf_w32_t512_r8": (32, 512, 8, 2, 1, True, True),
    "pf_w32_t512_r6": (32, 512, 6, 2, 1, True, True),
    "pf_w32_t512_r4": (32, 512, 4, 2, 1, True, True),
    "pf_w64_t1024_r8": (64, 1024, 8, 1, 1, True, True),
    "pf_c2_w64_t512_r8": (64, 512, 8, 2, 2, True, True),
}

KERNEL = r"""
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <cuda_pipeline.h>
#include <math.h>
#include <stdint.h>

#define LOG2E 1.4426950408889634f

namespace cg = cooperative_groups;

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

// exp(x - m), m a column's max with -inf taken as 0 and mb = m * log2(e): FAST as __expf (flush
// to zero, ex2.approx.ftz), else as exp2f (denormal results kept).
template <bool FAST>
__device__ __forceinline__ float4 exp4(float4 x, float4 m, float4 mb) {
    if constexpr (FAST) {
        return make_float4(__expf(x.x - m.x), __expf(x.y - m.y), __expf(x.z - m.z),
                           __expf(x.w - m.w));
    } else {
        return make_float4(exp2f(fmaf(x.x, LOG2E, -mb.x)), exp2f(fmaf(x.y, LOG2E, -mb.y)),
                           exp2f(fmaf(x.z, LOG2E, -mb.z)), exp2f(fmaf(x.w, LOG2E, -mb.w)));
    }
}

__device__ __forceinline__ float4 finite_max4(float4 m) {  // a column of -inf only: 0
    return make_float4(m.x == -INFINITY ? 0.0f : m.x, m.y == -INFINITY ? 0.0f : m.y,
                       m.z == -INFINITY ? 0.0f : m.z, m.w == -INFINITY ? 0.0f : m.w);
}

__device__ __forceinline__ float4 scale4(float4 m, float a) {
    return make_float4(m.x * a, m.y * a, m.z * a, m.w * a);
}

// s, a sum of exp(x - m), as a sum of exp(x - M) for M >= m (an empty sum, m = -inf, stays 0; a
// +inf in the column gives NaN, as torch does).
__device__ __forceinline__ float rescale(float s, float m, float M) {
    return m == -INFINITY ? 0.0f : s * exp2f((m - M) * LOG2E);
}

// (m, s) and (m2, s2), two parts' max and sum of exp(x - max), as the pair of the parts together
__device__ __forceinline__ void pair_combine(float& m, float& s, float m2, float s2) {
    const float M = fmaxf(m, m2);
    s = rescale(s, m, M) + rescale(s2, m2, M);
    m = M;
}

__device__ __forceinline__ void pair_combine4(float4& m, float4& s, float4 m2, float4 s2) {
    pair_combine(m.x, s.x, m2.x, s2.x);
    pair_combine(m.y, s.y, m2.y, s2.y);
    pair_combine(m.z, s.z, m2.z, s2.z);
    pair_combine(m.w, s.w, m2.w, s2.w);
}

// Each thread's float4 of per-column values combined over every thread that holds the same four
// columns (threadIdx.x % TPR): shuffles across the warp's rows, one partial a warp in `scratch`
// ([NWARPS][W + 4]), a warp a column to finish, the block's W results in `result`; in a cluster,
// combined with the other blocks' `result` through distributed shared memory.
template <int W, int THREADS, int CLUSTER, bool IS_MAX>
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
    if constexpr (CLUSTER == 1) {
        __syncthreads();
        return reinterpret_cast<const float4*>(result)[c];
    } else {
        cg::cluster_group cluster = cg::this_cluster();
        cluster.sync();  // every block's result written (and `scratch` free again)
        float4 r = reinterpret_cast<const float4*>(result)[c];
        const unsigned rank = cluster.block_rank();
#pragma unroll
        for (unsigned other = 1; other < CLUSTER; ++other)
            r = combine4<IS_MAX>(r, reinterpret_cast<const float4*>(
                cluster.map_shared_rank(result, (rank + other) % CLUSTER))[c]);
        return r;
    }
}

// A block's part of a tile: RC = R / CLUSTER rows (a cluster of CLUSTER blocks holds the tile).
// column_reduce for (max, sum of exp(x - max)) pairs: one reduction where the max and then the
// sum took two. `scratch` holds [2][NWARPS][W + 4], `result` the W maxes then the W sums.
template <int W, int THREADS, int CLUSTER>
__device__ __forceinline__ void pair_reduce(float4& m, float4& s, float* scratch, float* result) {
    constexpr int TPR = W / 4, NWARPS = THREADS / 32, STRIDE = W + 4;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, c = threadIdx.x % TPR;
#pragma unroll
    for (int offset = TPR; offset < 32; offset *= 2)
        pair_combine4(m, s, shfl_xor4(m, offset), shfl_xor4(s, offset));
    if (lane < TPR) {
        reinterpret_cast<float4*>(scratch + warp * STRIDE)[c] = m;
        reinterpret_cast<float4*>(scratch + (NWARPS + warp) * STRIDE)[c] = s;
    }
    __syncthreads();
    for (int col = warp; col < W; col += NWARPS) {
        float am = -INFINITY, as = 0.0f;
        if (lane < NWARPS) {
            am = scratch[lane * STRIDE + col];
            as = scratch[(NWARPS + lane) * STRIDE + col];
        }
#pragma unroll
        for (int offset = 16; offset > 0; offset /= 2)
            pair_combine(am, as, __shfl_xor_sync(0xffffffffu, am, offset),
                         __shfl_xor_sync(0xffffffffu, as, offset));
        if (lane == 0) {
            result[col] = am;
            result[W + col] = as;
        }
    }
    if constexpr (CLUSTER == 1) {
        __syncthreads();
    } else {
        cg::cluster_group cluster = cg::this_cluster();
        cluster.sync();
        const unsigned rank = cluster.block_rank();
        float4 cm = reinterpret_cast<const float4*>(result)[c];
        float4 cs = reinterpret_cast<const float4*>(result + W)[c];
#pragma unroll
        for (unsigned other = 1; other < CLUSTER; ++other) {
            const float* theirs = cluster.map_shared_rank(result, (rank + other) % CLUSTER);
            pair_combine4(cm, cs, reinterpret_cast<const float4*>(theirs)[c],
                          reinterpret_cast<const float4*>(theirs + W)[c]);
        }
        m = cm;
        s = cs;
        return;
    }
    m = reinterpret_cast<const float4*>(result)[c];
    s = reinterpret_cast<const float4*>(result + W)[c];
}

template <int W, int THREADS, int REG_STEPS, int CLUSTER>
struct Tile {
    static constexpr int RC = @R@ / CLUSTER;                 // tile rows this block holds
    static constexpr int TPR = W / 4;                        // threads across a tile row
    static constexpr int RPS = THREADS / TPR;                // tile rows a step
    static constexpr int STEPS = (RC + RPS - 1) / RPS;
    static constexpr int SMEM_STEPS = STEPS - REG_STEPS;     // steps held in shared memory
    static constexpr int NWARPS = THREADS / 32;
    // the held steps, the warps' partials (pairs), and the column max and sum (read by the cluster)
    static constexpr size_t SMEM_BYTES =
        sizeof(float4) * SMEM_STEPS * THREADS + sizeof(float) * (2 * NWARPS * (W + 4) + 2 * W);
};

enum Mode { SOFTMAX = 0, LOG_SOFTMAX = 1, COPY = 2 };

// Tile rows out: the register part's values through `reg_out`, the shared-memory part's through
// `held_out` (rows past R skipped).
template <int W, int THREADS, int REG_STEPS, int CLUSTER, class RegOut, class HeldOut>
__device__ __forceinline__ void store_tile(float* yb, int64_t inner, const float4 (&v)[REG_STEPS],
                                           const float4* held, RegOut reg_out,
                                           HeldOut held_out) {
    using T = Tile<W, THREADS, REG_STEPS, CLUSTER>;
    const int g = threadIdx.x / T::TPR;
#pragma unroll
    for (int s = 0; s < REG_STEPS; ++s) {
        const int k = s * T::RPS + g;
        if (k < T::RC) __stcs(reinterpret_cast<float4*>(yb + k * inner), reg_out(v[s]));
    }
#pragma unroll
    for (int s = 0; s < T::SMEM_STEPS; ++s) {
        const int k = (REG_STEPS + s) * T::RPS + g;
        if (k < T::RC)
            __stcs(reinterpret_cast<float4*>(yb + k * inner),
                   held_out(held[s * THREADS + threadIdx.x]));
    }
}

// The tile's column max (the register part's first, while the shared-memory part may still be
// landing), then its sum of exponentials, each reduced over the block; softmax or log-softmax
// written. Softmax keeps its exponentials where it holds x (registers, shared memory), one
// exponential an element.
template <int W, int THREADS, int REG_STEPS, int CLUSTER, bool FAST, bool LOG>
__device__ __forceinline__ void normalize(float4 (&v)[REG_STEPS], float4* held,
                                          float* scratch, float* result, float* yb,
                                          int64_t inner) {
    using T = Tile<W, THREADS, REG_STEPS, CLUSTER>;
    constexpr int R = T::RC, RPS = T::RPS;
    const int g = threadIdx.x / T::TPR;
    float4 m = v[0];
#pragma unroll
    for (int s = 1; s < REG_STEPS; ++s) m = combine4<true>(m, v[s]);
    __pipeline_wait_prior(0);  // the shared-memory part has landed
#pragma unroll
    for (int s = 0; s < T::SMEM_STEPS; ++s)
        if ((REG_STEPS + s) * RPS + g < R) m = combine4<true>(m, held[s * THREADS + threadIdx.x]);
    m = column_reduce<W, THREADS, CLUSTER, true>(m, scratch, result);
    // a column of -inf only: exponentials of x - 0 (0), as the served kernels keep NaN out
    const float4 ms = finite_max4(m), mb = scale4(ms, LOG2E);

    float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
    for (int s = 0; s < REG_STEPS; ++s) {
        const float4 e = exp4<FAST>(v[s], ms, mb);
        sum = combine4<false>(sum, e);
        if (!LOG) v[s] = e;  // softmax writes e / sum: the exponentials are kept
    }
#pragma unroll
    for (int s = 0; s < T::SMEM_STEPS; ++s) {
        if ((REG_STEPS + s) * RPS + g < R) {
            const float4 e = exp4<FAST>(held[s * THREADS + threadIdx.x], ms, mb);
            sum = combine4<false>(sum, e);
            if (!LOG) held[s * THREADS + threadIdx.x] = e;  // this thread's own slot
        }
    }
    sum = column_reduce<W, THREADS, CLUSTER, false>(sum, scratch, result + W);
    // softmax writes e * a, log-softmax x - b
    const float4 a = make_float4(1.0f / sum.x, 1.0f / sum.y, 1.0f / sum.z, 1.0f / sum.w);
    const float4 b = make_float4(ms.x + logf(sum.x), ms.y + logf(sum.y), ms.z + logf(sum.z),
                                 ms.w + logf(sum.w));

    if constexpr (LOG) {
        auto out = [b](float4 h) {
            return make_float4(h.x - b.x, h.y - b.y, h.z - b.z, h.w - b.w);
        };
        store_tile<W, THREADS, REG_STEPS, CLUSTER>(yb, inner, v, held, out, out);
    } else {
        auto scaled = [a](float4 e) {
            return make_float4(e.x * a.x, e.y * a.y, e.z * a.z, e.w * a.w);
        };
        store_tile<W, THREADS, REG_STEPS, CLUSTER>(yb, inner, v, held, scaled, scaled);
    }
}

// normalize with one reduction: the register part's max and exponentials first (while the
// shared-memory part may still be landing), then the shared-memory part's max; the register
// part's exponentials and sum moved to the thread's max, the shared-memory part's taken against
// it; the thread's (max, sum) reduced over the tile (pair_reduce). Softmax scales the
// exponentials by exp(thread max - tile max) / sum.
template <int W, int THREADS, int REG_STEPS, int CLUSTER, bool FAST, bool LOG>
__device__ __forceinline__ void normalize_pair(float4 (&v)[REG_STEPS], float4* held,
                                               float* scratch, float* result, float* yb,
                                               int64_t inner) {
    using T = Tile<W, THREADS, REG_STEPS, CLUSTER>;
    constexpr int R = T::RC, RPS = T::RPS;
    const int g = threadIdx.x / T::TPR;
    float4 mr = v[0];
#pragma unroll
    for (int s = 1; s < REG_STEPS; ++s) mr = combine4<true>(mr, v[s]);
    const float4 mrs = finite_max4(mr), mrb = scale4(mrs, LOG2E);
    float4 sr = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
    for (int s = 0; s < REG_STEPS; ++s) {
        const float4 e = exp4<FAST>(v[s], mrs, mrb);
        sr = combine4<false>(sr, e);
        if (!LOG) v[s] = e;
    }
    __pipeline_wait_prior(0);  // the shared-memory part has landed
    float4 m = mr;
#pragma unroll
    for (int s = 0; s < T::SMEM_STEPS; ++s)
        if ((REG_STEPS + s) * RPS + g < R) m = combine4<true>(m, held[s * THREADS + threadIdx.x]);
    // the register part against the thread's max m (mr = -inf: its exponentials are all 0)
    const float4 to_m = make_float4(rescale(1.0f, mr.x, m.x), rescale(1.0f, mr.y, m.y),
                                    rescale(1.0f, mr.z, m.z), rescale(1.0f, mr.w, m.w));
    float4 sum = make_float4(sr.x * to_m.x, sr.y * to_m.y, sr.z * to_m.z, sr.w * to_m.w);
    if constexpr (!LOG) {
#pragma unroll
        for (int s = 0; s < REG_STEPS; ++s)
            v[s] = make_float4(v[s].x * to_m.x, v[s].y * to_m.y, v[s].z * to_m.z,
                               v[s].w * to_m.w);
    }
    const float4 ms = finite_max4(m), mb = scale4(ms, LOG2E);
#pragma unroll
    for (int s = 0; s < T::SMEM_STEPS; ++s) {
        if ((REG_STEPS + s) * RPS + g < R) {
            const float4 e = exp4<FAST>(held[s * THREADS + threadIdx.x], ms, mb);
            sum = combine4<false>(sum, e);
            if (!LOG) held[s * THREADS + threadIdx.x] = e;  // this thread's own slot
        }
    }
    const float4 mt = m;  // the thread's max
    pair_reduce<W, THREADS, CLUSTER>(m, sum, scratch, result);
    if constexpr (LOG) {
        const float4 mf = finite_max4(m);
        const float4 b = make_float4(mf.x + logf(sum.x), mf.y + logf(sum.y), mf.z + logf(sum.z),
                                     mf.w + logf(sum.w));
        auto out = [b](float4 h) {
            return make_float4(h.x - b.x, h.y - b.y, h.z - b.z, h.w - b.w);
        };
        store_tile<W, THREADS, REG_STEPS, CLUSTER>(yb, inner, v, held, out, out);
    } else {
        // exp(thread max - tile max) / sum; a thread of -inf only has exponentials 0: 1 / sum (0
        // in a column with a number, NaN in a column of -inf only, as torch gives)
        auto thread_scale = [](float tm, float M, float total) {
            return (tm == -INFINITY ? 1.0f : exp2f((tm - M) * LOG2E)) / total;
        };
        const float4 a = make_float4(
            thread_scale(mt.x, m.x, sum.x), thread_scale(mt.y, m.y, sum.y),
            thread_scale(mt.z, m.z, sum.z), thread_scale(mt.w, m.w, sum.w));
        auto scaled = [a](float4 e) {
            return make_float4(e.x * a.x, e.y * a.y, e.z * a.z, e.w * a.w);
        };
        store_tile<W, THREADS, REG_STEPS, CLUSTER>(yb, inner, v, held, scaled, scaled);
    }
}

// MODE COPY writes the tile as read: the walk's own cost, no reductions or arithmetic. A cluster
// of CLUSTER blocks (consecutive blocks, launched with that cluster dimension) shares a tile, each
// block RC of its rows; the blocks' column max and sum meet in distributed shared memory. PAIR:
// normalize_pair, its register loads issued before the shared-memory copies (normalize: after).
template <int W, int THREADS, int REG_STEPS, int MIN_BLOCKS, int CLUSTER, bool PAIR, bool FAST,
          int MODE>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
cols_hold(const float* __restrict__ x, float* __restrict__ y, int64_t inner) {
    using T = Tile<W, THREADS, REG_STEPS, CLUSTER>;
    constexpr int R = T::RC, RPS = T::RPS;
    static_assert(W % 4 == 0 && T::TPR <= 32 && THREADS % T::TPR == 0, "tile layout");
    static_assert(REG_STEPS >= 1 && T::SMEM_STEPS >= 0, "steps");
    extern __shared__ float4 held[];                          // [SMEM_STEPS][THREADS]
    float* scratch = reinterpret_cast<float*>(held + T::SMEM_STEPS * THREADS);
    float* result = scratch + 2 * T::NWARPS * (W + 4);
    const int64_t tiles = inner / W;
    const int64_t tile = blockIdx.x / CLUSTER, o = tile / tiles, j0 = (tile % tiles) * W;
    const int c = threadIdx.x % T::TPR, g = threadIdx.x / T::TPR;
    const int rank = CLUSTER == 1 ? 0 : (int)cg::this_cluster().block_rank();
    const int64_t offset = (o * @R@ + rank * R) * inner + j0 + 4 * c;
    const float* xb = x + offset;
    float* yb = y + offset;

    auto copy_held = [&]() {
#pragma unroll
        for (int s = 0; s < T::SMEM_STEPS; ++s) {
            const int k = (REG_STEPS + s) * RPS + g;
            if (k < R)
                __pipeline_memcpy_async(&held[s * THREADS + threadIdx.x], xb + k * inner, 16);
        }
        __pipeline_commit();
    };
    float4 v[REG_STEPS];
    if constexpr (!PAIR) copy_held();
#pragma unroll
    for (int s = 0; s < REG_STEPS; ++s) {
        const int k = s * RPS + g;
        v[s] = k < R ? __ldg(reinterpret_cast<const float4*>(xb + k * inner))
                     : make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
    }
    if constexpr (PAIR) copy_held();

    if constexpr (MODE == COPY) {
        __pipeline_wait_prior(0);
        auto same = [](float4 value) { return value; };
        store_tile<W, THREADS, REG_STEPS, CLUSTER>(yb, inner, v, held, same, same);
    } else if constexpr (PAIR) {
        normalize_pair<W, THREADS, REG_STEPS, CLUSTER, FAST, MODE == LOG_SOFTMAX>(
            v, held, scratch, result, yb, inner);
    } else {
        normalize<W, THREADS, REG_STEPS, CLUSTER, FAST, MODE == LOG_SOFTMAX>(
            v, held, scratch, result, yb, inner);
        // the other blocks may still read this block's sums
        if constexpr (CLUSTER > 1) cg::this_cluster().sync();
    }
}
"""

ENTRY = r"""
static cudaLaunchConfig_t config_{name}(dim3 grid, cudaStream_t stream,
                                       cudaLaunchAttribute* cluster) {{
    cudaLaunchConfig_t config = {{}};
    config.gridDim = grid;
    config.blockDim = dim3({threads});
    config.dynamicSmemBytes = Tile<{tile}>::SMEM_BYTES;
    config.stream = stream;
    cluster->id = cudaLaunchAttributeClusterDimension;
    cluster->val.clusterDim.x = {cluster};
    cluster->val.clusterDim.y = 1;
    cluster->val.clusterDim.z = 1;
    config.attrs = cluster;
    config.numAttrs = 1;
    return config;
}}
extern "C" int run_{name}(const float* x, float* y, int64_t outer, int64_t inner,
                          cudaStream_t stream) {{
    auto kernel = cols_hold<{args}>;
    const size_t smem = Tile<{tile}>::SMEM_BYTES;
    cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           (int)smem);
    if (err != cudaSuccess) return (int)err;
    cudaLaunchAttribute cluster;
    cudaLaunchConfig_t config = config_{name}(
        dim3((unsigned)(outer * (inner / {w}) * {cluster})), stream, &cluster);
    return (int)cudaLaunchKernelEx(&config, kernel, x, y, inner);
}}
extern "C" int info_{name}(int* regs, int* local_bytes, int* smem_bytes, int* blocks_per_sm,
                           int* active_clusters) {{
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
    err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, kernel, {threads}, smem);
    if (err != cudaSuccess) return (int)err;
    cudaLaunchAttribute cluster;
    cudaLaunchConfig_t config = config_{name}(dim3(1024 * {cluster}), 0, &cluster);
    return (int)cudaOccupancyMaxActiveClusters(active_clusters, kernel, &config);
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
    for name, (w, threads, reg_steps, min_blocks, cluster, pair, fast) in VARIANTS.items():
        for index, mode in enumerate(MODES):
            entries.append(ENTRY.format(
                name=entry_name(name, mode), w=w, threads=threads, cluster=cluster,
                tile=f"{w}, {threads}, {reg_steps}, {cluster}",
                args=f"{w}, {threads}, {reg_steps}, {min_blocks}, {cluster}, "
                     f"{str(pair).lower()}, {str(fast).lower()}, {index}"))
    return KERNEL.replace("@R@", str(R)) + "".join(entries)


class Probe:
    def __init__(self):
        self.lib = ctypes.CDLL(str(cuda_ext.compile_source(source())))

    def info(self, name: str) -> dict:
        out = [ctypes.c_int(0) for _ in range(5)]
        err = getattr(self.lib, f"info_{name}")(*(ctypes.byref(o) for o in out))
        if err != 0:
            raise RuntimeError(f"info_{name}: CUDA error {err}")
        return dict(zip(("regs", "local_bytes", "smem_bytes", "blocks_per_sm", "active_clusters"),
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
    """Random float32 with a column of -inf only, a column with a run of -inf (whole register
    parts of some threads), a column with a +inf and one with a NaN (NaN columns, as torch
    gives)."""
    x = torch.randn(shape, device="cuda") * 4.0
    x[0, :, 3] = float("-inf")
    x[-1, 100:700, 5] = float("-inf")
    x[-1, 10, 7] = float("inf")
    x[-1, 900, 9] = float("nan")
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
