"""`kzoo_sm90.cuh`: the Hopper operations a CUDA C++ candidate may use without writing assembly.

The verifier's guards refuse `asm` and the CUDA driver API in a candidate's source
(verifier/cuda_guards.py): inline PTX can reach anything, and the driver can allocate, copy and
synchronize behind the caller's back. A warp-specialized Hopper GEMM needs a fixed set of both:
warp-group MMAs (wgmma), mbarriers, bulk tensor copies (TMA) and their tensor maps, thread-block
cluster barriers and `setmaxnreg`. This header offers exactly those, as functions with fixed PTX,
and is the only header of kernel-zoo's own a candidate may include (`#include "kzoo_sm90.cuh"`):
`kernel_zoo.cuda_ext` writes it beside the candidate's source for every build, so a candidate
cannot bring its own under that name, and its text is part of the build's cache key.

What it does not offer, on purpose: clocks and timers, traps, global-memory atomics or fences
beyond the CTA and cluster, any driver call but `cuTensorMapEncodeTiled` (whose entry point it
looks up by that fixed name). It needs the sm_90a target (`cuda_ext.load(...,
arch_specific=True)`).

Device functions (addresses are shared-memory (`.shared::cta`) addresses from `kzoo_smem_addr`):
- mbarriers: `kzoo_bar_init(bar, count)`, `kzoo_fence_barrier_init()`, `kzoo_bar_expect(bar,
  bytes)`, `kzoo_bar_arrive(bar)`, `kzoo_bar_arrive_cluster(bar, rank)` (the barrier at the same
  offset in CTA `rank` of the cluster; CTA-scoped release: a `.release.cluster` arrive costs a
  MEMBAR.ALL.GPU each, GPU round 452), `kzoo_bar_wait(bar, parity)`, `kzoo_bar_try_wait(bar,
  parity)` (one try, true once that phase is complete);
- clusters: `kzoo_cluster_sync()`, `kzoo_cluster_rank()`;
- TMA: `kzoo_tma_load(dst, map, bar, c0, c1)`, `kzoo_tma_load_multicast(dst, map, bar, c0, c1,
  mask)`, `kzoo_tma_store(map, src, c0, c1)`, `kzoo_bulk_commit()`, `kzoo_bulk_wait_read()`,
  `kzoo_bulk_wait()`, `kzoo_fence_proxy_async()`;
- warp groups: `kzoo_wgmma_fence()`, `kzoo_wgmma_commit()`, `kzoo_wgmma_wait<N>()`,
  `kzoo_smem_desc(addr, row_bytes)` (a K-major tile of 128- or 64-byte rows swizzled over the
  row), `kzoo_wgmma_m64n{N}k16_{bf16,f16}(float (&d)[N / 2], desc_a, desc_b, accumulate)` for
  N in WGMMA_N, `kzoo_fence_registers(d)`, `kzoo_setmaxnreg_inc<R>()`, `kzoo_setmaxnreg_dec<R>()`,
  `kzoo_named_sync(id, threads)`;
- shared memory: `kzoo_ld_shared_v4`, `kzoo_st_shared_v4`, `kzoo_st_shared_u32`,
  `kzoo_ld_shared_f32x2`, `kzoo_st_shared_f32`.
Host functions: `kzoo_tensor_map_2d(map, dtype, data, rows, cols, box_rows, box_cols)` (a
row-major rows x cols matrix of 2-byte elements, `KZOO_BF16` or `KZOO_F16`, read in boxes of
box_rows x box_cols, swizzled over the box's row of 128 or 64 bytes; false where the driver
refuses it) and `kzoo_max_active_clusters(kernel, threads, smem_bytes, cluster)`.
"""

from __future__ import annotations

import functools

HEADER_NAME = "kzoo_sm90.cuh"
WGMMA_N = (128, 192, 256)  # the accumulator widths a consumer warp group may take

