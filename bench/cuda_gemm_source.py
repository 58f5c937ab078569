"""The CUDA C++ source of a Hopper GEMM with a fused bias + erf-GELU epilogue, for
bench/probe_cuda_gemm.py: warp-specialized (one producer warpgroup issuing TMA loads, two consumer
warpgroups issuing wgmma), persistent, and optionally run in thread-block clusters of 2 CTAs along
M whose weight tile is loaded once from L2 and multicast into both CTAs' shared memory.

    source(cluster=2, store=3, stages=4, bn=192, bias_early=True)  # round 452's fastest
    cuda_ext.load(src, SIGNATURES, arch_specific=True)  # wgmma and setmaxnreg need sm_90a

C = gelu(A @ W^T + bias): A is M x K and W is N x K, both row-major bfloat16 (K-major, as
torch.nn.functional.linear takes them), bias N and C M x N bfloat16. Every kernel-side choice is a
compile-time constant of the source. K must be a multiple of 8 (16-byte rows for the TMA maps),
and N too where the tile is TMA-stored; where the consumers store from registers (store 1 and 2),
M, N and K must be multiples of the tile (the entry point refuses others).

It writes no assembly and calls no driver function itself: wgmma, mbarriers, bulk tensor copies,
setmaxnreg and the tensor maps come from kernel-zoo's header `kzoo_sm90.cuh`
(kernel_zoo/cuda_sm90.py), so the source passes the verifier's CUDA guards as a candidate's would
(verifier/cuda_guards.py). It is a measurement; its fastest form is the template `gemm_cuda`
(templates/gemm_cuda.cu.jinja, GPU round 453), whose build a test compares with this one's.
"""
from __future__ import annotations

BM = 128
SMEM_LIMIT = 232448 - 1024 - 256  # an H100/H200 block's dynamic shared memory, less alignment


