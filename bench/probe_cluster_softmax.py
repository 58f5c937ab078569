"""Float32 softmax over rows of 128256 (and 32768) on an H200: does a row split over a thread-block
cluster, whose slices arrive by bulk copies into shared memory several rows ahead and whose
partial (max, sum) pairs cross the cluster through distributed shared memory, read more of the
copy bandwidth than the served Triton kernel?

The served kernel (softmax `row_split` 16, `row_ahead`) reads 0.78 of copy at 256x128256 and 0.91
at 1024x32768 (one program a row) on an H200 (round 374). Two ways to keep more bytes in flight
lost in Triton: a third slice in registers (round 373: registers bound it) and TMA loads
multi-buffered by Triton's pipeliner, with the partner wait an inline-PTX spin on global slots
(round 374: 106.6 against 81.1 us). Here, in CUDA C++:

- a cluster of CLUSTER CTAs (one an SM) owns a row at a time; each CTA a contiguous slice of it;
- one thread issues `cp.async.bulk` copies of the CTA's slices of its next STAGES rows into
  shared memory, completing on one mbarrier a stage; a stage is refilled as soon as its row has
  moved into registers, so STAGES - 1 rows are always in flight;
- each CTA reduces its slice to a (max, sum of exp) pair, publishes it in its own shared memory,
  and after a cluster barrier reads its partners' pairs through distributed shared memory: no
  global slots, no spinning.

A probe, not a template: float32 rows whose width is a multiple of 4 * CLUSTER (16-byte aligned
slices), contiguous; outputs checked against float64 first; timed as CUDA-graph replays,
interleaved and L2-flushed (verifier.timing), beside kernel_zoo.ops.softmax and a copy of the same
bytes. The source uses inline PTX, which the verifier's CUDA guards refuse in candidates; a
template would need the guards to admit the mbarrier and bulk-copy forms (or libcu++'s wrappers).
Writes <out>/probe-cluster-softmax-<device>.json.

    python bench/probe_cluster_softmax.py [--out DIR]

Round 375 (H200, runs/probe-cluster-softmax-h200-round375.json): every variant was correct and
slower than the served kernel: 95.7 us at best (clusters of 8, 2 stages; 15 clusters fit the 132
SMs) against 81.6 at 256x128256, 82.0 (clusters of 2) against 70.9 at 1024x32768.
"""

from __future__ import annotations

import argparse
import ctypes
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kernel_zoo import cuda_ext  # noqa: E402
from row_probes import time_beside_zoo_and_copy, write_probe  # noqa: E402
from verifier.timing import L2Flusher  # noqa: E402