_HEAD = r"""
// kzoo_sm90.cuh: written by kernel_zoo.cuda_ext beside each build (kernel_zoo/cuda_sm90.py).
#pragma once
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdint.h>

typedef CUtensorMap kzoo_tensor_map;
enum kzoo_dtype { KZOO_BF16 = 0, KZOO_F16 = 1 };

__device__ __forceinline__ uint32_t kzoo_smem_addr(const void* p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void kzoo_bar_init(uint32_t bar, uint32_t count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(bar), "r"(count));
}
__device__ __forceinline__ void kzoo_fence_barrier_init() {
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void kzoo_bar_expect(uint32_t bar, uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                 :: "r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void kzoo_bar_arrive(uint32_t bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(bar) : "memory");
}
__device__ __forceinline__ void kzoo_bar_arrive_cluster(uint32_t bar, uint32_t rank) {
    asm volatile("{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %0, %1;\n"
                 "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}"
                 :: "r"(bar), "r"(rank) : "memory");
}
__device__ __forceinline__ void kzoo_bar_wait(uint32_t bar, uint32_t parity) {
    asm volatile("{\n.reg .pred done;\nWAIT:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                 "@!done bra WAIT;\n}" :: "r"(bar), "r"(parity) : "memory");
}
__device__ __forceinline__ bool kzoo_bar_try_wait(uint32_t bar, uint32_t parity) {
    uint32_t done;
    asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 "selp.u32 %0, 1, 0, p;\n}" : "=r"(done) : "r"(bar), "r"(parity) : "memory");
    return done != 0;
}
__device__ __forceinline__ void kzoo_cluster_sync() {
    asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;"
                 ::: "memory");
}
__device__ __forceinline__ uint32_t kzoo_cluster_rank() {
    uint32_t r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
__device__ __forceinline__ void kzoo_tma_load(uint32_t dst, const kzoo_tensor_map* map,
                                              uint32_t bar, int c0, int c1) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4}], [%2];"
                 :: "r"(dst), "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1)
                 : "memory");
}
__device__ __forceinline__ void kzoo_tma_load_multicast(uint32_t dst, const kzoo_tensor_map* map,
                                                        uint32_t bar, int c0, int c1,
                                                        uint16_t mask) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 ".multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;"
                 :: "r"(dst), "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1),
                    "h"(mask) : "memory");
}
__device__ __forceinline__ void kzoo_tma_store(const kzoo_tensor_map* map, uint32_t src, int c0,
                                               int c1) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
                 :: "l"(reinterpret_cast<uint64_t>(map)), "r"(src), "r"(c0), "r"(c1)
                 : "memory");
}
__device__ __forceinline__ void kzoo_bulk_commit() {
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
__device__ __forceinline__ void kzoo_bulk_wait_read() {
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}
__device__ __forceinline__ void kzoo_bulk_wait() {
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}
__device__ __forceinline__ void kzoo_fence_proxy_async() {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
__device__ __forceinline__ void kzoo_named_sync(int id, int threads) {
    asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void kzoo_wgmma_fence() {
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void kzoo_wgmma_commit() {
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
template <int N>
__device__ __forceinline__ void kzoo_wgmma_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;" :: "n"(N) : "memory");
}
template <int R>
__device__ __forceinline__ void kzoo_setmaxnreg_inc() {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" :: "n"(R));
}
template <int R>
__device__ __forceinline__ void kzoo_setmaxnreg_dec() {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" :: "n"(R));
}
// Keeps the compiler from moving accesses of accumulators across an MMA's issue and its wait.
template <int N>
__device__ __forceinline__ void kzoo_fence_registers(float (&d)[N]) {
#pragma unroll
    for (int i = 0; i < N; ++i) asm volatile("" : "+f"(d[i]) :: "memory");
}
// A K-major operand tile of `row_bytes`-byte rows (128 or 64) swizzled over the row: 8-row groups
// row_bytes * 8 apart (the stride field, in 16-byte units), swizzle mode 1 (128) or 2 (64).
__device__ __forceinline__ uint64_t kzoo_smem_desc(uint32_t addr, int row_bytes) {
    return static_cast<uint64_t>((addr & 0x3FFFF) >> 4) | (1ull << 16)
           | (static_cast<uint64_t>(row_bytes / 2) << 32)
           | ((row_bytes == 128 ? 1ull : 2ull) << 62);
}
__device__ __forceinline__ void kzoo_ld_shared_v4(uint32_t addr, uint32_t (&v)[4]) {
    asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]) : "r"(addr));
}
__device__ __forceinline__ void kzoo_st_shared_v4(uint32_t addr, const uint32_t (&v)[4]) {
    asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};"
                 :: "r"(addr), "r"(v[0]), "r"(v[1]), "r"(v[2]), "r"(v[3]) : "memory");
}
__device__ __forceinline__ void kzoo_st_shared_u32(uint32_t addr, uint32_t v) {
    asm volatile("st.shared.b32 [%0], %1;" :: "r"(addr), "r"(v) : "memory");
}
__device__ __forceinline__ float2 kzoo_ld_shared_f32x2(uint32_t addr) {
    float2 v;
    asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];" : "=f"(v.x), "=f"(v.y) : "r"(addr));
    return v;
}
__device__ __forceinline__ void kzoo_st_shared_f32(uint32_t addr, float v) {
    asm volatile("st.shared.f32 [%0], %1;" :: "r"(addr), "f"(v) : "memory");
}
"""

