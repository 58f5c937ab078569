"""Float32 softmax and log-softmax over rows of 128256 and 32768 on an H200: a row split over a
group of CTAs, each CTA's slices staged in a ring of shared-memory slots several rows deep, the
slices' (max, sum) pairs traded through global memory, and each row written LAG rows after it was
read, from the slice still in shared memory.

Where the served kernels stand (the standing, 1 GiB copy yardstick; the bar is 0.9): 256x128256
reads 0.82 (softmax) and 0.86 (log-softmax), 1024x32768 0.89 and 0.89. The served split kernel
at 256x128256 (`row_split` 32, `row_lag`) re-reads each slice from L2 to write it (a third pass
over 131 MB through L2) and holds one slice in registers; the one-pass kernel at 1024x32768
holds the whole row in one SM's registers, so that SM reads nothing while it reduces and writes,
and its 1024 rows are 7.76 waves of 132. Here no slice is read twice and no SM waits on its own
row: every SM keeps DEPTH - LAG slices' loads in flight (`__pipeline_memcpy_async`, 16 bytes a
thread, into the thread's own slots: no barrier guards a slot), and each group of SPLIT CTAs
walks its share of the rows (GROUPS x SPLIT = the SM count, one CTA an SM, all resident), so the
rows are spread evenly over the SMs whatever their count.

The pairs: a CTA publishes its slice's (max, sum) as one 64-bit word, the sum's sign bit set to
the parity of the launch's generation + 1 (a sum is never negative), stored whole, so the word is
its own readiness mark with no fence behind it; a CTA about to write a row spins on its partners'
words until their parity is this launch's. The generation lives in device memory and the last CTA
to finish a launch increments it, so CUDA-graph replays, which repeat the launch's arguments,
still see fresh words; every launch writes every word, so one bit tells this launch's from the
last one's. (Round 427's first run published a pair, fenced, then set a separate flag word:
3.7-5.8 us a step, 127-635 us against the served kernels' 71-76. Its second, with the one-word
pairs, 2.9-4.9 us a step, 107-503 us. Warp 0 now also loads its partners' words a step before
it needs them: 2.6-4.6 us a step.) A spin that outlasts its limit sets an error word
and moves on, and no spin waits once it is set (a wrong output, caught by the check, rather
than a hung GPU).

A probe, not a template: contiguous float32 rows whose width is a multiple of 4. Every variant is
checked against float64 first (a row with a run of -inf among them); then timed as CUDA-graph
replays, interleaved and L2-flushed, beside `kernel_zoo.ops.<op>` and a copy of the same bytes
(bench/row_probes.py). Writes <out>/probe-split-ring-<device>.json.

    python bench/probe_split_ring.py [--out DIR]
    python bench/probe_split_ring.py --compile-only     (builds for sm_90; no GPU needed)

Round 427 (H200, 2026-11-29; runs/probe-split-ring-h200-round427.json, the first two forms'
runs `-round427-fence.json` and `-round427-oneword.json`): every variant correct (relative L2
error at most 1.3e-7 against float64, three launches each, no spin gave up) and every one far
slower than the served kernels: 101.2-220.2 us at 256x128256 against 75.3 (softmax; log-softmax
97.9-216.4 against 71.6), 123.9-459.6 at 1024x32768 against 71.0. A step costs about 2.4 us
plus its bytes at under 3 TB/s, so the fewest steps win (12 groups of 11 at 256x128256, 33
groups of 4 at 1024x32768). The diagnostics (`DIAGNOSTICS`, outputs wrong by design) say where:
without the partners' pairs 11-19% less, without the stores 3-14% less, without both 23-25% less
(75.7 us at 256x128256, 94.9 and 355.8 at 1024x32768), so most of a step is the SM's own work:
three barriers, three passes over the slice in shared memory and two exponentials an element,
at 16 warps an SM, where the one-pass kernel keeps its row in the registers of 32.
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

SOURCE = r"""
#include <cuda_runtime.h>
#include <cuda_pipeline_primitives.h>
#include <stdint.h>
#include <math.h>