_SOURCE = r"""
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <stdint.h>
#include "kzoo_sm90.cuh"

#define BM 128
#define BN @BN@  // 256, or 192 (the last column of tiles may be partial)
#define ACC (BN / 2)  // accumulators a consumer thread
#define WGMMA kzoo_wgmma_m64n@BN@k16_bf16
#define BK @BK@  // 64: 128-byte rows, 128-byte swizzle; 32: 64-byte rows, 64-byte swizzle
#define STAGES @STAGES@
#define CLUSTER @CLUSTER@
#define GROUP_M @GROUP_M@
#define GELU @GELU@
// 0: no store (the main loop alone); 1: from the consumers' registers; 2: by the consumers
// through a shared-memory tile and TMA stores; 3: the consumers write acc + bias as bfloat16 into
// a shared-memory tile and go on to their next tile while the producer warpgroup's three other
// warps apply the activation there and TMA-store it (the epilogue overlaps the next main loop);
// 4: as 3 through a staging tile of half the size, each consumer's 64 rows in turn.
#define STORE @STORE@
#define RELEASE_EARLY @RELEASE_EARLY@
#define BIAS_EARLY @BIAS_EARLY@  // STORE 3: each tile's bias read into registers before its loop
// STORE 3: the consumers apply the activation to the float32 accumulators (one rounding, as the
// tasks' contract reads) and hand over the finished values; else the epilogue warps apply it to
// the bfloat16 pre-activation (two roundings, as eager's linear-then-GELU does).
#define ACT_IN_CONSUMERS @ACT_IN_CONSUMERS@
#define ERF_FIT @ERF_FIT@  // GELU's erf from a Chebyshev fit of erfc (1 division, 1 exp)
// STORE 3: the epilogue warps store each 16-byte chunk to global memory themselves, bounds
// checked (no TMA store map, so any N), instead of TMA-storing the tile.
#define DIRECT_STORE @DIRECT_STORE@
#define EPILOGUE_SLEEP_NS @EPILOGUE_SLEEP_NS@  // STORE 3: 0 polls the tile barrier, else sleeps
// STORE 3: the epilogue warps copy each tile's bias (as float32) into shared memory ahead of the
// consumers' handoff, which reads it there: no global loads between the main loop and the handoff.
#define BIAS_SMEM @BIAS_SMEM@
#define THREADS 384

constexpr int A_BYTES = BM * BK * 2;
constexpr int B_BYTES = BN * BK * 2;
constexpr int STAGE_BYTES = A_BYTES + B_BYTES;
constexpr int C_BYTES = STORE == 2 ? 2 * 64 * 128 * 2 : STORE == 3 ? BM * BN * 2
                        : STORE == 4 ? BM * BN : 0;
constexpr int BIAS_BYTES = BIAS_SMEM ? BN * 4 : 0;
constexpr int N_BARS = 2 * STAGES + 4;  // full[STAGES], empty[STAGES], then the staging tile's
constexpr int SMEM_BYTES = STAGES * STAGE_BYTES + C_BYTES + BIAS_BYTES + 1024 + N_BARS * 8;
#if STORE >= 3
#define PRODUCER_REGS 56
#define CONSUMER_REGS 224
#else
#define PRODUCER_REGS 40
#define CONSUMER_REGS 232
#endif

// A consumer warpgroup is done with stage `bar`'s tiles: tell every CTA whose producer fills it.
// The CTA-scoped arrive (kzoo_bar_arrive_cluster): with `.release.cluster` ptxas put a
// MEMBAR.ALL.GPU before each arrive, every K step (round 452, call 1: half cuBLAS's speed).
__device__ __forceinline__ void release(uint32_t bar) {
#if CLUSTER == 1
    kzoo_bar_arrive(bar);
#else
    for (int r = 0; r < CLUSTER; ++r) kzoo_bar_arrive_cluster(bar, r);
#endif
}
// The epilogue warps wait a whole main loop for each tile: between tries they sleep `ns`, so
// their polling leaves the schedulers (and the power budget) to the MMAs.
__device__ __forceinline__ void bar_wait_sleeping(uint32_t bar, uint32_t parity, unsigned ns) {
    while (!kzoo_bar_try_wait(bar, parity)) __nanosleep(ns);
}
__device__ __forceinline__ void store_shared(uint32_t addr, float lo, float hi) {
    __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    kzoo_st_shared_u32(addr, *reinterpret_cast<uint32_t*>(&v));
}
__device__ __forceinline__ uint64_t smem_desc(uint32_t addr) {
    return kzoo_smem_desc(addr, BK * 2);
}
__device__ __forceinline__ void wgmma_tile(float (&d)[ACC], uint64_t desc_a, uint64_t desc_b,
                                           int accumulate) {
    WGMMA(d, desc_a, desc_b, accumulate);
}
// Bias elements c and c + 1 (c even) as a bfloat16 pair, zeros past N (N may be odd).
__device__ __forceinline__ uint32_t bias_pair_at(const __nv_bfloat16* bias, int c, int N) {
    if (c + 1 < N) return *reinterpret_cast<const uint32_t*>(bias + c);
    __nv_bfloat162 pair = __floats2bfloat162_rn(c < N ? __bfloat162float(bias[c]) : 0.0f, 0.0f);
    return *reinterpret_cast<uint32_t*>(&pair);
}

// erfc(z) by Numerical Recipes' erfcc fit: relative error under 1.2e-7 everywhere.
__device__ __forceinline__ float erfc_fit(float z) {
    const float a = fabsf(z);
    const float t = __fdividef(1.0f, 1.0f + 0.5f * a);
    float p = 0.17087277f;
    p = fmaf(p, t, -0.82215223f);
    p = fmaf(p, t, 1.48851587f);
    p = fmaf(p, t, -1.13520398f);
    p = fmaf(p, t, 0.27886807f);
    p = fmaf(p, t, -0.18628806f);
    p = fmaf(p, t, 0.09678418f);
    p = fmaf(p, t, 0.37409196f);
    p = fmaf(p, t, 1.00002368f);
    p = fmaf(p, t, -1.26551223f);
    const float r = t * __expf(fmaf(-a, a, p));
    return z >= 0.0f ? r : 2.0f - r;
}
__device__ __forceinline__ float activation(float x) {
#if GELU && ERF_FIT
    return 0.5f * x * erfc_fit(-x * 0.70710678118654752f);
#elif GELU
    return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
#else
    return x;
#endif
}
#if ACT_IN_CONSUMERS
#define CONSUMER_ACT(x) activation(x)
#define EPILOGUE_ACT(x) (x)
#else
#define CONSUMER_ACT(x) (x)
#define EPILOGUE_ACT(x) activation(x)
#endif

// The epilogue warps (96 threads) apply EPILOGUE_ACT in place to `chunks` 16-byte chunks of
// bfloat16 at `tile`, then make their writes visible to the TMA stores that read it next.
__device__ __forceinline__ void activate_tile(uint32_t tile, int chunks, int me) {
    for (int chunk = me; chunk < chunks; chunk += 96) {
        const uint32_t at = tile + chunk * 16;
        uint32_t v[4];
        kzoo_ld_shared_v4(at, v);
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const float2 x = __bfloat1622float2(*reinterpret_cast<__nv_bfloat162*>(&v[e]));
            __nv_bfloat162 y = __floats2bfloat162_rn(EPILOGUE_ACT(x.x), EPILOGUE_ACT(x.y));
            v[e] = *reinterpret_cast<uint32_t*>(&y);
        }
        kzoo_st_shared_v4(at, v);
    }
    kzoo_fence_proxy_async();
    kzoo_named_sync(3, 96);
}

// DIRECT_STORE: the epilogue warps read the staging tile (2 row halves x BN/64 boxes of 64 rows
// of eight swizzled 16-byte chunks), apply EPILOGUE_ACT and store each chunk where it belongs,
// 16 bytes at once where N allows, element by element at the edges.
__device__ __forceinline__ void store_tile(uint32_t tile, int me, __nv_bfloat16* out, int M,
                                           int N, int m0, int n0) {
    for (int chunk = me; chunk < BM * BN / 8; chunk += 96) {
        const int box = chunk / 512, r = (chunk % 512) / 8;
        const int col = n0 + 64 * (box % (BN / 64)) + 8 * ((chunk % 8) ^ (r % 8));
        const int row = m0 + 64 * (box / (BN / 64)) + r;
        uint32_t v[4];
        kzoo_ld_shared_v4(tile + chunk * 16, v);
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const float2 x = __bfloat1622float2(*reinterpret_cast<__nv_bfloat162*>(&v[e]));
            __nv_bfloat162 y = __floats2bfloat162_rn(EPILOGUE_ACT(x.x), EPILOGUE_ACT(x.y));
            v[e] = *reinterpret_cast<uint32_t*>(&y);
        }
        if (row >= M || col >= N) continue;
        __nv_bfloat16* dst = out + static_cast<size_t>(row) * N + col;
        if (col + 8 <= N && N % 8 == 0) {
            *reinterpret_cast<uint4*>(dst) = make_uint4(v[0], v[1], v[2], v[3]);
        } else {
            const __nv_bfloat16* h = reinterpret_cast<const __nv_bfloat16*>(v);
            for (int e = 0; e < 8 && col + e < N; ++e) dst[e] = h[e];
        }
    }
}

// The tile (pm, pn) a cluster takes at step t: GROUP_M cluster rows at a time, down the columns.
__device__ __forceinline__ void tile_of(int t, int tiles_m, int tiles_n, int& pm, int& pn) {
    const int per_group = GROUP_M * tiles_n;
    const int first = (t / per_group) * GROUP_M;
    const int rows = min(tiles_m - first, GROUP_M);
    const int in_group = t % per_group;
    pm = first + in_group % rows;
    pn = in_group / rows;
}

// BIAS_SMEM: the epilogue warps write the bias of the tile at column n0 into shared memory as
// floats (zeros past N) and arrive on bias_ready; the consumers read it at their handoff.
__device__ __forceinline__ void stage_bias(uint32_t bias_base, const __nv_bfloat16* bias, int n0,
                                           int N, int me, uint32_t bias_ready) {
#if BIAS_SMEM
    for (int c = me; c < BN; c += 96) {
        const float v = n0 + c < N ? __bfloat162float(bias[n0 + c]) : 0.0f;
        kzoo_st_shared_f32(bias_base + 4 * c, v);
    }
    kzoo_bar_arrive(bias_ready);
#endif
}
// The next tile's bias, once the consumers are done with this one's (after tile_full).
__device__ __forceinline__ void stage_next_bias(uint32_t bias_base, const __nv_bfloat16* bias,
                                                int next, int n_tiles, int tiles_m, int tiles_n,
                                                int N, int me, uint32_t bias_ready) {
#if BIAS_SMEM
    if (next >= n_tiles) return;
    int pm, pn;
    tile_of(next, tiles_m, tiles_n, pm, pn);
    stage_bias(bias_base, bias, pn * BN, N, me, bias_ready);
#endif
}

__global__ void __launch_bounds__(THREADS, 1) __cluster_dims__(CLUSTER, 1, 1)
gemm_bias_gelu_kernel(const __grid_constant__ kzoo_tensor_map map_a,
                      const __grid_constant__ kzoo_tensor_map map_w,
                      const __grid_constant__ kzoo_tensor_map map_c,
                      const __nv_bfloat16* __restrict__ bias, __nv_bfloat16* __restrict__ out,
                      int M, int N, int K) {
    extern __shared__ uint8_t smem_raw[];
    const uint32_t raw = kzoo_smem_addr(smem_raw);
    const uint32_t base = (raw + 1023) & ~1023u;
    const uint32_t c_base = base + STAGES * STAGE_BYTES;
    const uint32_t bias_base = c_base + C_BYTES;  // BIAS_SMEM: BN floats
    const uint32_t bars = bias_base + BIAS_BYTES;  // full[STAGES] then empty[STAGES]
    // STORE 3: tile_full (the consumers' writes) and tile_empty (the stores' reads). STORE 4: a
    // full and a free barrier a consumer: free[h] says the staging tile may take half h's rows.
    const uint32_t tile_full = bars + 16 * STAGES, tile_empty = tile_full + 8;
    const uint32_t half_full = tile_full, half_free = tile_full + 16;
    const uint32_t bias_ready = tile_full + 16;  // BIAS_SMEM (STORE 3): phase j, tile j's bias
    const uint32_t rank = kzoo_cluster_rank();
    const int warpgroup = threadIdx.x / 128;
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            kzoo_bar_init(bars + 8 * s, 1);
            kzoo_bar_init(bars + 8 * (STAGES + s), 2 * CLUSTER);
        }
#if STORE == 3
        kzoo_bar_init(tile_full, 256);  // every consumer thread, its part of the tile written
        kzoo_bar_init(tile_empty, DIRECT_STORE ? 96 : 1);  // the tile's readers done with it
        kzoo_bar_init(bias_ready, 96);  // every epilogue thread, its share of the bias written
#elif STORE == 4
        for (int h = 0; h < 2; ++h) {
            kzoo_bar_init(half_full + 8 * h, 128);
            kzoo_bar_init(half_free + 8 * h, 1);
        }
#endif
        kzoo_fence_barrier_init();
    }
    kzoo_cluster_sync();

    const int tiles_m = (M + BM * CLUSTER - 1) / (BM * CLUSTER);
    const int tiles_n = (N + BN - 1) / BN;
    const int n_tiles = tiles_m * tiles_n;
    const int k_steps = (K + BK - 1) / BK;
    const int cluster_id = blockIdx.x / CLUSTER;
    const int n_clusters = gridDim.x / CLUSTER;

    if (warpgroup == 0) {
        kzoo_setmaxnreg_dec<PRODUCER_REGS>();
#if STORE >= 3
        if (threadIdx.x >= 32) {  // warps 1-3: the epilogue of each tile the consumers hand over
            const int me = threadIdx.x - 32;
            int j = 0;
            for (int t = cluster_id; t < n_tiles; t += n_clusters, ++j) {
                int pm, pn;
                tile_of(t, tiles_m, tiles_n, pm, pn);
                const int m0 = (pm * CLUSTER + rank) * BM;
                const int n0 = pn * BN;
#if STORE == 3 && BIAS_SMEM
                if (j == 0) stage_bias(bias_base, bias, n0, N, me, bias_ready);
#endif
#if STORE == 3 && DIRECT_STORE
                kzoo_bar_wait(tile_full, j & 1);
                stage_next_bias(bias_base, bias, t + n_clusters, n_tiles, tiles_m, tiles_n, N, me,
                                bias_ready);
                store_tile(c_base, me, out, M, N, m0, n0);
                kzoo_bar_arrive(tile_empty);  // each of the 96: its reads of the tile are done
#elif STORE == 3
#if EPILOGUE_SLEEP_NS
                bar_wait_sleeping(tile_full, j & 1, EPILOGUE_SLEEP_NS);
#else
                kzoo_bar_wait(tile_full, j & 1);
#endif
                stage_next_bias(bias_base, bias, t + n_clusters, n_tiles, tiles_m, tiles_n, N, me,
                                bias_ready);
                activate_tile(c_base, BM * BN / 8, me);
                if (me == 0) {
#pragma unroll
                    for (int box = 0; box < 2 * (BN / 64); ++box)  // 2 row halves x BN/64
                        kzoo_tma_store(&map_c, c_base + box * 8192, n0 + 64 * (box % (BN / 64)),
                                  m0 + 64 * (box / (BN / 64)));
                    kzoo_bulk_commit();
                    kzoo_bulk_wait_read();
                    kzoo_bar_arrive(tile_empty);
                }
#else
                for (int h = 0; h < 2; ++h) {
                    kzoo_bar_wait(half_full + 8 * h, j & 1);
                    activate_tile(c_base, BM * BN / 16, me);
                    if (me == 0) {
#pragma unroll
                        for (int box = 0; box < BN / 64; ++box)
                            kzoo_tma_store(&map_c, c_base + box * 8192, n0 + 64 * box, m0 + 64 * h);
                        kzoo_bulk_commit();
                        kzoo_bulk_wait_read();
                        kzoo_bar_arrive(half_free + 8 * (1 - h));  // the other half's turn
                    }
                }
#endif
            }
            if (me == 0) kzoo_bulk_wait();
        }
#endif
        if (threadIdx.x == 0) {
            int it = 0;
            for (int t = cluster_id; t < n_tiles; t += n_clusters) {
                int pm, pn;
                tile_of(t, tiles_m, tiles_n, pm, pn);
                const int m0 = (pm * CLUSTER + rank) * BM;
                const int n0 = pn * BN;
                for (int k = 0; k < k_steps; ++k, ++it) {
                    const int s = it % STAGES;
                    kzoo_bar_wait(bars + 8 * (STAGES + s), ((it / STAGES) & 1) ^ 1);
                    const uint32_t full = bars + 8 * s;
                    const uint32_t a_dst = base + s * STAGE_BYTES;
                    kzoo_bar_expect(full, STAGE_BYTES);
                    kzoo_tma_load(a_dst, &map_a, full, k * BK, m0);
#if CLUSTER == 1
                    kzoo_tma_load(a_dst + A_BYTES, &map_w, full, k * BK, n0);
#else
                    kzoo_tma_load_multicast(a_dst + A_BYTES + rank * (B_BYTES / CLUSTER), &map_w,
                                            full, k * BK, n0 + rank * (BN / CLUSTER),
                                            static_cast<uint16_t>((1 << CLUSTER) - 1));
#endif
                }
            }
        }
    } else {
        kzoo_setmaxnreg_inc<CONSUMER_REGS>();
        const int half = warpgroup - 1;  // rows [64 half, 64 half + 64) of the CTA's tile
        const int lane = threadIdx.x % 128;
        float acc[ACC];
        int it = 0, j = 0;  // j: the CTA's tiles so far (the staging tile's phase)
        for (int t = cluster_id; t < n_tiles; t += n_clusters) {
            int pm, pn;
            tile_of(t, tiles_m, tiles_n, pm, pn);
            const int m0 = (pm * CLUSTER + rank) * BM;
            const int n0 = pn * BN;
            int previous = -1;
#if BIAS_EARLY
            // The bias pairs this thread adds at the handoff, loaded now: their latency hides
            // under the main loop instead of standing between it and the next tile.
            uint32_t bias_pair[BN / 8];
#pragma unroll
            for (int i = 0; i < BN / 8; ++i) {
                bias_pair[i] = bias_pair_at(bias, n0 + 8 * i + 2 * (lane % 4), N);
            }
#endif
            for (int k = 0; k < k_steps; ++k, ++it) {
                const int s = it % STAGES;
                kzoo_bar_wait(bars + 8 * s, (it / STAGES) & 1);
                const uint32_t a_tile = base + s * STAGE_BYTES + half * (64 * BK * 2);
                const uint64_t da = smem_desc(a_tile);
                const uint64_t db = smem_desc(base + s * STAGE_BYTES + A_BYTES);
                kzoo_fence_registers(acc);
                kzoo_wgmma_fence();
#pragma unroll
                for (int kk = 0; kk < BK / 16; ++kk)
                    wgmma_tile(acc, da + 2 * kk, db + 2 * kk, (k | kk) != 0);
                kzoo_wgmma_commit();
                kzoo_fence_registers(acc);
#if RELEASE_EARLY
                // This step's MMAs done before the next are issued, so its stage goes back to
                // the producer a step sooner; the other consumer's MMAs fill the gap.
                kzoo_wgmma_wait<0>();
                kzoo_fence_registers(acc);
                if (lane == 0) release(bars + 8 * (STAGES + s));
#else
                if (previous >= 0) {
                    kzoo_wgmma_wait<1>();
                    kzoo_fence_registers(acc);
                    if (lane == 0) release(bars + 8 * (STAGES + previous));
                }
                previous = s;
#endif
            }
#if !RELEASE_EARLY
            kzoo_wgmma_wait<0>();
            kzoo_fence_registers(acc);
            if (lane == 0) release(bars + 8 * (STAGES + previous));
#endif

            const int warp = lane / 32, quad = lane % 32;
#if STORE == 1
            const int row = m0 + half * 64 + warp * 16 + quad / 4;
            const int col0 = n0 + 2 * (quad % 4);
            __nv_bfloat16* top = out + static_cast<size_t>(row) * N;
            __nv_bfloat16* bottom = top + static_cast<size_t>(8) * N;
#pragma unroll
            for (int i = 0; i < 32; ++i) {
                const int col = col0 + 8 * i;
                const float2 b = __bfloat1622float2(
                    *reinterpret_cast<const __nv_bfloat162*>(bias + col));
                *reinterpret_cast<__nv_bfloat162*>(top + col) = __floats2bfloat162_rn(
                    activation(acc[4 * i] + b.x), activation(acc[4 * i + 1] + b.y));
                *reinterpret_cast<__nv_bfloat162*>(bottom + col) = __floats2bfloat162_rn(
                    activation(acc[4 * i + 2] + b.x), activation(acc[4 * i + 3] + b.y));
            }
#elif STORE == 2
            // Each 64-column box of the staging tile is 64 rows of 128 bytes whose 16-byte
            // chunks are swizzled as the TMA store map reads them (chunk ^ row % 8): a warp's
            // 8 rows x 4 words land in 32 different banks.
            const uint32_t stage_c = c_base + half * (64 * 128 * 2);
            const int r0 = warp * 16 + quad / 4;
#pragma unroll
            for (int part = 0; part < 2; ++part) {
                // the last store from this buffer has read it
                if (lane == 0) kzoo_bulk_wait_read();
                kzoo_named_sync(1 + half, 128);
#pragma unroll
                for (int j = 0; j < 16; ++j) {
                    const int i = part * 16 + j;
                    const int c = 8 * j + 2 * (quad % 4);  // column within the part
                    const float2 b = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(
                        bias + n0 + 8 * i + 2 * (quad % 4)));
                    const uint32_t box = stage_c + (c / 64) * 8192;
                    const int chunk = (c % 64) / 8, within = (c % 8) * 2;
                    store_shared(box + r0 * 128 + ((chunk ^ (r0 % 8)) * 16) + within,
                                 activation(acc[4 * i] + b.x), activation(acc[4 * i + 1] + b.y));
                    store_shared(box + (r0 + 8) * 128 + ((chunk ^ ((r0 + 8) % 8)) * 16) + within,
                                 activation(acc[4 * i + 2] + b.x),
                                 activation(acc[4 * i + 3] + b.y));
                }
                kzoo_fence_proxy_async();
                kzoo_named_sync(1 + half, 128);
                if (lane == 0) {
                    kzoo_tma_store(&map_c, stage_c, n0 + 128 * part, m0 + 64 * half);
                    kzoo_tma_store(&map_c, stage_c + 8192, n0 + 128 * part + 64, m0 + 64 * half);
                    kzoo_bulk_commit();
                }
            }
#elif STORE >= 3
            // acc + bias as bfloat16 (what eager's linear hands its GELU) into 64x64 boxes laid
            // out as the TMA store map reads them (16-byte chunk ^ row % 8).
#if STORE == 3
            kzoo_bar_wait(tile_empty, (j & 1) ^ 1);
#if BIAS_SMEM
            kzoo_bar_wait(bias_ready, j & 1);
#endif
            const uint32_t boxes = c_base + half * (BN / 64) * 8192;
#else
            kzoo_bar_wait(half_free + 8 * half, (j & 1) ^ half ^ 1);
            const uint32_t boxes = c_base;
#endif
            const int r0 = warp * 16 + quad / 4;
#pragma unroll
            for (int i = 0; i < BN / 8; ++i) {
                const int c = 8 * i + 2 * (quad % 4);
#if BIAS_EARLY
                const float2 b = __bfloat1622float2(
                    *reinterpret_cast<const __nv_bfloat162*>(&bias_pair[i]));
#elif BIAS_SMEM
                const float2 b = kzoo_ld_shared_f32x2(bias_base + 4 * c);
#else
                const uint32_t pair = bias_pair_at(bias, n0 + c, N);
                const float2 b = __bfloat1622float2(
                    *reinterpret_cast<const __nv_bfloat162*>(&pair));
#endif
                const uint32_t box = boxes + (c / 64) * 8192;
                const int chunk = (c % 64) / 8, within = (c % 8) * 2;
                store_shared(box + r0 * 128 + ((chunk ^ (r0 % 8)) * 16) + within,
                             CONSUMER_ACT(acc[4 * i] + b.x), CONSUMER_ACT(acc[4 * i + 1] + b.y));
                store_shared(box + (r0 + 8) * 128 + ((chunk ^ (r0 % 8)) * 16) + within,
                             CONSUMER_ACT(acc[4 * i + 2] + b.x),
                             CONSUMER_ACT(acc[4 * i + 3] + b.y));
            }
#if STORE == 3
            kzoo_bar_arrive(tile_full);
#else
            kzoo_bar_arrive(half_full + 8 * half);
#endif
            ++j;
#endif
        }
#if STORE == 2
        if (lane == 0) kzoo_bulk_wait();
#endif
    }
    kzoo_cluster_sync();  // no CTA leaves while its partner may still signal its barriers
}

// A row-major rows x cols bfloat16 matrix read in boxes of box_rows x box_cols.
static bool tensor_map(kzoo_tensor_map* map, const void* data, uint64_t rows, uint64_t cols,
                       uint32_t box_rows, uint32_t box_cols = BK) {
    return kzoo_tensor_map_2d(map, KZOO_BF16, data, rows, cols, box_rows, box_cols);
}

extern "C" int gemm_bias_gelu(const void* a, const void* w, const void* bias, void* out,
                              int64_t M, int64_t N, int64_t K, int64_t grid,
                              cudaStream_t stream) {
    // TMA maps need 16-byte row strides: K % 8 (A and W), and N % 8 where C is TMA-stored. Tile
    // edges past M, N or K are zero-filled by the loads and clipped (or bounds-checked) stores.
    const bool c_map = (STORE == 2 || STORE == 3 || STORE == 4) && !DIRECT_STORE;
    if (K % 8 || (c_map && N % 8) || grid % CLUSTER || grid <= 0)
        return static_cast<int>(cudaErrorInvalidValue);
    if ((STORE == 1 || STORE == 2) && (N % BN || M % (BM * CLUSTER) || K % BK))
        return static_cast<int>(cudaErrorInvalidValue);
    static bool raised = false;
    if (!raised) {
        cudaError_t err = cudaFuncSetAttribute(
            gemm_bias_gelu_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES);
        if (err != cudaSuccess) return static_cast<int>(err);
        raised = true;
    }
    kzoo_tensor_map map_a, map_w, map_c;
    if (!tensor_map(&map_a, a, M, K, BM) || !tensor_map(&map_w, w, N, K, BN / CLUSTER))
        return static_cast<int>(cudaErrorInvalidValue);
    if (c_map ? !tensor_map(&map_c, out, M, N, 64, 64) : !tensor_map(&map_c, w, N, K, 64))
        return static_cast<int>(cudaErrorInvalidValue);  // else an unused map
    gemm_bias_gelu_kernel<<<static_cast<unsigned>(grid), THREADS, SMEM_BYTES, stream>>>(
        map_a, map_w, map_c, static_cast<const __nv_bfloat16*>(bias),
        static_cast<__nv_bfloat16*>(out), static_cast<int>(M), static_cast<int>(N),
        static_cast<int>(K));
    return static_cast<int>(cudaGetLastError());
}

__global__ void write_count(int* out, int count) { out[0] = count; }

// How many clusters of this kernel the GPU holds at once, written to out[0] (an int32 tensor).
extern "C" int gemm_bias_gelu_clusters(void* out, cudaStream_t stream) {
    const int clusters =
        kzoo_max_active_clusters(gemm_bias_gelu_kernel, THREADS, SMEM_BYTES, CLUSTER);
    if (clusters == 0) return static_cast<int>(cudaErrorInvalidValue);
    write_count<<<1, 1, 0, stream>>>(static_cast<int*>(out), clusters);
    return static_cast<int>(cudaGetLastError());
}
"""