_TAIL = r"""
typedef CUresult (*kzoo_encode_tiled_fn)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,
                                         const cuuint64_t*, const cuuint64_t*, const cuuint32_t*,
                                         const cuuint32_t*, CUtensorMapInterleave,
                                         CUtensorMapSwizzle, CUtensorMapL2promotion,
                                         CUtensorMapFloatOOBfill);

static kzoo_encode_tiled_fn kzoo_encode_tiled() {
    static kzoo_encode_tiled_fn fn = nullptr;
    if (fn == nullptr) {
        void* p = nullptr;
        cudaDriverEntryPointQueryResult found;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000,
                                             cudaEnableDefault, &found) == cudaSuccess
            && found == cudaDriverEntryPointSuccess)
            fn = reinterpret_cast<kzoo_encode_tiled_fn>(p);
    }
    return fn;
}

// A row-major rows x cols matrix of 2-byte elements read in boxes of box_rows x box_cols (whose
// row, box_cols * 2 bytes, is 128 or 64: the swizzle's span). Elements past the matrix read as
// zeros; stores past it are dropped.
static bool kzoo_tensor_map_2d(kzoo_tensor_map* map, kzoo_dtype dtype, const void* data,
                               uint64_t rows, uint64_t cols, uint32_t box_rows,
                               uint32_t box_cols) {
    kzoo_encode_tiled_fn encode = kzoo_encode_tiled();
    if (encode == nullptr || (box_cols != 64 && box_cols != 32)) return false;
    const cuuint64_t dims[2] = {cols, rows};
    const cuuint64_t strides[1] = {cols * 2};
    const cuuint32_t box[2] = {box_cols, box_rows};
    const cuuint32_t step[2] = {1, 1};
    return encode(map, dtype == KZOO_BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                          : CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
                  2, const_cast<void*>(data), dims, strides, box, step,
                  CU_TENSOR_MAP_INTERLEAVE_NONE,
                  box_cols == 64 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_64B,
                  CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
           == CUDA_SUCCESS;
}

// How many clusters of `cluster` CTAs of `kernel` (threads and dynamic shared memory a CTA) the
// GPU holds at once; 0 where the runtime refuses the query.
template <typename Kernel>
static int kzoo_max_active_clusters(Kernel kernel, int threads, int smem_bytes, int cluster) {
    if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes)
        != cudaSuccess)
        return 0;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(132 * cluster, 1, 1);
    config.blockDim = dim3(threads, 1, 1);
    config.dynamicSmemBytes = smem_bytes;
    int clusters = 0;
    return cudaOccupancyMaxActiveClusters(&clusters, kernel, &config) == cudaSuccess ? clusters
                                                                                     : 0;
}
"""


def _wgmma(n: int, dtype: str) -> str:
    acc = n // 2
    regs = ", ".join(f"%{i}" for i in range(acc))
    outs = ", ".join(f'"+f"(d[{i}])' for i in range(acc))
    return f"""
__device__ __forceinline__ void kzoo_wgmma_m64n{n}k16_{dtype}(float (&d)[{acc}], uint64_t desc_a,
                                                          uint64_t desc_b, int accumulate) {{
    asm volatile(
        "{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{acc + 2}, 0;\\n"
        "wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{dtype}.{dtype} "
        "{{{regs}}}, %{acc}, %{acc + 1}, p, 1, 1, 0, 0;\\n}}\\n"
        : {outs}
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
}}
"""


@functools.lru_cache(maxsize=1)
def header() -> str:
    """The header's text (the same for every build)."""
    mmas = "".join(_wgmma(n, dtype) for n in WGMMA_N for dtype in ("bf16", "f16"))
    return _HEAD + mmas + _TAIL