constexpr float LOG2E = 1.4426950408889634f;
constexpr long long SPIN_LIMIT = 1LL << 20;  // about a second of polling: far past any real wait

__device__ __forceinline__ float exp_of(float d) { return exp2f(d * LOG2E); }

__device__ __forceinline__ float2 combine(float2 a, float2 b) {
    const float m = fmaxf(a.x, b.x);
    if (m == -INFINITY) return make_float2(m, 0.0f);
    return make_float2(m, a.y * exp_of(a.x - m) + b.y * exp_of(b.x - m));
}

// A slice's (max, sum) as one 64-bit word, stored and loaded whole (single-copy atomic): the
// word is its own readiness mark, with no flag and no fence between the two.
__device__ __forceinline__ unsigned long long pack(float2 pair, unsigned parity) {
    return ((unsigned long long)(__float_as_uint(pair.y) | (parity << 31)) << 32)
           | __float_as_uint(pair.x);
}

__device__ __forceinline__ float2 unpack(unsigned long long word) {
    return make_float2(__uint_as_float((unsigned)word),
                       __uint_as_float((unsigned)(word >> 32) & 0x7fffffffu));
}

__device__ __forceinline__ float2 warp_combine(float2 pair) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        pair = combine(pair, make_float2(__shfl_xor_sync(0xffffffffu, pair.x, offset),
                                         __shfl_xor_sync(0xffffffffu, pair.y, offset)));
    return pair;
}