SIGNATURES = {
    "gemm_bias_gelu": ("tensor:bfloat16:contiguous", "tensor:bfloat16:contiguous",
                       "tensor:bfloat16:contiguous", "tensor:bfloat16:contiguous",
                       "int64", "int64", "int64", "int64"),
    "gemm_bias_gelu_clusters": ("tensor:int32",),
}


def source(cluster: int = 2, stages: int = 4, group_m: int = 8, gelu: bool = True,
           store: int = 1, release_early: bool = False, bn: int = 256,
           bias_early: bool = False, act_in_consumers: bool = False, erf_fit: bool = False,
           direct_store: bool = False, epilogue_sleep_ns: int = 0, bk: int = 64,
           bias_smem: bool = False) -> str:
    """One variant of the kernel, as CUDA C++ source.

    `gelu=False` leaves the activation out (C = A @ W^T + bias): the GELU's own cost. `store`:
    1 from the registers to global memory; 2 through a shared-memory tile and TMA stores; 3 handed
    to the producer warpgroup's other warps as a bfloat16 tile, which they activate and store
    while the consumers go on (beside its 64 KB, 3 stages of 128x256 tiles fit, 4 of 128x192); 4
    as 3 through half the staging tile, each consumer's 64 rows in turn (4 stages fit); 0 not at
    all (the main loop's time alone; its output is not written). `release_early`: a consumer
    waits for each K step's MMAs before issuing the next and frees that step's stage at once,
    instead of keeping one step's MMAs in flight and freeing the stage a step later. `bn`: the
    tile's columns, 256 or 192 (N need not then be a multiple of the tile). `bias_early` (store
    3): each consumer thread reads its tile's bias into registers before the tile's main loop
    rather than at the handoff. `act_in_consumers` (store 3): the consumers apply the activation
    to the float32 accumulators and hand over finished values (one rounding) instead of the
    epilogue warps applying it to the bfloat16 pre-activation (two, as eager). `erf_fit`: the
    GELU's erf from a Chebyshev fit of erfc. `direct_store` (store 3): the epilogue warps store
    to global memory themselves, any N, instead of TMA-storing the tile. `epilogue_sleep_ns`
    (store 3, TMA-stored): the epilogue warps sleep that long between polls of the barrier that
    hands them a tile. `bk`: the K depth of a stage, 64 or 32 (half the bytes a stage, so twice
    the stages fit: 64-byte rows with the 64-byte swizzle). `bias_smem` (store 3): the epilogue
    warps copy each tile's bias into shared memory ahead of the handoff, where the consumers
    read it (instead of loading it from global memory there, one dependent load at a time)."""
    if cluster not in (1, 2) or not 2 <= stages <= 8 or group_m < 1 or store not in range(5):
        raise ValueError(f"cluster 1 or 2, stages 2-8, group_m >= 1, store 0-4; got {cluster}, "
                         f"{stages}, {group_m}, {store}")
    if (bias_early or act_in_consumers or direct_store or epilogue_sleep_ns or bias_smem) \
            and store != 3:
        raise ValueError("bias_early, act_in_consumers, direct_store, epilogue_sleep_ns and "
                         "bias_smem are store 3 options")
    if bias_early and bias_smem:
        raise ValueError("bias_early and bias_smem are two ways to the same bias: pick one")
    staging = {2: 2 * 64 * 128 * 2, 3: 128 * bn * 2, 4: 128 * bn}.get(store, 0) + 4 * bn * bias_smem
    if bk not in (32, 64) or stages * 128 * bk * 2 + stages * bn * bk * 2 + staging > SMEM_LIMIT:
        raise ValueError(f"bk is 64 or 32, and {stages} stages of 128x{bn}x{bk} tiles beside "
                         f"{staging} bytes of staging must fit {SMEM_LIMIT} bytes of shared memory")
    if bn not in (192, 256) or (bn != 256 and store in (1, 2)):
        raise ValueError(f"bn is 256, or 192 with store 0, 3 or 4; got {bn} with store {store}")
    return (_SOURCE.replace("@STAGES@", str(stages)).replace("@CLUSTER@", str(cluster))
            .replace("@GROUP_M@", str(group_m)).replace("@GELU@", str(int(gelu)))
            .replace("@STORE@", str(store))
            .replace("@RELEASE_EARLY@", str(int(release_early)))
            .replace("@BIAS_EARLY@", str(int(bias_early)))
            .replace("@ACT_IN_CONSUMERS@", str(int(act_in_consumers)))
            .replace("@ERF_FIT@", str(int(erf_fit)))
            .replace("@DIRECT_STORE@", str(int(direct_store)))
            .replace("@EPILOGUE_SLEEP_NS@", str(int(epilogue_sleep_ns)))
            .replace("@BIAS_SMEM@", str(int(bias_smem)))
            .replace("@BN@", str(bn)).replace("@BK@", str(bk)))