KERNEL = r"""
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <stdint.h>
#include <math.h>
namespace cg = cooperative_groups;

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
    return (uint32_t)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ void mbar_init(uint64_t* bar) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_addr(bar)) : "memory");
}
__device__ __forceinline__ void mbar_expect_bytes(uint64_t* bar, uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                 :: "r"(smem_addr(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void bulk_load(void* dst, const void* src, uint32_t bytes,
                                          uint64_t* bar) {
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1], %2, [%3];"
                 :: "r"(smem_addr(dst)), "l"(src), "r"(bytes), "r"(smem_addr(bar)) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
    asm volatile("{\n\t.reg .pred done;\n"
                 "WAIT:\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t"
                 "@!done bra WAIT;\n}"
                 :: "r"(smem_addr(bar)), "r"(parity) : "memory");
}

// (max, sum of exp(x - max)) pairs, combined; a pair with max -inf has sum 0.
__device__ __forceinline__ float2 combine(float2 a, float2 b) {
    const float m = fmaxf(a.x, b.x);
    if (m == -INFINITY) return make_float2(m, 0.0f);
    return make_float2(m, a.y * expf(a.x - m) + b.y * expf(b.x - m));
}

// A warp's pairs combined (every lane ends with the warp's).
__device__ __forceinline__ float2 warp_combine(float2 pair) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        pair = combine(pair, make_float2(__shfl_xor_sync(0xffffffffu, pair.x, offset),
                                         __shfl_xor_sync(0xffffffffu, pair.y, offset)));
    return pair;
}

// A thread's PER float4s of a slice (exps of x - m for softmax, x itself for log-softmax) written
// as the row's outputs, given the row's (max, sum) pair; streaming stores.
template <int THREADS, int PER, bool LOG>
__device__ __forceinline__ void write_slice(float4* out, const float4 (&v)[PER], float m,
                                            float2 row, int tid, int n_f4) {
    if (LOG) {
        const float shift = row.x + logf(row.y);
#pragma unroll
        for (int j = 0; j < PER; ++j) {
            const int at = tid + j * THREADS;
            if (at < n_f4)
                __stcs(out + at, make_float4(v[j].x - shift, v[j].y - shift, v[j].z - shift,
                                             v[j].w - shift));
        }
    } else {
        const float scale = m == -INFINITY ? 0.0f : expf(m - row.x) / row.y;
#pragma unroll
        for (int j = 0; j < PER; ++j) {
            const int at = tid + j * THREADS;
            if (at < n_f4)
                __stcs(out + at, make_float4(v[j].x * scale, v[j].y * scale, v[j].z * scale,
                                             v[j].w * scale));
        }
    }
}

__host__ __device__ constexpr uint32_t stage_bytes_of(int64_t n_cols, int cluster) {
    return (uint32_t)((n_cols / cluster * 4 + 127) / 128 * 128);
}

template <int CLUSTER, int THREADS, int PER, int STAGES, bool LOG>
__global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(THREADS, 1)
cluster_softmax(const float* __restrict__ x, float* __restrict__ y, int64_t n_rows,
                int64_t n_cols, uint32_t chunk_bytes) {
    extern __shared__ __align__(128) unsigned char smem[];
    cg::cluster_group cluster = cg::this_cluster();
    const int rank = (int)cluster.block_rank();
    const int64_t cluster_id = blockIdx.x / CLUSTER, n_clusters = gridDim.x / CLUSTER;
    const int64_t slice = n_cols / CLUSTER;  // floats; a multiple of 4
    const int slice_f4 = (int)(slice / 4);
    const uint32_t slice_bytes = (uint32_t)(slice * 4);
    const uint32_t stage_bytes = stage_bytes_of(n_cols, CLUSTER);
    uint64_t* bars = reinterpret_cast<uint64_t*>(smem + STAGES * stage_bytes);
    // [2]: this CTA's pair, by row parity
    float2* partial = reinterpret_cast<float2*>(bars + STAGES);
    float2* red = partial + 2;                                   // [THREADS / 32]
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int64_t my_rows =
        cluster_id < n_rows ? (n_rows - cluster_id + n_clusters - 1) / n_clusters : 0;

    auto issue = [&](int64_t i) {  // row i of this cluster into stage i % STAGES (one thread)
        uint64_t* bar = &bars[i % STAGES];
        unsigned char* dst = smem + (i % STAGES) * stage_bytes;
        const unsigned char* src = reinterpret_cast<const unsigned char*>(
            x + (cluster_id + i * n_clusters) * n_cols + rank * slice);
        mbar_expect_bytes(bar, slice_bytes);
        for (uint32_t at = 0; at < slice_bytes; at += chunk_bytes)
            bulk_load(dst + at, src + at, min(chunk_bytes, slice_bytes - at), bar);
    };
    if (tid == 0) {
        for (int s = 0; s < STAGES; ++s) mbar_init(&bars[s]);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        for (int64_t i = 0; i < STAGES && i < my_rows; ++i) issue(i);
    }
    __syncthreads();

    for (int64_t i = 0; i < my_rows; ++i) {
        const int s = (int)(i % STAGES);
        mbar_wait(&bars[s], (uint32_t)((i / STAGES) & 1));
        const float4* stage = reinterpret_cast<const float4*>(smem + s * stage_bytes);
        float4 v[PER];
        float m = -INFINITY;
#pragma unroll
        for (int j = 0; j < PER; ++j) {
            const int at = tid + j * THREADS;
            v[j] = at < slice_f4 ? stage[at]
                                 : make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
            m = fmaxf(m, fmaxf(fmaxf(v[j].x, v[j].y), fmaxf(v[j].z, v[j].w)));
        }
        __syncthreads();  // the stage is in registers: refill it with row i + STAGES
        if (tid == 0 && i + STAGES < my_rows) issue(i + STAGES);
        float sum = 0.0f;
        if (m != -INFINITY) {
#pragma unroll
            for (int j = 0; j < PER; ++j) {
                float4 e = make_float4(expf(v[j].x - m), expf(v[j].y - m), expf(v[j].z - m),
                                       expf(v[j].w - m));
                sum += (e.x + e.y) + (e.z + e.w);
                if (!LOG) v[j] = e;
            }
        } else if (!LOG) {
#pragma unroll
            for (int j = 0; j < PER; ++j) v[j] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        }
        float2 pair = warp_combine(make_float2(m, sum));
        if (lane == 0) red[warp] = pair;
        __syncthreads();
        if (warp == 0) {
            pair = warp_combine(lane < THREADS / 32 ? red[lane] : make_float2(-INFINITY, 0.0f));
            if (lane == 0) partial[i & 1] = pair;
        }
        cluster.sync();  // every CTA's pair for row i is published
        float2 row = make_float2(-INFINITY, 0.0f);
#pragma unroll
        for (int r = 0; r < CLUSTER; ++r)
            row = combine(row, *cluster.map_shared_rank(&partial[i & 1], r));
        write_slice<THREADS, PER, LOG>(
            reinterpret_cast<float4*>(y + (cluster_id + i * n_clusters) * n_cols + rank * slice),
            v, m, row, tid, slice_f4);
    }
    cluster.sync();  // partners may still read this CTA's pair
}

template <int CLUSTER, int THREADS, int PER, int STAGES, bool LOG>
static size_t prepare(int64_t n_cols) {
    const size_t bytes =
        (size_t)STAGES * stage_bytes_of(n_cols, CLUSTER) + STAGES * 8 + 2 * 8 + 32 * 8;
    auto kernel = cluster_softmax<CLUSTER, THREADS, PER, STAGES, LOG>;
    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
    if (CLUSTER > 8)
        cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    return bytes;
}

template <int CLUSTER, int THREADS, int PER, int STAGES, bool LOG>
static int launch(const float* x, float* y, int64_t n_rows, int64_t n_cols, int64_t n_clusters,
                  int64_t chunk_bytes, cudaStream_t stream) {
    if (n_cols % (4 * CLUSTER) != 0 || n_cols / CLUSTER / 4 > (int64_t)THREADS * PER)
        return (int)cudaErrorInvalidValue;
    const size_t bytes = prepare<CLUSTER, THREADS, PER, STAGES, LOG>(n_cols);
    cluster_softmax<CLUSTER, THREADS, PER, STAGES, LOG>
        <<<(unsigned)(n_clusters * CLUSTER), THREADS, bytes, stream>>>(
            x, y, n_rows, n_cols, (uint32_t)chunk_bytes);
    return (int)cudaGetLastError();
}

template <int CLUSTER, int THREADS, int PER, int STAGES, bool LOG>
static int max_clusters(int64_t n_cols, int* out) {
    const size_t bytes = prepare<CLUSTER, THREADS, PER, STAGES, LOG>(n_cols);
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(CLUSTER * 64);
    config.blockDim = dim3(THREADS);
    config.dynamicSmemBytes = bytes;
    cudaLaunchAttribute attribute;
    attribute.id = cudaLaunchAttributeClusterDimension;
    attribute.val.clusterDim.x = CLUSTER;
    attribute.val.clusterDim.y = 1;
    attribute.val.clusterDim.z = 1;
    config.attrs = &attribute;
    config.numAttrs = 1;
    cudaError_t err = cudaOccupancyMaxActiveClusters(
        out, cluster_softmax<CLUSTER, THREADS, PER, STAGES, LOG>, &config);
    return (int)err;
}
"""