// Rows of n_cols floats; row r belongs to group r % groups, which walks its rows in steps.
// CTA b is slice b % split of group b / split: columns [slice * slice_len, +slice_len).
// Shared memory: depth slots of slice_len floats; step k lives in slot k % depth.
template <int THREADS, bool LOG>
__global__ void __launch_bounds__(THREADS, 1)
split_ring(const float* __restrict__ x, float* __restrict__ y,
           unsigned long long* __restrict__ pairs, int* __restrict__ state, int64_t n_rows,
           int64_t n_cols,
           int groups, int split, int slice_len, int depth, int lag, int mode) {
    // mode (diagnostics, wrong outputs): 1 skips the partners' pairs (each CTA normalizes by its
    // own), 2 skips the output stores
    extern __shared__ __align__(16) float4 ring[];
    __shared__ float2 red[2][THREADS / 32];  // by step parity: a barrier a step apart
    __shared__ float2 row_pair;
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int group = blockIdx.x / split, slice = blockIdx.x % split;
    // This launch's pairs carry the parity of its generation + 1 in the sum's sign bit (a sum is
    // never negative); the last launch's carry the other one, and every launch writes every word.
    const unsigned parity = (unsigned)(*((volatile int*)state) + 1) & 1u;
    const int64_t c0 = (int64_t)slice * slice_len;
    const int64_t c1 = c0 + slice_len < n_cols ? c0 + slice_len : n_cols;
    const int n_vec = c1 > c0 ? (int)((c1 - c0) / 4) : 0;
    const int slot_vecs = slice_len / 4;
    const int64_t steps = group < n_rows ? (n_rows - group + groups - 1) / groups : 0;
    const int ahead = depth - lag;  // loads in flight beyond the step being reduced

    auto issue = [&](int64_t k) {  // this thread's float4s of step k into its own slots
        if (k < steps) {
            const float4* src =
                reinterpret_cast<const float4*>(x + (group + k * groups) * n_cols + c0);
            float4* dst = ring + (k % depth) * slot_vecs;
            for (int v = tid; v < n_vec; v += THREADS)
                __pipeline_memcpy_async(dst + v, src + v, 16);
        }
        __pipeline_commit();  // always: the group count stays one a step
    };

    // Warp 0's lanes p and p + 32 hold the words of the next row to write, loaded a step early.
    unsigned long long next_word[2] = {0ull, 0ull};
    auto load_words = [&](int64_t w) {
        if (w >= steps) return;
        const int64_t row = group + w * groups;
#pragma unroll
        for (int i = 0; i < 2; ++i) {
            const int p = lane + 32 * i;
            if (p < split)
                next_word[i] = *((volatile unsigned long long*)(pairs + row * split + p));
        }
    };

    for (int k = 0; k < ahead; ++k) issue(k);
    for (int64_t k = 0; k < steps + lag; ++k) {
        if (k < steps) {
            // (The header clamps the count at 8: with more than 9 steps ahead, as the 1024-row
            // 6-group variants have, this waits on newer copies than step k's too.)
            __pipeline_wait_prior(ahead - 1);
            const float4* s = ring + (k % depth) * slot_vecs;
            float m = -INFINITY;
            for (int v = tid; v < n_vec; v += THREADS) {
                const float4 q = s[v];
                m = fmaxf(m, fmaxf(fmaxf(q.x, q.y), fmaxf(q.z, q.w)));
            }
            float sum = 0.0f;
            if (m != -INFINITY) {
                for (int v = tid; v < n_vec; v += THREADS) {
                    const float4 q = s[v];
                    sum += (exp_of(q.x - m) + exp_of(q.y - m))
                           + (exp_of(q.z - m) + exp_of(q.w - m));
                }
            }
            float2 pair = warp_combine(make_float2(m, sum));
            if (lane == 0) red[k & 1][warp] = pair;
            __syncthreads();
            if (warp == 0) {
                pair = warp_combine(lane < THREADS / 32 ? red[k & 1][lane]
                                                        : make_float2(-INFINITY, 0.0f));
                if (lane == 0) {
                    const int64_t at = (group + k * groups) * split + slice;
                    *((volatile unsigned long long*)(pairs + at)) = pack(pair, parity);
                }
            }
        }
        if (k >= lag) {
            const int64_t w = k - lag;
            const int64_t row = group + w * groups;
            if (warp == 0 && (mode & 1)) {
                if (lane == 0) row_pair = red[w & 1][0];  // a stand-in of the right kind
            } else if (warp == 0) {
                if (w == 0) load_words(0);
                float2 pair = make_float2(-INFINITY, 0.0f);
#pragma unroll
                for (int i = 0; i < 2; ++i) {
                    const int p = lane + 32 * i;
                    if (p >= split) continue;
                    const int64_t at = row * split + p;
                    long long spins = 0;
                    unsigned long long word = next_word[i];  // loaded a step ago
                    while ((unsigned)(word >> 63) != parity) {
                        // once any spin gave up, none waits again: a wrong row, not a hang
                        if (++spins > SPIN_LIMIT || *((volatile int*)(state + 2))) {
                            atomicExch(state + 2, 1);
                            break;
                        }
                        word = *((volatile unsigned long long*)(pairs + at));
                    }
                    pair = combine(pair, unpack(word));
                }
                pair = warp_combine(pair);
                if (lane == 0) row_pair = pair;
                load_words(w + 1);  // in flight while this step writes: no L2 round trip waits
            }
            __syncthreads();  // row_pair is set
            const float2 whole = row_pair;
            const float inv = 1.0f / whole.y, log_sum = logf(whole.y);
            const float4* s = ring + (w % depth) * slot_vecs;
            float4* out = reinterpret_cast<float4*>(y + row * n_cols + c0);
            for (int v = tid; v < n_vec; v += THREADS) {
                float4 q = s[v];
                if (LOG) {
                    q = make_float4(q.x - whole.x - log_sum, q.y - whole.x - log_sum,
                                    q.z - whole.x - log_sum, q.w - whole.x - log_sum);
                } else {
                    q = make_float4(exp_of(q.x - whole.x) * inv, exp_of(q.y - whole.x) * inv,
                                    exp_of(q.z - whole.x) * inv, exp_of(q.w - whole.x) * inv);
                }
                if (!(mode & 2)) __stcs(out + v, q);
            }
            // The slot of step w is this thread's alone and read: step w + depth may land there.
            issue(w + depth);
            __syncthreads();  // every thread has read row_pair before the next row sets it
        } else {
            issue(k + ahead);
        }
    }
    __syncthreads();
    if (tid == 0) {
        __threadfence();
        if (atomicAdd(state + 1, 1) == (int)gridDim.x - 1) {  // the launch's last CTA
            state[1] = 0;
            __threadfence();
            atomicAdd(state, 1);
        }
    }
}

template <int THREADS, bool LOG>
static int ring_launch(const float* x, float* y, unsigned long long* pairs, int* state,
                       int64_t n_rows, int64_t n_cols, int64_t groups, int64_t split,
                       int64_t slice_len, int64_t depth, int64_t lag, int64_t mode,
                       cudaStream_t stream) {
    if (n_cols % 4 != 0 || slice_len % 4 != 0 || lag < 1 || depth <= lag)
        return (int)cudaErrorInvalidValue;
    const int bytes = (int)(depth * slice_len * 4);
    auto kernel = split_ring<THREADS, LOG>;
    cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           bytes);
    if (err != cudaSuccess) return (int)err;
    kernel<<<(unsigned)(groups * split), THREADS, bytes, stream>>>(
        x, y, pairs, state, n_rows, n_cols, (int)groups,
        (int)split, (int)slice_len, (int)depth, (int)lag, (int)mode);
    return (int)cudaGetLastError();
}
"""

ENTRY = r"""
extern "C" int run_t{threads}_{op}(const float* x, float* y, unsigned long long* pairs, int* state,
                                   int64_t n_rows, int64_t n_cols, int64_t groups, int64_t split,
                                   int64_t slice_len, int64_t depth, int64_t lag, int64_t mode,
                                   cudaStream_t stream) {{
    return ring_launch<{threads}, {log}>(x, y, pairs, state, n_rows, n_cols, groups, split,
                                         slice_len, depth, lag, mode, stream);
}}
"""

THREADS = (512, 1024)
SMEM_BYTES = 200 * 1024  # of the H200's 227 KB a block may opt into
# (rows, cols) -> variants (groups, threads, lag); the split is sm_count / groups and the depth
# as many slots as SMEM_BYTES holds
SHAPES = {
    (256, 128256): [(6, 512, 1), (6, 512, 2), (6, 1024, 2), (4, 512, 2), (12, 512, 2)],
    (1024, 32768): [(6, 512, 2), (12, 512, 2), (12, 512, 4), (22, 512, 2), (33, 512, 2)],
}
# timed only (their outputs are wrong by design): where a step's time goes
DIAGNOSTICS = {(256, 128256): [(12, 512, 2)], (1024, 32768): [(6, 512, 2), (33, 512, 2)]}
MODES = {1: "own_pair", 2: "no_stores", 3: "own_pair_no_stores"}


def source() -> str:
    parts = [SOURCE]
    for threads in THREADS:
        for op, log in (("softmax", "false"), ("log_softmax", "true")):
            parts.append(ENTRY.format(threads=threads, op=op, log=log))
    return "".join(parts)


def plan(n_cols: int, sms: int, groups: int, lag: int) -> dict | None:
    """The split, slice length (floats, a multiple of 4) and ring depth of a variant."""
    if sms % groups:
        return None
    split = sms // groups
    slice_len = -(-n_cols // split)
    slice_len += -slice_len % 4
    depth = SMEM_BYTES // (slice_len * 4)
    if depth <= lag + 1:
        return None
    return {"groups": groups, "split": split, "slice_len": slice_len, "depth": depth, "lag": lag}


class Ring:
    """One variant on one input: its workspace (pairs, flags, the generation and error words),
    allocated once, and a call that writes `out`."""

    def __init__(self, lib, op: str, threads: int, x: torch.Tensor, shape_plan: dict,
                 mode: int = 0):
        self.fn, self.mode = getattr(lib, f"run_t{threads}_{op}"), mode
        self.x, self.plan = x, shape_plan
        rows = x.shape[0]
        self.pairs = torch.zeros(rows * shape_plan["split"], dtype=torch.int64, device=x.device)
        self.state = torch.zeros(4, dtype=torch.int32, device=x.device)

    def __call__(self, out: torch.Tensor) -> int:
        p = self.plan
        return self.fn(*(ctypes.c_void_p(t.data_ptr()) for t in (self.x, out, self.pairs,
                                                                self.state)),
                       *(ctypes.c_int64(v) for v in (self.x.shape[0], self.x.shape[1],
                                                     p["groups"], p["split"], p["slice_len"],
                                                     p["depth"], p["lag"], self.mode)),
                       ctypes.c_void_p(torch.cuda.current_stream().cuda_stream))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "runs"))
    parser.add_argument("--compile-only", action="store_true",
                        help="build the variants for sm_90 and stop (no GPU needed)")
    args = parser.parse_args()
    if args.compile_only:
        print("built", cuda_ext.compile_source(source(), arch="90"))
        for (rows, cols), variants in SHAPES.items():
            for groups, threads, lag in variants:
                print(rows, cols, threads, plan(cols, 132, groups, lag))
        return
    from row_probes import time_beside_zoo_and_copy, write_probe
    from verifier.timing import L2Flusher

    torch.manual_seed(0)
    lib = ctypes.CDLL(str(cuda_ext.compile_source(source())))
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    flusher = L2Flusher(torch.device("cuda"))
    results = []
    for (rows, cols), variants in SHAPES.items():
        x = torch.randn(rows, cols, device="cuda") * 4.0
        x[1, 5:cols // 2] = float("-inf")  # a run of -inf across slices
        for op in ("softmax", "log_softmax"):
            ref = getattr(torch, op)(x.double(), dim=1)
            fns, errors, plans = {}, {}, {}
            for groups, threads, lag in variants:
                shape_plan = plan(cols, sms, groups, lag)
                name = f"g{groups}_t{threads}_l{lag}"
                if shape_plan is None:
                    errors[name] = f"no plan for {sms} SMs"
                    continue
                plans[name] = shape_plan
                ring = Ring(lib, op, threads, x, shape_plan)
                worst = 0.0
                for _ in range(3):  # three launches: the generation must advance each time
                    y = torch.full_like(x, float("nan"))
                    rc = ring(y)
                    torch.cuda.synchronize()
                    if rc:
                        break
                    finite = torch.isfinite(ref)
                    bad = (torch.isfinite(y) != finite).sum().item()
                    diff = (y.double() - ref)[finite]
                    err = (diff.norm() / ref[finite].norm()).item()
                    worst = max(worst, err) if not bad else float("inf")
                stuck = int(ring.state[2].item())
                errors[name] = {"rc": rc, "rel_l2": worst, "stuck": stuck,
                                "generation": int(ring.state[0].item())}
                print(op, rows, cols, name, shape_plan, errors[name], flush=True)
                if rc == 0 and not stuck and worst < 1e-5:
                    fns[name] = (lambda r=ring, out=torch.empty_like(x): r(out))
            if op == "softmax":
                for groups, threads, lag in DIAGNOSTICS[rows, cols]:
                    for mode, what in MODES.items():
                        ring = Ring(lib, op, threads, x, plan(cols, sms, groups, lag), mode)
                        fns[f"g{groups}_t{threads}_l{lag}_{what}"] = (
                            lambda r=ring, out=torch.empty_like(x): r(out))
            us, failed = time_beside_zoo_and_copy(x, fns, errors, flusher, ref, op=op)
            results.append({"op": op, "shape": [rows, cols], "us_graphs": us, "errors": errors,
                            "plans": plans, "graph_capture_failed": failed})
    write_probe(args.out, "probe-split-ring",
                "float32 softmax and log-softmax: a row split over a group of CTAs (one an SM, "
                "groups x split = the SM count), each slice staged in a ring of shared-memory "
                "slots by cp.async, pairs through global memory, each row written lag steps after "
                "it was read; against kernel_zoo.ops.<op> and a copy of the same bytes; CUDA-graph "
                "replays, L2 flushed, medians in us", results,
                variants="g<groups>_t<threads>_l<lag>[_<diagnostic mode>]")


if __name__ == "__main__":
    main()