ENTRY = r"""
extern "C" int run_{name}(const float* x, float* y, int64_t n_rows, int64_t n_cols,
                          int64_t n_clusters, int64_t chunk_bytes, cudaStream_t stream) {{
    return launch<{args}>(x, y, n_rows, n_cols, n_clusters, chunk_bytes, stream);
}}
extern "C" int clusters_{name}(int64_t n_cols, int* out) {{
    return max_clusters<{args}>(n_cols, out);
}}
"""

# (rows, cols) -> variants (cluster CTAs, threads a CTA, stages, bulk-copy chunk bytes)
SHAPES = {
    (256, 128256): ((8, 512, 2, 16384), (8, 512, 3, 16384), (8, 1024, 3, 16384),
                    (8, 512, 3, 65536), (16, 512, 4, 16384), (16, 256, 6, 8192)),
    (1024, 32768): ((2, 512, 3, 16384), (4, 512, 4, 16384), (4, 256, 6, 8192),
                    (8, 256, 6, 8192)),
}


def variant_name(cols: int, cluster: int, threads: int, stages: int, chunk: int) -> str:
    return f"c{cluster}_t{threads}_s{stages}_k{chunk // 1024}_w{cols}"


def template_args(cols: int, cluster: int, threads: int, stages: int) -> str:
    per = -(-(cols // cluster // 4) // threads)
    return f"{cluster}, {threads}, {per}, {stages}, false"


def source() -> str:
    entries = []
    for (_, cols), variants in SHAPES.items():
        for cluster, threads, stages, chunk in variants:
            entries.append(ENTRY.format(name=variant_name(cols, cluster, threads, stages, chunk),
                                        args=template_args(cols, cluster, threads, stages)))
    return KERNEL + "".join(entries)


class Probe:
    def __init__(self):
        self.lib = ctypes.CDLL(str(cuda_ext.compile_source(source())))

    def max_clusters(self, name: str, cols: int) -> int:
        out = ctypes.c_int(0)
        err = getattr(self.lib, f"clusters_{name}")(ctypes.c_int64(cols), ctypes.byref(out))
        if err != 0:
            raise RuntimeError(f"cudaOccupancyMaxActiveClusters: error {err}")
        return out.value

    def softmax(self, name: str, x: torch.Tensor, y: torch.Tensor, clusters: int, chunk: int):
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        err = getattr(self.lib, f"run_{name}")(
            ctypes.c_void_p(x.data_ptr()), ctypes.c_void_p(y.data_ptr()),
            ctypes.c_int64(x.shape[0]), ctypes.c_int64(x.shape[1]), ctypes.c_int64(clusters),
            ctypes.c_int64(chunk), stream)
        if err != 0:
            raise RuntimeError(f"launch error {err}")
        return y


def probe_shape(probe: Probe, n_rows: int, n_cols: int, variants, flusher) -> dict:
    x = torch.randn(n_rows, n_cols, device="cuda") * 4.0
    x[1, 5:40000 % n_cols] = float("-inf")  # a row with a run of -inf
    x[2, : n_cols // 2] = float("-inf")  # a row whose first CTAs hold only -inf
    ref = torch.softmax(x.double(), dim=1)
    fns, errors, clusters_of = {}, {}, {}
    for cluster, threads, stages, chunk in variants:
        name = variant_name(n_cols, cluster, threads, stages, chunk)
        try:
            clusters = min(n_rows, probe.max_clusters(name, n_cols))
            clusters_of[name] = clusters
            y = torch.empty_like(x)
            got = probe.softmax(name, x, y, clusters, chunk)
            torch.cuda.synchronize()
            err = ((got.double() - ref).norm() / ref.norm()).item()
            worst = ((got.double() - ref).abs().amax()).item()
        except Exception as exc:  # a variant that does not launch is reported, not timed
            errors[name] = f"{type(exc).__name__}: {str(exc)[:400]}"
            print(f"{name}: {errors[name]}", flush=True)
            continue
        errors[name] = {"rel_l2": err, "max_abs": worst}
        print(f"{n_rows}x{n_cols} {name}: {clusters} clusters, rel l2 err {err:.2e}, "
              f"max abs {worst:.2e}", flush=True)
        if err < 1e-5 and worst < 1e-5:
            fns[name] = (lambda n=name, c=clusters, k=chunk, out=y: probe.softmax(n, x, out, c, k))
    us, failed = time_beside_zoo_and_copy(x, fns, errors, flusher, ref)
    return {"shape": [n_rows, n_cols], "us_graphs": us, "errors": errors,
            "clusters": clusters_of, "graph_capture_failed": failed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "runs"))
    args = parser.parse_args()
    torch.manual_seed(0)
    probe = Probe()
    flusher = L2Flusher(torch.device("cuda"))
    shapes = [probe_shape(probe, rows, cols, variants, flusher)
              for (rows, cols), variants in SHAPES.items()]
    write_probe(args.out, "probe-cluster-softmax",
                "float32 softmax: a row split over a thread-block cluster, slices bulk-copied "
                "into shared memory STAGES rows ahead, partial (max, sum) pairs exchanged through "
                "distributed shared memory; against kernel_zoo.ops.softmax and a copy of the same "
                "bytes; CUDA-graph replays, L2 flushed, medians in us", shapes,
                variants="c<cluster CTAs>_t<threads a CTA>_s<stages>_k<bulk-copy chunk KiB>"
                         "_w<width>")

if __name__ == "__main__":
    main()
