"""GEMM `linear_bias_gelu` rendered by kernel-zoo from template `gemm`: C = epilogue(A @ B).

Params: {"BLOCK_K": 64, "BLOCK_M": 128, "BLOCK_N": 256, "EPILOGUE_SPLIT": 2, "GROUP_M": 8, "SPLIT_K": 1, "flatten": true, "fuse_norm": false, "gelu_erf_fit": true, "num_ctas": 1, "num_stages": 3, "num_warps": 8, "odd_tiled": true, "persistent": 1, "shift_tail": false, "single_wave_tiled": true, "skinny_rows": 128, "swap_ab": false, "use_tma": true, "ws_coop": false, "ws_pingpong": true}
A: {"index": 0, "source": "arg", "transposed": false}   B: {"path": "fc.weight", "source": "param", "transposed": true}
Epilogue (["acc"] is the fp32 matmul result): ["gelu", ["add", ["acc"], ["input", 0]], "none"]
Epilogue inputs: [{"kind": "row", "path": "fc.bias", "source": "param"}]
Launcher: launch_linear_bias_gelu(a, b, in0); a transposed operand is
transposed here by its strides, never copied. fp32 operands multiply in IEEE fp32 (no TF32);
16-bit ones accumulate in fp32; the epilogue runs in fp32 and only its result is rounded.
"""
import functools

import torch
import triton
import triton.language as tl
# the descriptor kernel is rendered whatever the config: odd rows take it (tma_plan)
from triton.tools.tensor_descriptor import TensorDescriptor
# ws_pingpong: the warp-specialized kernel of Linear calls on Hopper (ws_plan), in Gluon
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (
    fence_async_shared, mbarrier, tma, warpgroup_mma, warpgroup_mma_wait,
)
from triton.experimental.gluon.nvidia.hopper import TensorDescriptor as _WsDescriptor
from triton.language.core import _aggregate as _ws_aggregate


def _cdiv(a: int, b: int) -> int:
    """ceil(a / b) for non-negative ints, on the host."""
    return -(-a // b)


def _next_pow2(n: int) -> int:
    """The smallest power of two >= n, 0 for 0 (as triton.next_power_of_2), on the host."""
    return 1 << (n - 1).bit_length() if n > 0 else 0


def _unit(values, data_ptr: int, itemsize: int) -> int:
    """The widest vector (elements, at most 16 bytes) that every offset and the base align to.
    A kernel takes its widths and strides divided by it and multiplies them back by the
    constexpr: Triton marks an int argument only when it is divisible by 16, so a 1000-wide
    bf16 row (2000 bytes, 16-byte aligned) would otherwise get 2-byte loads and stores."""
    unit = 16 // itemsize
    while unit > 1 and (any(v % unit for v in values) or data_ptr % (unit * itemsize)):
        unit //= 2
    return unit


PARAMS = {'BLOCK_M': 128, 'BLOCK_N': 256, 'BLOCK_K': 64, 'GROUP_M': 8, 'num_warps': 8, 'num_stages': 3, 'SPLIT_K': 1, 'persistent': 1, 'use_tma': True, 'EPILOGUE_SPLIT': 2, 'flatten': True, 'gelu_erf_fit': True, 'skinny_rows': 128, 'odd_tiled': True, 'single_wave_tiled': True, 'fuse_norm': False, 'ws_pingpong': True, 'ws_coop': False, 'num_ctas': 1, 'swap_ab': False, 'shift_tail': False}
BLOCK_M = 128
BLOCK_N = 256
BLOCK_K = 64
EPILOGUE_SPLIT = 2
GROUP_M = 8
NUM_WARPS = 8
NUM_STAGES = 3
# CTAs a tile of the descriptor kernel is split over, as one cluster, where B is not transposed
# (the other kernels and calls: 1)
NUM_CTAS = 1
SPLIT_K = 1
PERSISTENT = 1
USE_TMA = True
SHIFT_TAIL = False  # the last tile row ends at row M (overlapping the one before)
SKINNY_ROWS = 128
# with SKINNY_ROWS: (BLOCK_M, BLOCK_N, route, the calls it may serve: "one" those whose rows one
# of its tile rows covers, "tile" those with at least a tile row's rows (shift_tail brings the
# last tile row in bounds), "any") of the skinny companions, smallest tile first
SKINNY_TILES = ((32, 64, 'skinny_narrow', 'one'), (32, 128, 'skinny_narrow_wide', 'one'), (64, 64, 'skinny', 'tile'), (64, 64, 'skinny_pointer', 'any'), (64, 128, 'skinny_wide', 'any'), (64, 256, 'skinny_wider', 'any'), (128, 128, 'skinny_large', 'any'))
# DECODE_DEFAULT's, DECODE_WIDE's and DECODE_WIDER's tile widths, which _route counts waves by
DECODE_BLOCK_N = (32, 64, 128)
DECODE_ROWS = 16  # with SKINNY_ROWS: calls of at most this many output rows run DECODE_DEFAULT's
ODD_TILED = True
SINGLE_WAVE_TILED = True
A_TRANSPOSED = False
B_TRANSPOSED = True
MAX_SHARED_BYTES = 227 * 1024


@triton.jit
def _relu(x):
    return tl.where(x < 0.0, 0.0, x)  # NaN passes through, as in torch


@triton.jit
def _leaky_relu(x, slope):
    return tl.where(x > 0.0, x, x * slope)


@triton.jit
def _expm1(x):
    # exp(x) - 1 cancels near 0; the series is exact to fp32 there.
    series = x * (1.0 + x * (0.5 + x * (1.0 / 6.0 + x * (1.0 / 24.0 + x * (1.0 / 120.0)))))
    return tl.where(tl.abs(x) < 0.03125, series, tl.exp(x) - 1.0)


@triton.jit
def _elu(x, alpha):
    return tl.where(x > 0.0, x, alpha * _expm1(x))


@triton.jit
def _sigmoid(x):
    return 1.0 / (1.0 + tl.exp(-x))  # exp overflow gives 1/inf = 0, never NaN


@triton.jit
def _silu(x):
    return x / (1.0 + tl.exp(-x))


@triton.jit
def _tanh(x):
    ax = tl.abs(x)
    t = tl.exp(-2.0 * ax)
    far = (1.0 - t) / (1.0 + t)
    x2 = ax * ax
    near = ax * (1.0 + x2 * (-1.0 / 3.0 + x2 * (2.0 / 15.0 + x2 * (-17.0 / 315.0))))
    r = tl.where(ax < 0.0625, near, far)
    return tl.where(x < 0.0, -r, r)


@triton.jit
def _gelu_erf(x):
    # x * Phi(x) with Phi from erfc's Chebyshev fit (Numerical Recipes' erfcc, relative error
    # < 1.2e-7 in erfc): Phi(x) = erfc(-x/sqrt 2) / 2, one division and one exponential, no
    # cancellation for negative x (libdevice's 1 + erf(x) loses digits there).
    z = tl.abs(x) * 0.7071067811865476
    t = 1.0 / (1.0 + 0.5 * z)
    p = -1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (
        -0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (
            -0.82215223 + t * 0.17087277))))))))
    half_erfc = 0.5 * t * tl.exp2((p - z * z) * 1.4426950408889634)
    return x * tl.where(x < 0.0, half_erfc, 1.0 - half_erfc)


@triton.jit
def _gelu_tanh(x):
    # 0.5 * (1 + tanh(u)) == sigmoid(2u): no cancellation for negative x.
    u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    return x / (1.0 + tl.exp(-2.0 * u))


@triton.jit
def _log1p_unit(e):
    # log(1 + e) for e in [0, 1]; the series covers small e, where 1 + e would round e away.
    series = e * (1.0 - e * (0.5 - e * (1.0 / 3.0 - e * (0.25 - e * 0.2))))
    return tl.where(e < 0.03125, series, tl.log(1.0 + e))


@triton.jit
def _softplus(x, beta, threshold):
    z = x * beta
    sp = tl.where(z > 0.0, z, 0.0) + _log1p_unit(tl.exp(-tl.abs(z)))
    return tl.where(z > threshold, x, sp / beta)


@triton.jit
def _mish(x):
    # tanh(log1p(e^x)) == n / (n + 2) with n = e^x (e^x + 2); past 20 it is 1 in fp32.
    e = tl.exp(tl.where(x < 20.0, x, 20.0))
    n = e * (e + 2.0)
    return tl.where(x > 20.0, x, x * (n / (n + 2.0)))


@triton.jit
def _clamp_min(x, lo):
    return tl.where(x < lo, lo, x)


@triton.jit
def _clamp_max(x, hi):
    return tl.where(x > hi, hi, x)


@triton.jit
def _clamp(x, lo, hi):
    # min(max(x, lo), hi), as torch.clamp (lo > hi gives hi); NaN passes through.
    return _clamp_max(_clamp_min(x, lo), hi)


@triton.jit
def _hardsigmoid(x):
    return _clamp(x + 3.0, 0.0, 6.0) / 6.0


@triton.jit
def _hardswish(x):
    return x * _clamp(x + 3.0, 0.0, 6.0) / 6.0


@triton.jit
def _maximum(a, b):
    return tl.where((a > b) | (a != a), a, b)  # NaN in either wins, as torch.maximum


@triton.jit
def _minimum(a, b):
    return tl.where((a < b) | (a != a), a, b)
@triton.jit
def _tile_coords(tile_id, tiles_m, tiles_n, GROUP_M: tl.constexpr):
    # Tiles in groups of GROUP_M tile rows, column by column inside a group: programs running
    # together read GROUP_M A row-panels and a few B column-panels, which stay in L2.
    per_batch = tiles_m * tiles_n
    batch = tile_id // per_batch
    t = tile_id % per_batch
    in_group = GROUP_M * tiles_n
    first_m = (t // in_group) * GROUP_M
    group_rows = tl.minimum(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (t % in_group) % group_rows
    pid_n = (t % in_group) // group_rows
    return batch, pid_m, pid_n


@triton.jit
def _gemm_kernel(
    a_ptr, b_ptr, c_ptr, w_ptr, lock_ptr, in0, M, N, K, n_batch, k_per_split, w_slot,
    stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn,
    stride_cb, stride_cm, s0_n, 
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
    SPLIT_K: tl.constexpr, EVEN_M: tl.constexpr, EVEN_N: tl.constexpr, EVEN_K: tl.constexpr,
    STAGES: tl.constexpr, C_UNIT: tl.constexpr,
    IS_FP32: tl.constexpr, UPCAST_BF16: tl.constexpr, ON_GPU: tl.constexpr, INDEX_64: tl.constexpr,
):
    # N and the output's row and batch strides arrive in units of C_UNIT elements (_output_unit):
    # Triton marks an int argument only when it is divisible by 16, and a store whose mask ends at
    # an unmarked N, or whose rows start at an unmarked stride, is split into 2-byte stores (at
    # N = 3000, bf16: 128 per thread of a 128x256 tile, in an offline sm_90 compile).
    N = N * C_UNIT
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    # Persistent grid: each program walks tiles with a stride of the grid size.
    pid_k = 0
    n_tiles = n_batch * tiles_m * tiles_n
    for tile_id in tl.range(pid, n_tiles, tl.num_programs(0), flatten=True):
        batch, pid_m, pid_n = _tile_coords(tile_id, tiles_m, tiles_n, GROUP_M)
        batch64 = batch.to(tl.int64)
        off_m = pid_m * BLOCK_M

        offs_m = off_m + tl.arange(0, BLOCK_M)
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_k = tl.arange(0, BLOCK_K)
        if INDEX_64:
            offs_m = offs_m.to(tl.int64)
            offs_n = offs_n.to(tl.int64)
            offs_k = offs_k.to(tl.int64)
        k_start = pid_k * k_per_split
        k_end = tl.minimum(K, k_start + k_per_split)
        a_ptrs = a_ptr + batch64 * stride_ab + offs_m[:, None] * stride_am + (k_start + offs_k)[None, :] * stride_ak
        b_ptrs = b_ptr + batch64 * stride_bb + (k_start + offs_k)[:, None] * stride_bk + offs_n[None, :] * stride_bn
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        # Whole K tiles first, masked only at the M and N edges; the partial tile, if any, comes last. A
        # mask along K (a K of 1000, say) in every step of the loop keeps its loads from being vectorized:
        # gelu(linear) at 4099 x 3073 x 1000 on an H100 took 1.75 ms with it and 1.03 ms without
        # (bench/results/runs/compose-h100-round4.json, -round6.json; eager 0.34 ms).
        k_full = k_start + (k_end - k_start) // BLOCK_K * BLOCK_K
        # STAGES: the launch's stages (fp32_stages() for float32, whose tiles are twice the bytes; a
        # loop rendered with the config's own count would ask float32 for twice the shared memory)
        for k in tl.range(k_start, k_full, BLOCK_K, num_stages=STAGES):
            if EVEN_M:
                a = tl.load(a_ptrs)
            else:
                a = tl.load(a_ptrs, mask=offs_m[:, None] < M, other=0.0)
            if EVEN_N:
                b = tl.load(b_ptrs)
            else:
                b = tl.load(b_ptrs, mask=offs_n[None, :] < N, other=0.0)
            if IS_FP32:
                # Two-level sum: each K block's products are summed fresh, then added to acc by an add the
                # compiler cannot fold back into the dot. Folded, acc is one K-long running sum whose rounding
                # error crossed the verifier's element-wise fp32 bound at K = 4096 (1 element in 16M).
                part = tl.dot(a, b, input_precision="ieee")
                if ON_GPU:
                    acc = tl.inline_asm_elementwise("add.rn.f32 $0, $1, $2;", "=r,r,r", [acc, part],
                                                    dtype=tl.float32, is_pure=True, pack=1)
                else:
                    acc = acc + part
            elif UPCAST_BF16:
                acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision="ieee")
            else:
                acc = tl.dot(a, b, acc)
            a_ptrs += BLOCK_K * stride_ak
            b_ptrs += BLOCK_K * stride_bk
        if not EVEN_K:
            if k_full < k_end:
                a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & ((k_full + offs_k)[None, :] < k_end), other=0.0)
                b = tl.load(b_ptrs, mask=((k_full + offs_k)[:, None] < k_end) & (offs_n[None, :] < N), other=0.0)
                if IS_FP32:
                    # Two-level sum: each K block's products are summed fresh, then added to acc by an add the
                    # compiler cannot fold back into the dot. Folded, acc is one K-long running sum whose rounding
                    # error crossed the verifier's element-wise fp32 bound at K = 4096 (1 element in 16M).
                    part = tl.dot(a, b, input_precision="ieee")
                    if ON_GPU:
                        acc = tl.inline_asm_elementwise("add.rn.f32 $0, $1, $2;", "=r,r,r", [acc, part],
                                                        dtype=tl.float32, is_pure=True, pack=1)
                    else:
                        acc = acc + part
                elif UPCAST_BF16:
                    acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision="ieee")
                else:
                    acc = tl.dot(a, b, acc)

        if SPLIT_K > 1:
            # Each split stores its fp32 partial tile in the workspace (SPLIT_K, batch, M, N) and counts
            # itself in the tile's counter; the split that counts last sums the SPLIT_K partials in split
            # order (the same sum every run, whichever split is last) and applies the epilogue. One
            # launch: no second kernel, and the partials are read back while still in L2.
            w_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
            w_tile = w_ptr + (batch64 * M + offs_m[:, None]) * N + offs_n[None, :]
            # w_slot = n_batch * M * N, one split's partials (from the host: any of these three may be a
            # constant 1 here, which Triton passes as a Python int)
            tl.store(w_tile + pid_k.to(tl.int64) * w_slot, acc, mask=w_mask)
            # every thread's partial is stored before the count (acq_rel: released with it, and the last
            # split's loads below are ordered after its acquire)
            tl.debug_barrier()
            arrived = tl.atomic_add(lock_ptr + tile_id, 1, sem="acq_rel")
            if arrived == SPLIT_K - 1:
                acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
                for s in tl.static_range(SPLIT_K):
                    # .cg: from L2, where the other splits' stores are, never a stale L1 line
                    acc += tl.load(w_tile, mask=w_mask, other=0.0, cache_modifier=".cg")
                    w_tile += w_slot
                # The epilogue in 2 column slices of the tile, one after another: each slice's
                # temporaries and its store's layout change are 1/2 of the tile's.
                acc_0 = acc
                acc_0, acc_1 = tl.split(tl.permute(tl.reshape(acc_0, (BLOCK_M, 2, BLOCK_N // 2)), (0, 2, 1)))
                acc = acc_0
                offs_n = pid_n * BLOCK_N + 0 * (BLOCK_N // 2) + tl.arange(0, BLOCK_N // 2)
                if INDEX_64:
                    offs_n = offs_n.to(tl.int64)
                c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
                x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
                t0 = acc + x0
                t1 = _gelu_erf(t0)

                # The output is contiguous, its strides in units of C_UNIT elements (the kernel's N as well),
                # and stored in vectors of at most C_UNIT elements: where N is a multiple of 16, Triton would
                # otherwise take 16 bytes whatever the unit (_output_unit says when that is slow). A unit of 1
                # (an odd N) keeps Triton's own row-major layout.
                if C_UNIT > 1:
                    c_cols = tl.max_contiguous(offs_n, C_UNIT)
                else:
                    c_cols = offs_n
                c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
                tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)
                acc = acc_1
                offs_n = pid_n * BLOCK_N + 1 * (BLOCK_N // 2) + tl.arange(0, BLOCK_N // 2)
                if INDEX_64:
                    offs_n = offs_n.to(tl.int64)
                c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
                x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
                t0 = acc + x0
                t1 = _gelu_erf(t0)

                # The output is contiguous, its strides in units of C_UNIT elements (the kernel's N as well),
                # and stored in vectors of at most C_UNIT elements: where N is a multiple of 16, Triton would
                # otherwise take 16 bytes whatever the unit (_output_unit says when that is slow). A unit of 1
                # (an odd N) keeps Triton's own row-major layout.
                if C_UNIT > 1:
                    c_cols = tl.max_contiguous(offs_n, C_UNIT)
                else:
                    c_cols = offs_n
                c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
                tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)

        else:
            # The epilogue in 2 column slices of the tile, one after another: each slice's
            # temporaries and its store's layout change are 1/2 of the tile's.
            acc_0 = acc
            acc_0, acc_1 = tl.split(tl.permute(tl.reshape(acc_0, (BLOCK_M, 2, BLOCK_N // 2)), (0, 2, 1)))
            acc = acc_0
            offs_n = pid_n * BLOCK_N + 0 * (BLOCK_N // 2) + tl.arange(0, BLOCK_N // 2)
            if INDEX_64:
                offs_n = offs_n.to(tl.int64)
            c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
            x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
            t0 = acc + x0
            t1 = _gelu_erf(t0)

            # The output is contiguous, its strides in units of C_UNIT elements (the kernel's N as well),
            # and stored in vectors of at most C_UNIT elements: where N is a multiple of 16, Triton would
            # otherwise take 16 bytes whatever the unit (_output_unit says when that is slow). A unit of 1
            # (an odd N) keeps Triton's own row-major layout.
            if C_UNIT > 1:
                c_cols = tl.max_contiguous(offs_n, C_UNIT)
            else:
                c_cols = offs_n
            c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
            tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)
            acc = acc_1
            offs_n = pid_n * BLOCK_N + 1 * (BLOCK_N // 2) + tl.arange(0, BLOCK_N // 2)
            if INDEX_64:
                offs_n = offs_n.to(tl.int64)
            c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
            x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
            t0 = acc + x0
            t1 = _gelu_erf(t0)

            # The output is contiguous, its strides in units of C_UNIT elements (the kernel's N as well),
            # and stored in vectors of at most C_UNIT elements: where N is a multiple of 16, Triton would
            # otherwise take 16 bytes whatever the unit (_output_unit says when that is slow). A unit of 1
            # (an odd N) keeps Triton's own row-major layout.
            if C_UNIT > 1:
                c_cols = tl.max_contiguous(offs_n, C_UNIT)
            else:
                c_cols = offs_n
            c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
            tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)



@triton.jit
def _gemm_tma_kernel(
    a_desc, b_desc, c_ptr, in0, M, N, K, stride_cb, stride_cm,
    s0_n, 
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
    A_T: tl.constexpr, B_T: tl.constexpr, STAGES: tl.constexpr, C_UNIT: tl.constexpr,
    IS_FP32: tl.constexpr, UPCAST_BF16: tl.constexpr, ON_GPU: tl.constexpr,
):
    # N and the output's row and batch strides arrive in units of C_UNIT elements (_output_unit):
    # Triton marks an int argument only when it is divisible by 16, and a store whose mask ends at
    # an unmarked N, or whose rows start at an unmarked stride, is split into 2-byte stores (at
    # N = 3000, bf16: 128 per thread of a 128x256 tile, in an offline sm_90 compile).
    N = N * C_UNIT
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    for tile_id in tl.range(pid, tiles_m * tiles_n, tl.num_programs(0), flatten=True):
        batch, pid_m, pid_n = _tile_coords(tile_id, tiles_m, tiles_n, GROUP_M)
        batch64 = batch.to(tl.int64)
        off_m = pid_m * BLOCK_M

        off_n = pid_n * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        # Boxes past M, N or K are zero-filled by the TMA unit: no masks.
        for k in tl.range(0, K, BLOCK_K, num_stages=STAGES):  # the launch's stages, as above
            if A_T:
                a = a_desc.load([k, off_m]).T
            else:
                a = a_desc.load([off_m, k])
            if B_T:
                b = b_desc.load([off_n, k]).T
            else:
                b = b_desc.load([k, off_n])
            if IS_FP32:
                # Two-level sum: each K block's products are summed fresh, then added to acc by an add the
                # compiler cannot fold back into the dot. Folded, acc is one K-long running sum whose rounding
                # error crossed the verifier's element-wise fp32 bound at K = 4096 (1 element in 16M).
                part = tl.dot(a, b, input_precision="ieee")
                if ON_GPU:
                    acc = tl.inline_asm_elementwise("add.rn.f32 $0, $1, $2;", "=r,r,r", [acc, part],
                                                    dtype=tl.float32, is_pure=True, pack=1)
                else:
                    acc = acc + part
            elif UPCAST_BF16:
                acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision="ieee")
            else:
                acc = tl.dot(a, b, acc)

        offs_m = off_m + tl.arange(0, BLOCK_M)
        # The epilogue in 2 column slices of the tile, one after another: each slice's
        # temporaries and its store's layout change are 1/2 of the tile's.
        acc_0 = acc
        acc_0, acc_1 = tl.split(tl.permute(tl.reshape(acc_0, (BLOCK_M, 2, BLOCK_N // 2)), (0, 2, 1)))
        acc = acc_0
        offs_n = off_n + 0 * (BLOCK_N // 2) + tl.arange(0, BLOCK_N // 2)
        c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
        x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
        t0 = acc + x0
        t1 = _gelu_erf(t0)

        # The output is contiguous, its strides in units of C_UNIT elements (the kernel's N as well),
        # and stored in vectors of at most C_UNIT elements: where N is a multiple of 16, Triton would
        # otherwise take 16 bytes whatever the unit (_output_unit says when that is slow). A unit of 1
        # (an odd N) keeps Triton's own row-major layout.
        if C_UNIT > 1:
            c_cols = tl.max_contiguous(offs_n, C_UNIT)
        else:
            c_cols = offs_n
        c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
        tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)
        acc = acc_1
        offs_n = off_n + 1 * (BLOCK_N // 2) + tl.arange(0, BLOCK_N // 2)
        c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
        x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
        t0 = acc + x0
        t1 = _gelu_erf(t0)

        # The output is contiguous, its strides in units of C_UNIT elements (the kernel's N as well),
        # and stored in vectors of at most C_UNIT elements: where N is a multiple of 16, Triton would
        # otherwise take 16 bytes whatever the unit (_output_unit says when that is slow). A unit of 1
        # (an odd N) keeps Triton's own row-major layout.
        if C_UNIT > 1:
            c_cols = tl.max_contiguous(offs_n, C_UNIT)
        else:
            c_cols = offs_n
        c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
        tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)



@functools.lru_cache(maxsize=None)
def _sm_count(device_index: int) -> int:
    if not torch.cuda.is_available():
        return 4  # Triton's interpreter: a small machine, so small grids reach every path
    return torch.cuda.get_device_properties(device_index).multi_processor_count


def _as_3d(a, b):
    """(A as (batch, M, K), B as (batch, K, N), the output's shape); views where strides allow."""
    if a.dim() < 2 or b.dim() < 2:
        raise ValueError(f"launch_linear_bias_gelu: operands must have 2 or more dims, got "
                         f"{tuple(a.shape)} and {tuple(b.shape)}")
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"launch_linear_bias_gelu: inner dims differ: {tuple(a.shape)} @ {tuple(b.shape)}")
    m, k, n = a.shape[-2], a.shape[-1], b.shape[-1]
    if b.dim() == 2:
        # B shared by every batch: A's batch dims fold into M (one GEMM, larger tiles of work).
        out_shape = (*a.shape[:-1], n)
        return a.reshape(1, -1, k), b.unsqueeze(0), out_shape
    if a.dim() == 2:
        b3 = b.reshape(-1, k, n)
        return a.unsqueeze(0).expand(b3.shape[0], m, k), b3, (*b.shape[:-2], m, n)
    if a.shape[:-2] != b.shape[:-2]:
        raise ValueError(f"launch_linear_bias_gelu: batch dims differ ({tuple(a.shape[:-2])} vs "
                         f"{tuple(b.shape[:-2])}); broadcast batch dims are not covered")
    return a.reshape(-1, m, k), b.reshape(-1, k, n), (*a.shape[:-2], m, n)


@triton.jit
def _pad_copy_kernel(src, dst, R, C, s_b, s_r, s_c, d_b, d_r,
                     BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    pid_b = tl.program_id(2).to(tl.int64)
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (rows[:, None] < R) & (cols[None, :] < C)
    rows64 = rows.to(tl.int64)
    x = tl.load(src + pid_b * s_b + rows64[:, None] * s_r + cols[None, :] * s_c, mask=mask)
    tl.store(dst + pid_b * d_b + rows64[:, None] * d_r + cols[None, :], x, mask=mask)


def _unaligned(t3) -> bool:
    """Whether the pointer kernel would read t3 (batch, R, C) through a padded copy (_aligned):
    a unit-stride dim whose rows (or, with batches, batch stride) are not a multiple of 16
    elements, or a base that is not 16-byte aligned. Neither dim contiguous: read as it is."""
    if t3.stride(2) == 1 or t3.shape[2] == 1:
        lead_dim = 1
    elif t3.stride(1) == 1 or t3.shape[1] == 1:
        return _unaligned(t3.transpose(1, 2))
    else:
        return False
    strides_ok = t3.stride(lead_dim) % 16 == 0 and (t3.shape[0] == 1 or t3.stride(0) % 16 == 0)
    return not (strides_ok and t3.data_ptr() % 16 == 0)


def _aligned(t3):
    """t3 (batch, R, C) read by the GEMM; when its row stride is not a multiple of 16 elements
    (a width of 4097, or of 1000), a copy into rows padded to 16 elements, viewed at the original
    width. Triton vectorizes a tile load only along rows whose stride it can prove to be a
    multiple of 16 elements; scalar loads cost the GEMM several times the copy (on an H100,
    4095x4097x4093 took 5.9 ms, bench/results/runs/tune-h100-gemm-attention.json; gelu(linear) at
    4099 x 3073 x 1000 took 0.99 ms with rows of 1000 and 0.09 ms with rows of 1024,
    bench/results/gemm-odd-h100.json). Where descriptor loads are available the launcher takes
    them for such operands instead (tma_plan), and this copy is the fallback."""
    if not _unaligned(t3):
        return t3
    if not (t3.stride(2) == 1 or t3.shape[2] == 1):
        return _aligned(t3.transpose(1, 2)).transpose(1, 2)
    elem = 16
    batch, rows, cols = t3.shape
    padded = _cdiv(cols, elem) * elem
    out = torch.empty((batch, rows, padded), dtype=t3.dtype, device=t3.device)
    grid = (_cdiv(rows, 32), _cdiv(cols, 128), batch)
    _pad_copy_kernel[grid](t3, out, rows, cols, t3.stride(0), t3.stride(1), t3.stride(2),
                           out.stride(0), out.stride(1), BLOCK_R=32, BLOCK_C=128, num_warps=4)
    return out[:, :, :cols]


# Host-side descriptors and in-kernel descriptor loads, where the installed Triton has both.
TMA_AVAILABLE = hasattr(tl, "tensor_descriptor") and hasattr(TensorDescriptor, "from_tensor")


@functools.lru_cache(maxsize=None)
def _capability(device_index: int) -> tuple[int, int]:
    return torch.cuda.get_device_capability(device_index)


def _tma_refused(t: torch.Tensor, wanted: bool = USE_TMA) -> str | None:
    """Why no call on `t`'s device takes descriptor loads under this config, or None."""
    if not wanted:
        return "config: use_tma is off"
    if not TMA_AVAILABLE:
        return "the installed Triton has no tensor descriptors"
    if not t.is_cuda:
        return "not a CUDA device (Triton's interpreter runs the pointer kernel)"
    if _capability(t.get_device())[0] < 9:
        return "TMA needs compute capability 9.0 or newer"
    return None


def tma_plan(a3, b3) -> str:
    """"tma" when this call takes the TMA kernel, else why it takes the pointer kernel.

    With use_tma off, a call whose A or B rows would need a padded copy for the pointer kernel
    (rows of 1000 or 3073 elements, say: 16-byte aligned, not 16-element aligned) takes the
    descriptor kernel where it can: it reads such rows in place at full speed, where the copy
    costs a kernel and a buffer (at 4099 x 1000 -> 3073 on an H100, 0.098 ms against 0.376 ms
    padded, bench/results/gemm-odd-h100.json). Not under split-K, which the TMA kernel lacks,
    and for 16-bit operands only: float32 through descriptors at the default 128x256x64 tiles
    needs 256 KB of shared memory and does not compile (runs/probe-fp32-tma-h100.txt)."""
    odd_rows = not USE_TMA and SPLIT_K == 1 and a3.element_size() == 2 and (
        _unaligned(a3) or _unaligned(b3))
    refused = _tma_refused(a3, USE_TMA or odd_rows)
    if refused:
        return refused
    if a3.shape[0] != 1:
        return "batched operands (the TMA kernel is 2-D)"
    for name, t in (("A", a3[0]), ("B", b3[0])):
        if t.stride(-1) != 1 and t.stride(-2) != 1:
            return f"{name} has no unit stride"
        outer = t.stride(-2) if t.stride(-1) == 1 else t.stride(-1)
        if t.data_ptr() % 16 or (outer * t.element_size()) % 16:
            return f"{name}'s base or row stride is not 16-byte aligned"
    return "tma"


class _RecordedDescriptor(TensorDescriptor):
    """A descriptor of a recorded launch (_gemm's recipe), built without TensorDescriptor's
    checks: the recipe's key (the caller's shapes, strides, dtypes and 16-byte alignment) fixes
    all those checks read, and the recording call's descriptors passed them. Building the two
    descriptors with the checks took 6 us of an H100 host's time a call
    (bench/results/probe-host-parts-h100.json)."""

    def __init__(self, base, shape, strides, block_shape):
        self.base, self.shape, self.strides, self.block_shape = base, shape, strides, block_shape


def _descriptor(t, rows_block: int, cols_block: int):
    """A descriptor over 2-D `t` and whether the kernel must transpose what it loads."""
    if t.stride(-1) == 1:
        return TensorDescriptor(t, list(t.shape), [t.stride(0), 1], [rows_block, cols_block]), False
    # column-major: describe the transpose (row-major in memory) and transpose each box back
    return TensorDescriptor(t, [t.shape[1], t.shape[0]], [t.stride(1), 1],
                            [cols_block, rows_block]), True


def _epilogue_args(extras, out_shape, c_shape, like):
    """The epilogue's operands, checked, and their strides, in the kernels' argument order."""
    args, strides, flags = [], [], {}
    n = c_shape[2]
    t = extras[0]
    if t.dim() != 1 or t.shape[0] != n or t.dtype != like.dtype:
        raise ValueError(f"launch_linear_bias_gelu: epilogue input 0 is {tuple(t.shape)} {t.dtype}; "
                         f"expected ({n},) {like.dtype}, broadcast along N")
    strides.append(t.stride(0))
    args.append(t)
    return args, strides, flags


def fp32_stages(stages: int = NUM_STAGES) -> int:
    """Pipeline stages of an fp32 launch: NUM_STAGES, lowered until 4-byte tiles fit. A loop
    pipelined in n stages keeps n - 1 tiles of A and B in shared memory (Triton 3.6 asked for
    8 x 48 KB at 9 stages of 128x64x64 fp32 tiles, runs/gpu-tests-h100-round17.txt)."""
    per_stage = (BLOCK_M * BLOCK_K + BLOCK_K * BLOCK_N) * 4
    return max(1, min(stages, MAX_SHARED_BYTES // per_stage + 1))


# Launch recipes of the pointer kernel by call signature: every shape, stride, dtype, device and
# 16-byte alignment the launch depends on (the key), mapped to the kernel's arguments apart from
# the tensors. A repeated call skips the views, checks and arithmetic: 14 us of launcher Python
# against 58 us at 128 x 4096 x 4096 on this project's CPU machine, kernels stubbed out
# (bench/results/host-python-cpu-interpreter.json). Calls that copy an operand (rows padded, a
# reshape that is not a view) are never recorded. A descriptor launch's recipe keeps each
# descriptor's shape, strides and box, and builds the descriptors anew over the caller's tensors
# (a descriptor holds its tensor's address: keeping one would keep the tensor alive). On a GPU a
# recipe also keeps the compiled kernel's own launcher (`_direct`), which skips the JIT's binding
# of every argument on each call.
_RECIPES = {}
_MAX_RECIPES = 256


def _signature(a, b, extras, use_tma):
    return (a.shape, a.stride(), b.shape, b.stride(), a.dtype, b.dtype, a.device,
            a.data_ptr() % 16, b.data_ptr() % 16, use_tma,
            tuple((t.shape, t.stride(), t.dtype, t.data_ptr() % 16)
                  if isinstance(t, torch.Tensor) else type(t) for t in extras))


def _output_unit(c3, cols: int) -> int:
    """C_UNIT of a launch that writes c3 (batch, M, N), a new contiguous tensor, in stores
    `cols` columns wide: the widest vector (elements, at most 16 bytes) that N and c3's base align
    to, and so its strides (M * N, N), but not one that makes exactly 32 vectors of a store's row.
    Triton lays such a store out one row per warp, every warp on rows of its own, and on an H100
    that store was the slow one at every tile and slice width timed: TILED's 128x256 tiles at
    1000x1024->3000 took 23.0 us a call in 16-byte vectors and 18.9 in 8-byte ones (2-byte: 19.5),
    128x128 tiles 20.4 in 8-byte vectors against 18.3-18.5 in 4- or 16-byte ones
    (bench/results/runs/probe-gemm-store-h100-round171.json); at 1000x1024->4096, where Triton
    took 16 bytes by itself, TILED took 23.6 us and TILED in two epilogue slices 19.7
    (bench/results/probe-gemm-parts-h100.json). The kernels take N and those strides divided by
    the unit (unit_width) and store vectors of at most a unit (store_cols)."""
    unit = _unit((c3.shape[2],), c3.data_ptr(), c3.element_size())
    if unit > 1 and cols // unit == 32:
        unit //= 2
    return unit


def _split_buffers(ws_shape, tiles: int, like):
    """Split-K's fp32 partials (SPLIT_K, batch, M, N) and one zeroed arrival counter per output
    tile, new for every call (so two launches on two streams never share them); without split-K,
    placeholders the kernel never touches."""
    if ws_shape is None:
        return like, like
    return (torch.empty(ws_shape, dtype=torch.float32, device=like.device),
            torch.zeros(tiles, dtype=torch.int32, device=like.device))


def _gemm(a, b, extras, use_tma=None, key=None):
    """epilogue(a @ b) for a (..., M, K), b (..., K, N) of one dtype; `use_tma` None: tma_plan.
    `key`: the call's _signature, where the caller has it."""
    if key is None:
        key = _signature(a, b, extras, use_tma)
    recipe = _RECIPES.get(key)
    if recipe is None:
        return _gemm_first(a, b, extras, use_tma, key)
    epi = [t if isinstance(t, torch.Tensor) else float(t) for t in extras]
    if recipe[0] == "tma":
        _, out_shape, grid, (a_box, b_box), args, kwargs, direct = recipe
        out = torch.empty(out_shape, dtype=a.dtype, device=a.device)
        _run(_gemm_tma_kernel, grid, direct,
             (_RecordedDescriptor(a, *a_box), _RecordedDescriptor(b, *b_box), out, *epi, *args),
             kwargs)
        return out
    _, out_shape, grid, args, kwargs, ws_shape, tiles, direct = recipe
    out = torch.empty(out_shape, dtype=a.dtype, device=a.device)
    workspace, locks = _split_buffers(ws_shape, tiles, out)
    _run(_gemm_kernel, grid, direct, (a, b, out, workspace, locks, *epi, *args), kwargs)
    return out


def _direct(compiled, kernel, grid, n_args: int, kwargs):
    """A recorded launch through the compiled kernel's own launcher: (the launcher over `grid`,
    the values of the kernel's parameters after its first `n_args`, all passed as keywords), or
    None in Triton's interpreter or where a parameter was left to its default.
    `kernel[grid](...)` binds and specializes every argument again on each call; a recipe's key
    (shapes, strides, dtypes, device, 16-byte alignment) already fixes all that specialization
    depends on, and its sizes and strides are the first call's. The verifier counts these
    launches as it counts `kernel[grid](...)` (verifier/runtime.py)."""
    if compiled is None:
        return None
    rest = kernel.arg_names[n_args:]
    if any(name not in kwargs for name in rest):
        return None
    return compiled[(*grid, 1, 1)[:3]], tuple(kwargs[name] for name in rest)


def _run(kernel, grid, direct, args, kwargs):
    """kernel[grid](*args, **kwargs), through `direct` (from _direct) where there is one."""
    if direct is None:
        kernel[grid](*args, **kwargs)
    else:
        run, consts = direct
        run(*args, *consts)


def _box(desc):
    return (list(desc.shape), list(desc.strides), list(desc.block_shape))


def _record(key, recipe):
    if len(_RECIPES) >= _MAX_RECIPES:
        _RECIPES.clear()
    _RECIPES[key] = recipe


def _same_tensors(pairs) -> bool:
    """Whether every view the launch took starts at its caller tensor's first element."""
    return all(not isinstance(v, torch.Tensor) or v.data_ptr() == t.data_ptr() for v, t in pairs)


def _gemm_first(a, b, extras, use_tma, key):
    """_gemm for a call signature not seen yet: checks, views, the launch, and its recipe."""
    if a.dtype not in (torch.float32, torch.float16, torch.bfloat16) or b.dtype != a.dtype:
        raise TypeError(f"launch_linear_bias_gelu: unsupported dtypes {a.dtype} @ {b.dtype}")
    a3, b3, out_shape = _as_3d(a, b)
    if use_tma is None:
        use_tma = tma_plan(a3, b3) == "tma"
    if not use_tma:  # descriptor loads need 16-byte rows only (tma_plan checks), never a copy
        a3, b3 = _aligned(a3), _aligned(b3)
    n_batch, m, k = a3.shape
    n = b3.shape[2]
    out = torch.empty(out_shape, dtype=a.dtype, device=a.device)
    if out.numel() == 0:
        return out
    c3 = out.reshape(n_batch, m, n)
    c_unit = _output_unit(c3, BLOCK_N // EPILOGUE_SPLIT)
    epi, epi_strides, flags = _epilogue_args(extras, out_shape, c3.shape, a)
    is_fp32 = a.dtype == torch.float32
    # Triton's interpreter multiplies bf16 tiles as their raw uint16 bits; there (never on a GPU)
    # the tiles are widened to fp32 first, which is exact.
    on_gpu = a.is_cuda
    upcast = a.dtype == torch.bfloat16 and not on_gpu
    stages = fp32_stages() if is_fp32 else NUM_STAGES
    tiles_m, tiles_n = _cdiv(m, BLOCK_M), _cdiv(n, BLOCK_N)
    tiles = n_batch * tiles_m * tiles_n
    programs = tiles
    if PERSISTENT:
        programs = min(tiles, _sm_count(max(a.get_device(), 0)) * PERSISTENT)
    if use_tma:
        a_desc, a_t = _descriptor(a3[0], BLOCK_M, BLOCK_K)
        b_desc, b_t = _descriptor(b3[0], BLOCK_K, BLOCK_N)
        args = (m, n // c_unit, k, c3.stride(0) // c_unit, c3.stride(1) // c_unit, *epi_strides)
        kwargs = dict(
            BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, GROUP_M=GROUP_M, A_T=a_t, B_T=b_t,
            STAGES=stages, C_UNIT=c_unit, IS_FP32=is_fp32, UPCAST_BF16=upcast,
            ON_GPU=on_gpu, num_warps=NUM_WARPS, num_stages=stages, **flags,
            # a transposed B tile in a cluster does not build under Triton 3.6 (SKINNY_PAIR)
            num_ctas=1 if b_t else NUM_CTAS,
        )
        launch = (a_desc, b_desc, c3, *epi, *args)
        kwargs, compiled = _launch_fitting(_gemm_tma_kernel, (programs,), launch, kwargs, c3)
        if _same_tensors([(a_desc.base, a), (b_desc.base, b), *zip(epi, extras)]):
            _record(key, ("tma", out_shape, (programs,),
                          (_box(a_desc), _box(b_desc)),
                          args, kwargs,
                          _direct(compiled, _gemm_tma_kernel, (programs,), len(launch), kwargs)))
        return out
    k_tiles = _cdiv(k, BLOCK_K)
    # Each split takes whole K tiles; no more splits than tiles (an empty split would add zeros).
    split = 1 if PERSISTENT else max(1, min(SPLIT_K, k_tiles))
    k_per_split = _cdiv(k_tiles, split) * BLOCK_K
    split = max(1, _cdiv(k, k_per_split))
    ws_shape = (split, n_batch, m, n) if split > 1 else None
    workspace, locks = _split_buffers(ws_shape, tiles, c3)
    biggest = max(a3.numel(), b3.numel(), c3.numel(), workspace.numel(),
                  max((t.numel() for t in epi if isinstance(t, torch.Tensor)), default=0))
    grid = (programs,) if PERSISTENT else (tiles, split)
    args = (m, n // c_unit, k, n_batch, k_per_split, n_batch * m * n,
            a3.stride(0), a3.stride(1), a3.stride(2), b3.stride(0), b3.stride(1), b3.stride(2),
            c3.stride(0) // c_unit, c3.stride(1) // c_unit, *epi_strides)
    kwargs = dict(
        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, GROUP_M=GROUP_M, SPLIT_K=split,
        # shift_tail: every tile's rows lie in bounds once there is a whole tile of them
        EVEN_M=m % BLOCK_M == 0 or (SHIFT_TAIL and m >= BLOCK_M),
        EVEN_N=n % BLOCK_N == 0, EVEN_K=k % BLOCK_K == 0,
        IS_FP32=is_fp32, UPCAST_BF16=upcast, ON_GPU=on_gpu, INDEX_64=biggest >= 2**31,
        STAGES=stages, C_UNIT=c_unit, num_warps=NUM_WARPS, num_stages=stages, **flags,
    )
    launch = (a3, b3, c3, workspace, locks, *epi, *args)
    kwargs, compiled = _launch_fitting(_gemm_kernel, grid, launch, kwargs, c3)
    # The recipe passes the caller's tensors where this call passed views of them: only where
    # every view starts at its tensor's first element (no copy was made).
    if _same_tensors([(a3, a), (b3, b), *zip(epi, extras)]):
        _record(key, ("pointer", out_shape, grid, args, kwargs, ws_shape, tiles,
                      _direct(compiled, _gemm_kernel, grid, len(launch), kwargs)))
    return out


def _fit_stages(kernel, grid, args, kwargs, limit: int):
    """`kwargs` with the pipeline's stages lowered, one at a time, until the compiled kernel's
    shared memory fits `limit` (compiled, not launched: `warmup`); at one stage, as it is. float32
    tiles under a flattened tile loop or a sliced epilogue asked for 256-288 KB at the stages
    fp32_stages() allows, against 227 KB (H100, GPU round 46, bench/probe_gemm_default_gpu.py)."""
    while kwargs["num_stages"] > 1:
        if kernel.warmup(*args, grid=grid, **kwargs).metadata.shared <= limit:
            break
        stages = kwargs["num_stages"] - 1
        kwargs = {**kwargs, "STAGES": stages, "num_stages": stages}
    return kwargs


@functools.lru_cache(maxsize=None)
def _shared_limit(device_index: int) -> int:
    return torch.cuda.get_device_properties(device_index).shared_memory_per_block_optin


def _launch_fitting(kernel, grid, args, kwargs, out):
    """kernel[grid](*args, **kwargs), on a GPU with stages that fit its shared memory (_fit_stages);
    returns the keywords it ran with, which a recipe keeps, and the compiled kernel (None in the
    interpreter). `out`: the output, on the device."""
    if out.is_cuda:
        kwargs = _fit_stages(kernel, grid, args, kwargs, _shared_limit(out.get_device()))
    return kwargs, kernel[grid](*args, **kwargs)


def _operand(t, transposed: bool):
    return t.transpose(-2, -1) if transposed else t


def _route(a, b) -> str | None:
    """Which companion serves a @ b: "decode" (at most DECODE_ROWS output rows, counted as _as_3d
    folds A's batch dims into M where B is one matrix; "decode_wide" where DECODE_DEFAULT's tiles
    would take more than one wave, "decode_wider" where DECODE_WIDE's would too and its own would
    not), "skinny" (at most SKINNY_ROWS; or "skinny_narrow", "skinny_narrow_wide",
    "skinny_pointer", "skinny_wide", "skinny_wider" or "skinny_large" as SKINNY_TILES has them:
    the smallest tile that fits one wave of the SMs among those that may serve the call's rows,
    else the largest),
    "tiled" (ODD_TILED: K or N not a
    multiple of 16 elements; SINGLE_WAVE_TILED: no more tiles than the persistent grid has
    programs), or None (this config). Operands _as_3d refuses go to this config, which reports
    them."""
    if a.dim() < 2 or b.dim() < 2:
        return None
    m, k = (a.shape[-1], a.shape[-2]) if A_TRANSPOSED else (a.shape[-2], a.shape[-1])
    n = b.shape[-2] if B_TRANSPOSED else b.shape[-1]
    rows = (a.numel() // k if k else 0) if b.dim() == 2 else m
    batches = 1 if b.dim() == 2 else b.numel() // (k * n) if k * n else 1
    if SKINNY_ROWS and rows <= DECODE_ROWS:
        # the smallest tile that fits one wave of the SMs; where none does, DECODE_WIDE's
        sms = _sm_count(max(a.get_device(), 0))
        waves = [batches * _cdiv(n, block_n) <= sms for block_n in DECODE_BLOCK_N]
        if waves[0]:
            return "decode"
        return "decode_wider" if waves[2] and not waves[1] else "decode_wide"
    if SKINNY_ROWS and rows <= SKINNY_ROWS:
        sms = _sm_count(max(a.get_device(), 0))
        for block_m, block_n, route, serves in SKINNY_TILES:
            if (serves == "one" and rows > block_m) or (serves == "tile" and rows < block_m):
                continue
            if batches * _cdiv(rows, block_m) * _cdiv(n, block_n) <= sms:
                return route
        return SKINNY_TILES[-1][2]
    if ODD_TILED and (k % 16 or n % 16):
        return "tiled"
    if SINGLE_WAVE_TILED:
        tiles = batches * _cdiv(rows, BLOCK_M) * _cdiv(n, BLOCK_N)
        if tiles <= _sm_count(max(a.get_device(), 0)) * PERSISTENT:
            return "tiled"
    return None


# ---- ws_pingpong: Linear calls on an H100/H200 run a warp-specialized Gluon kernel (ws_plan) ----
# A producer warp streams x and W tiles through one ring of shared-memory stages with TMA; two
# consumer warp groups each take every other 128x128 output tile of a persistent program, and
# while one runs its epilogue (bias, activation, TMA store) the other's wgmmas keep the tensor
# cores busy. Their main loops take turns through a barrier: a parity wait cannot tell a stage's
# lap L from lap L-2, and consumer 1 starts k_tiles stages ahead in the ring (GPU round 242).
# Fixed launch: 128x128x64 tiles, 4 stages, groups of 8 tile rows, registers 232/232/40 (the
# fastest of rounds 243-245's variants).
WS_BLOCK_M, WS_BLOCK_N, WS_BLOCK_K, WS_STAGES, WS_GROUP_M = 128, 128, 64, 4, 8
WS_HAS_BIAS = True
# Triton 3.6 names the TMA copies async_copy_global_to_shared / async_copy_shared_to_global,
# later releases async_load / async_store
_ws_tma_load = tma.async_load if hasattr(tma, "async_load") else tma.async_copy_global_to_shared
_ws_tma_store = tma.async_store if hasattr(tma, "async_store") else tma.async_copy_shared_to_global


@_ws_aggregate
class _WsArgs:
    x_desc: tma.tensor_descriptor
    w_desc: tma.tensor_descriptor
    c_desc: tma.tensor_descriptor
    bias_ptr: gl.tensor
    x_bufs: gl.shared_memory_descriptor
    w_bufs: gl.shared_memory_descriptor
    c_bufs: gl.shared_memory_descriptor
    ready: gl.shared_memory_descriptor
    empty: gl.shared_memory_descriptor
    turn: gl.shared_memory_descriptor
    M: gl.tensor
    N: gl.tensor
    K: gl.tensor

    @gluon.constexpr_function
    def __init__(self, x_desc, w_desc, c_desc, bias_ptr, x_bufs, w_bufs, c_bufs, ready, empty,
                 turn, M, N, K):
        self.x_desc = x_desc
        self.w_desc = w_desc
        self.c_desc = c_desc
        self.bias_ptr = bias_ptr
        self.x_bufs = x_bufs
        self.w_bufs = w_bufs
        self.c_bufs = c_bufs
        self.ready = ready
        self.empty = empty
        self.turn = turn
        self.M = M
        self.N = N
        self.K = K


@gluon.jit
def _ws_tile(p, t, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, GROUP_M: gl.constexpr):
    num_pid_m = gl.cdiv(p.M, BLOCK_M)
    in_group = GROUP_M * gl.cdiv(p.N, BLOCK_N)
    first_m = (t // in_group) * GROUP_M
    size_m = gl.minimum(num_pid_m - first_m, GROUP_M)
    return (first_m + (t % in_group) % size_m) * BLOCK_M, ((t % in_group) // size_m) * BLOCK_N


@gluon.jit
def _ws_producer(p, GROUP_M: gl.constexpr):
    BLOCK_M: gl.constexpr = p.c_desc.block_type.shape[0]
    BLOCK_N: gl.constexpr = p.c_desc.block_type.shape[1]
    BLOCK_K: gl.constexpr = p.x_desc.block_type.shape[1]
    STAGES: gl.constexpr = p.x_bufs.shape[0]
    nbytes: gl.constexpr = p.x_desc.block_type.nbytes + p.w_desc.block_type.nbytes
    total = gl.cdiv(p.M, BLOCK_M) * gl.cdiv(p.N, BLOCK_N)
    count = 0
    for t in range(gl.program_id(0), total, gl.num_programs(0)):
        off_m, off_n = _ws_tile(p, t, BLOCK_M, BLOCK_N, GROUP_M)
        for k in range(0, p.K, BLOCK_K):
            s = count % STAGES
            # a fresh barrier passes a wait on parity 1: the first lap finds every stage free
            mbarrier.wait(p.empty.index(s), ((count // STAGES) & 1) ^ 1)
            mbarrier.expect(p.ready.index(s), nbytes)
            _ws_tma_load(p.x_desc, [off_m, k], p.ready.index(s), p.x_bufs.index(s))
            _ws_tma_load(p.w_desc, [off_n, k], p.ready.index(s), p.w_bufs.index(s))
            count += 1


@gluon.jit
def _ws_activation(x):
    # the erfc fit of _gelu_erf (gelu_erf_fit)
    z = gl.abs(x) * 0.7071067811865476
    t = 1.0 / (1.0 + 0.5 * z)
    q = -1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (
        -0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (
            -0.82215223 + t * 0.17087277))))))))
    half_erfc = 0.5 * t * gl.exp2((q - z * z) * 1.4426950408889634)
    return x * gl.where(x < 0.0, half_erfc, 1.0 - half_erfc)


@gluon.jit
def _ws_consumer(p, WHICH: gl.constexpr, GROUP_M: gl.constexpr, HAS_BIAS: gl.constexpr):
    BLOCK_M: gl.constexpr = p.c_desc.block_type.shape[0]
    BLOCK_N: gl.constexpr = p.c_desc.block_type.shape[1]
    BLOCK_K: gl.constexpr = p.x_desc.block_type.shape[1]
    STAGES: gl.constexpr = p.x_bufs.shape[0]
    mma_layout: gl.constexpr = gl.NVMMADistributedLayout(
        version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, BLOCK_N, 16])
    c_smem = p.c_bufs.index(WHICH)
    total = gl.cdiv(p.M, BLOCK_M) * gl.cdiv(p.N, BLOCK_N)
    k_tiles = gl.cdiv(p.K, BLOCK_K)
    stride = gl.num_programs(0)
    local = WHICH  # this program's tiles alternate: local tile j goes to consumer j % 2
    for t in range(gl.program_id(0) + WHICH * stride, total, 2 * stride):
        off_m, off_n = _ws_tile(p, t, BLOCK_M, BLOCK_N, GROUP_M)
        count = local * k_tiles
        # this main loop starts once the other consumer has waited on its last stage of the
        # tile before (its turn barrier)
        mbarrier.wait(p.turn.index(WHICH), (local // 2 - 1 + WHICH) & 1, pred=local > 0)
        acc = gl.zeros((BLOCK_M, BLOCK_N), dtype=gl.float32, layout=mma_layout)
        prev = 0
        for kk in range(k_tiles):
            s = count % STAGES
            mbarrier.wait(p.ready.index(s), (count // STAGES) & 1)
            acc = warpgroup_mma(p.x_bufs.index(s), p.w_bufs.index(s).permute((1, 0)), acc,
                                is_async=True)
            # one wgmma left in flight: the one before it is done, so its stage is free
            acc = warpgroup_mma_wait(1, deps=(acc, ))
            mbarrier.arrive(p.empty.index(prev), pred=kk > 0)
            prev = s
            count += 1
        mbarrier.arrive(p.turn.index(1 - WHICH))
        acc = warpgroup_mma_wait(0, deps=(acc, ))
        mbarrier.arrive(p.empty.index(prev))
        y = acc
        if HAS_BIAS:
            offs_n = off_n + gl.arange(0, BLOCK_N, layout=gl.SliceLayout(0, mma_layout))
            bias = gl.load(p.bias_ptr + offs_n, mask=offs_n < p.N, other=0.0)
            y = y + gl.expand_dims(bias.to(gl.float32), 0)
        y = _ws_activation(y)
        tma.store_wait(pendings=0)  # this consumer's previous tile has left c_smem
        c_smem.store(y.to(p.c_desc.dtype))
        fence_async_shared()
        _ws_tma_store(p.c_desc, [off_m, off_n], c_smem)
        local += 2
    tma.store_wait(pendings=0)


@gluon.jit
def _ws_consumer0(p, GROUP_M: gl.constexpr, HAS_BIAS: gl.constexpr):
    _ws_consumer(p, 0, GROUP_M, HAS_BIAS)


@gluon.jit
def _ws_consumer1(p, GROUP_M: gl.constexpr, HAS_BIAS: gl.constexpr):
    _ws_consumer(p, 1, GROUP_M, HAS_BIAS)


@gluon.jit
def _ws_kernel(x_desc, w_desc, c_desc, bias_ptr, M, N, K, STAGES: gl.constexpr,
               GROUP_M: gl.constexpr, HAS_BIAS: gl.constexpr):
    dtype: gl.constexpr = x_desc.dtype
    x_bufs = gl.allocate_shared_memory(dtype, [STAGES] + x_desc.block_type.shape, x_desc.layout)
    w_bufs = gl.allocate_shared_memory(dtype, [STAGES] + w_desc.block_type.shape, w_desc.layout)
    c_bufs = gl.allocate_shared_memory(dtype, [2] + c_desc.block_type.shape, c_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    turn = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(STAGES):
        mbarrier.init(ready.index(i), count=1)
        mbarrier.init(empty.index(i), count=1)
    for i in gl.static_range(2):
        mbarrier.init(turn.index(i), count=1)
    fence_async_shared()
    p = _WsArgs(x_desc, w_desc, c_desc, bias_ptr, x_bufs, w_bufs, c_bufs, ready, empty, turn,
                gl.to_tensor(M), gl.to_tensor(N), gl.to_tensor(K))
    gl.warp_specialize([(_ws_consumer0, (p, GROUP_M, HAS_BIAS)),
                        (_ws_consumer1, (p, GROUP_M, HAS_BIAS)),
                        (_ws_producer, (p, GROUP_M))], [4, 1], [232, 40])


def ws_plan(a, w, extras) -> str:
    """"gluon" when a call of launch_linear_bias_gelu runs the warp-specialized kernel, else why not: it
    needs a Hopper GPU (sm_90: wgmma), 16-bit operands, contiguous x and W whose rows are 16-byte
    aligned (TMA), and a bias (if the epilogue has one) of shape (N,) in their dtype."""
    if not a.is_cuda:
        return "not a CUDA tensor (Triton's interpreter cannot run Gluon)"
    if torch.cuda.get_device_capability(a.device) != (9, 0):
        return "not an sm_90 GPU (the kernel's wgmma is Hopper's)"
    if a.dtype not in (torch.bfloat16, torch.float16) or w.dtype != a.dtype:
        return f"dtypes {a.dtype} @ {w.dtype}: 16-bit operands only"
    if a.dim() < 2 or w.dim() != 2 or a.shape[-1] != w.shape[1]:
        return "not x (..., K) against a weight (N, K)"
    n, k = w.shape
    if a.numel() == 0 or n == 0:
        return "an empty output"
    if not a.is_contiguous() or not w.is_contiguous():
        return "non-contiguous operands"
    if (k * a.element_size()) % 16 or (n * a.element_size()) % 16:
        return "rows not 16-byte aligned (K and N multiples of 8)"
    if a.data_ptr() % 16 or w.data_ptr() % 16:
        return "operands not 16-byte aligned"
    bias = extras[0]
    if bias.dim() != 1 or bias.shape[0] != n or bias.dtype != a.dtype or bias.stride(0) != 1:
        return "the bias is not a contiguous (N,) row of the operands' dtype"
    return "gluon"


@functools.lru_cache(maxsize=None)
def _ws_layouts(dtype):
    gdt = gl.bfloat16 if dtype == torch.bfloat16 else gl.float16
    return tuple(gl.NVMMASharedLayout.get_default_for(box, gdt)
                 for box in ([WS_BLOCK_M, WS_BLOCK_K], [WS_BLOCK_N, WS_BLOCK_K],
                             [WS_BLOCK_M, WS_BLOCK_N]))


class _WsRecorded(_WsDescriptor):
    """A descriptor of a recorded launch (ws_call's recipe), built without the descriptor's
    checks: the recipe's key fixes all they read, and the recording call's descriptors passed
    them. The compiled kernel's launcher reads its base, shape, strides and padding."""

    def __init__(self, base, shape, strides, block_shape, layout):
        self.base, self.shape, self.strides = base, shape, strides
        self.block_shape, self.layout = block_shape, layout
        self.padding, self.round_f32_to_tf32 = "zero", False


def _ws_args(a, w, extras, descriptor=_WsDescriptor):
    """The output, the kernel's arguments up to its constexprs, and its grid."""
    n, k = w.shape
    x = a.reshape(-1, k)
    out = torch.empty((*a.shape[:-1], n), dtype=a.dtype, device=a.device)
    c = out.view(-1, n)
    x_layout, w_layout, c_layout = _ws_layouts(a.dtype)
    bias = extras[0]
    args = (descriptor(x, [x.shape[0], k], [k, 1], [WS_BLOCK_M, WS_BLOCK_K], x_layout),
            descriptor(w, [n, k], [k, 1], [WS_BLOCK_N, WS_BLOCK_K], w_layout),
            descriptor(c, [c.shape[0], n], [n, 1], [WS_BLOCK_M, WS_BLOCK_N], c_layout),
            bias, x.shape[0], n, k)
    tiles = _cdiv(x.shape[0], WS_BLOCK_M) * _cdiv(n, WS_BLOCK_N)
    return out, args, (min(tiles, _sm_count(max(a.get_device(), 0))), )


# 4 + 4 + 1 warps make three warp groups; 168 registers a thread at launch (the most three groups
# may hold), which setmaxnreg moves to 232, 232 and 40
_WS_KWARGS = dict(STAGES=WS_STAGES, GROUP_M=WS_GROUP_M, HAS_BIAS=WS_HAS_BIAS, num_warps=4,
                  maxnreg=168)


def ws_launch(a, w, extras, warmup=False):
    """epilogue(a @ w^T) by the warp-specialized kernel, for a call ws_plan says "gluon" to.
    `warmup`: compile without launching (a test builds it for sm_90a on a machine without a GPU)."""
    out, args, grid = _ws_args(a, w, extras)
    if warmup:
        return _ws_kernel.warmup(*args, grid=(1, ), **_WS_KWARGS)
    compiled = _ws_kernel[grid](*args, **_WS_KWARGS)
    return out, compiled, grid


def ws_call(a, w, extras, key=None):
    """launch_linear_bias_gelu's Linear calls: the warp-specialized kernel where ws_plan allows, else None
    (the caller's other kernels). The call's launch is recorded in _RECIPES by its _signature
    tagged "ws" (shapes, strides, dtypes, device, 16-byte alignment: all ws_plan reads): the
    compiled kernel's own launcher over its grid and its constexprs ("jit" where it has none,
    _direct), or "refused". A repeat skips ws_plan's checks, the JIT's binding of every argument
    and the descriptors' checks; round 249 timed 161-247 us of host time a call without it (eager
    49-78), round 253 38.7-38.9 with it. `key`: that signature, where the caller has it."""
    if key is None:
        key = _signature(a, w, extras, "ws")
    recipe = _RECIPES.get(key)
    if recipe == "refused":
        return None
    if recipe == "jit":
        return ws_launch(a, w, extras)[0]
    if recipe is not None:
        out, args, _ = _ws_args(a, w, extras, _WsRecorded)
        run, consts = recipe
        run(*args, *consts)
        return out
    if ws_plan(a, w, extras) != "gluon":
        _record(key, "refused")
        return None
    out, compiled, grid = ws_launch(a, w, extras)
    direct = _direct(compiled, _ws_kernel, grid, 7, _WS_KWARGS)
    _record(key, "jit" if direct is None else direct)
    return out


def launch_linear_bias_gelu(a, b, in0):
    """linear_bias_gelu: epilogue(a @ b^T), one kernel launch; calls with at most 128 output rows run SKINNY_NARROW's, SKINNY_NARROW_WIDE's, SKINNY_DEFAULT's, SKINNY_POINTER's, SKINNY_WIDE's, SKINNY_WIDER's or SKINNY_LARGE's kernels (_skinny_narrow_launch_linear_bias_gelu, _skinny_narrow_wide_launch_linear_bias_gelu, _skinny_launch_linear_bias_gelu, _skinny_pointer_launch_linear_bias_gelu, _skinny_wide_launch_linear_bias_gelu, _skinny_wider_launch_linear_bias_gelu, _skinny_large_launch_linear_bias_gelu), at most 16 DECODE_DEFAULT's (_decode_launch_linear_bias_gelu), DECODE_WIDE's (_decode_wide_launch_linear_bias_gelu) or DECODE_WIDER's (_decode_wider_launch_linear_bias_gelu); calls with K or N not a multiple of 16 run TILED's (_tiled_launch_linear_bias_gelu); calls whose tiles fit one wave of the persistent grid run TILED's (_tiled_launch_linear_bias_gelu); on an sm_90 GPU the calls ws_plan admits run the warp-specialized Gluon kernel (ws_call)."""
    route = _route(a, b)
    if route == "decode":
        return _decode_launch_linear_bias_gelu(a, b, in0)
    if route == "decode_wide":
        return _decode_wide_launch_linear_bias_gelu(a, b, in0)
    if route == "decode_wider":
        return _decode_wider_launch_linear_bias_gelu(a, b, in0)
    if route == "skinny_narrow":
        return _skinny_narrow_launch_linear_bias_gelu(a, b, in0)
    if route == "skinny_narrow_wide":
        return _skinny_narrow_wide_launch_linear_bias_gelu(a, b, in0)
    if route == "skinny":
        return _skinny_launch_linear_bias_gelu(a, b, in0)
    if route == "skinny_pointer":
        return _skinny_pointer_launch_linear_bias_gelu(a, b, in0)
    if route == "skinny_wide":
        return _skinny_wide_launch_linear_bias_gelu(a, b, in0)
    if route == "skinny_wider":
        return _skinny_wider_launch_linear_bias_gelu(a, b, in0)
    if route == "skinny_large":
        return _skinny_large_launch_linear_bias_gelu(a, b, in0)
    if route == "tiled":
        return _tiled_launch_linear_bias_gelu(a, b, in0)
    out = ws_call(a, b, (in0,))
    if out is not None:
        return out
    return _gemm(_operand(a, A_TRANSPOSED), _operand(b, B_TRANSPOSED), (in0,))


class ModelNew(torch.nn.Module):
    """Drop-in for the task's Model: the matmul and its epilogue in one kernel."""

    def __init__(self, *args, **kwargs):
        super().__init__()
        self.fc = torch.nn.Module()
        self.fc.weight = torch.nn.UninitializedParameter()
        self.fc.bias = torch.nn.UninitializedParameter()

    def forward(self, *args):
        return launch_linear_bias_gelu(
            args[0],
            self.fc.weight,
            self.fc.bias,
        )

# skinny_rows: the kernels and launcher of the calls it routes (_skinny_narrow_)

def _skinny_narrow__cdiv(a: int, b: int) -> int:
    """ceil(a / b) for non-negative ints, on the host."""
    return -(-a // b)

def _skinny_narrow__next_pow2(n: int) -> int:
    """The smallest power of two >= n, 0 for 0 (as triton.next_power_of_2), on the host."""
    return 1 << (n - 1).bit_length() if n > 0 else 0

def _skinny_narrow__unit(values, data_ptr: int, itemsize: int) -> int:
    """The widest vector (elements, at most 16 bytes) that every offset and the base align to.
    A kernel takes its widths and strides divided by it and multiplies them back by the
    constexpr: Triton marks an int argument only when it is divisible by 16, so a 1000-wide
    bf16 row (2000 bytes, 16-byte aligned) would otherwise get 2-byte loads and stores."""
    unit = 16 // itemsize
    while unit > 1 and (any((v % unit for v in values)) or data_ptr % (unit * itemsize)):
        unit //= 2
    return unit
_skinny_narrow_PARAMS = {'BLOCK_M': 32, 'BLOCK_N': 64, 'BLOCK_K': 128, 'GROUP_M': 4, 'num_warps': 4, 'num_stages': 6, 'SPLIT_K': 1, 'persistent': 0, 'use_tma': True, 'EPILOGUE_SPLIT': 1, 'flatten': False, 'gelu_erf_fit': False, 'skinny_rows': 0, 'odd_tiled': False, 'single_wave_tiled': False, 'fuse_norm': False, 'ws_pingpong': False, 'ws_coop': False, 'num_ctas': 1, 'swap_ab': True, 'shift_tail': False}
_skinny_narrow_BLOCK_M = 32
_skinny_narrow_BLOCK_N = 64
_skinny_narrow_BLOCK_K = 128
_skinny_narrow_EPILOGUE_SPLIT = 1
_skinny_narrow_GROUP_M = 4
_skinny_narrow_NUM_WARPS = 4
_skinny_narrow_NUM_STAGES = 6
_skinny_narrow_NUM_CTAS = 1
_skinny_narrow_SPLIT_K = 1
_skinny_narrow_PERSISTENT = 0
_skinny_narrow_USE_TMA = True
_skinny_narrow_SHIFT_TAIL = False
_skinny_narrow_SKINNY_ROWS = 0
_skinny_narrow_SKINNY_TILES = ((32, 64, 'skinny_narrow', 'one'), (32, 128, 'skinny_narrow_wide', 'one'), (64, 64, 'skinny', 'tile'), (64, 64, 'skinny_pointer', 'any'), (64, 128, 'skinny_wide', 'any'), (64, 256, 'skinny_wider', 'any'), (128, 128, 'skinny_large', 'any'))
_skinny_narrow_DECODE_BLOCK_N = (32, 64, 128)
_skinny_narrow_DECODE_ROWS = 16
_skinny_narrow_ODD_TILED = False
_skinny_narrow_SINGLE_WAVE_TILED = False
_skinny_narrow_A_TRANSPOSED = False
_skinny_narrow_B_TRANSPOSED = True
_skinny_narrow_MAX_SHARED_BYTES = 227 * 1024

@triton.jit
def _skinny_narrow__relu(x):
    return tl.where(x < 0.0, 0.0, x)

@triton.jit
def _skinny_narrow__leaky_relu(x, slope):
    return tl.where(x > 0.0, x, x * slope)

@triton.jit
def _skinny_narrow__expm1(x):
    series = x * (1.0 + x * (0.5 + x * (1.0 / 6.0 + x * (1.0 / 24.0 + x * (1.0 / 120.0)))))
    return tl.where(tl.abs(x) < 0.03125, series, tl.exp(x) - 1.0)

@triton.jit
def _skinny_narrow__elu(x, alpha):
    return tl.where(x > 0.0, x, alpha * _skinny_narrow__expm1(x))

@triton.jit
def _skinny_narrow__sigmoid(x):
    return 1.0 / (1.0 + tl.exp(-x))

@triton.jit
def _skinny_narrow__silu(x):
    return x / (1.0 + tl.exp(-x))

@triton.jit
def _skinny_narrow__tanh(x):
    ax = tl.abs(x)
    t = tl.exp(-2.0 * ax)
    far = (1.0 - t) / (1.0 + t)
    x2 = ax * ax
    near = ax * (1.0 + x2 * (-1.0 / 3.0 + x2 * (2.0 / 15.0 + x2 * (-17.0 / 315.0))))
    r = tl.where(ax < 0.0625, near, far)
    return tl.where(x < 0.0, -r, r)

@triton.jit
def _skinny_narrow__gelu_erf(x):
    return 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))

@triton.jit
def _skinny_narrow__gelu_tanh(x):
    u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    return x / (1.0 + tl.exp(-2.0 * u))

@triton.jit
def _skinny_narrow__log1p_unit(e):
    series = e * (1.0 - e * (0.5 - e * (1.0 / 3.0 - e * (0.25 - e * 0.2))))
    return tl.where(e < 0.03125, series, tl.log(1.0 + e))

@triton.jit
def _skinny_narrow__softplus(x, beta, threshold):
    z = x * beta
    sp = tl.where(z > 0.0, z, 0.0) + _skinny_narrow__log1p_unit(tl.exp(-tl.abs(z)))
    return tl.where(z > threshold, x, sp / beta)

@triton.jit
def _skinny_narrow__mish(x):
    e = tl.exp(tl.where(x < 20.0, x, 20.0))
    n = e * (e + 2.0)
    return tl.where(x > 20.0, x, x * (n / (n + 2.0)))

@triton.jit
def _skinny_narrow__clamp_min(x, lo):
    return tl.where(x < lo, lo, x)

@triton.jit
def _skinny_narrow__clamp_max(x, hi):
    return tl.where(x > hi, hi, x)

@triton.jit
def _skinny_narrow__clamp(x, lo, hi):
    return _skinny_narrow__clamp_max(_skinny_narrow__clamp_min(x, lo), hi)

@triton.jit
def _skinny_narrow__hardsigmoid(x):
    return _skinny_narrow__clamp(x + 3.0, 0.0, 6.0) / 6.0

@triton.jit
def _skinny_narrow__hardswish(x):
    return x * _skinny_narrow__clamp(x + 3.0, 0.0, 6.0) / 6.0

@triton.jit
def _skinny_narrow__maximum(a, b):
    return tl.where((a > b) | (a != a), a, b)

@triton.jit
def _skinny_narrow__minimum(a, b):
    return tl.where((a < b) | (a != a), a, b)

@triton.jit
def _skinny_narrow__tile_coords(tile_id, tiles_m, tiles_n, GROUP_M: tl.constexpr):
    per_batch = tiles_m * tiles_n
    batch = tile_id // per_batch
    t = tile_id % per_batch
    in_group = GROUP_M * tiles_n
    first_m = t // in_group * GROUP_M
    group_rows = tl.minimum(tiles_m - first_m, GROUP_M)
    pid_m = first_m + t % in_group % group_rows
    pid_n = t % in_group // group_rows
    return (batch, pid_m, pid_n)

@triton.jit
def _skinny_narrow__gemm_kernel(a_ptr, b_ptr, c_ptr, w_ptr, lock_ptr, in0, M, N, K, n_batch, k_per_split, w_slot, stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn, stride_cb, stride_cm, s0_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, SPLIT_K: tl.constexpr, EVEN_M: tl.constexpr, EVEN_N: tl.constexpr, EVEN_K: tl.constexpr, STAGES: tl.constexpr, C_UNIT: tl.constexpr, IS_FP32: tl.constexpr, UPCAST_BF16: tl.constexpr, ON_GPU: tl.constexpr, INDEX_64: tl.constexpr):
    N = N * C_UNIT
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    tile_id = pid
    pid_k = tl.program_id(1)
    batch, pid_m, pid_n = _skinny_narrow__tile_coords(tile_id, tiles_m, tiles_n, GROUP_M)
    batch64 = batch.to(tl.int64)
    off_m = pid_m * BLOCK_M
    offs_m = off_m + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    if INDEX_64:
        offs_m = offs_m.to(tl.int64)
        offs_n = offs_n.to(tl.int64)
        offs_k = offs_k.to(tl.int64)
    k_start = pid_k * k_per_split
    k_end = tl.minimum(K, k_start + k_per_split)
    a_ptrs = a_ptr + batch64 * stride_ab + offs_m[:, None] * stride_am + (k_start + offs_k)[None, :] * stride_ak
    b_ptrs = b_ptr + batch64 * stride_bb + (k_start + offs_k)[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_N, BLOCK_M), dtype=tl.float32)
    k_full = k_start + (k_end - k_start) // BLOCK_K * BLOCK_K
    for k in tl.range(k_start, k_full, BLOCK_K, num_stages=STAGES):
        if EVEN_M:
            a = tl.load(a_ptrs)
        else:
            a = tl.load(a_ptrs, mask=offs_m[:, None] < M, other=0.0)
        if EVEN_N:
            b = tl.load(b_ptrs)
        else:
            b = tl.load(b_ptrs, mask=offs_n[None, :] < N, other=0.0)
        a, b = (tl.trans(b), tl.trans(a))
        if IS_FP32:
            part = tl.dot(a, b, input_precision='ieee')
            if ON_GPU:
                acc = tl.inline_asm_elementwise('add.rn.f32 $0, $1, $2;', '=r,r,r', [acc, part], dtype=tl.float32, is_pure=True, pack=1)
            else:
                acc = acc + part
        elif UPCAST_BF16:
            acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision='ieee')
        else:
            acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    if not EVEN_K:
        if k_full < k_end:
            a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & ((k_full + offs_k)[None, :] < k_end), other=0.0)
            b = tl.load(b_ptrs, mask=((k_full + offs_k)[:, None] < k_end) & (offs_n[None, :] < N), other=0.0)
            a, b = (tl.trans(b), tl.trans(a))
            if IS_FP32:
                part = tl.dot(a, b, input_precision='ieee')
                if ON_GPU:
                    acc = tl.inline_asm_elementwise('add.rn.f32 $0, $1, $2;', '=r,r,r', [acc, part], dtype=tl.float32, is_pure=True, pack=1)
                else:
                    acc = acc + part
            elif UPCAST_BF16:
                acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision='ieee')
            else:
                acc = tl.dot(a, b, acc)
    acc = tl.trans(acc)
    if SPLIT_K > 1:
        w_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
        w_tile = w_ptr + (batch64 * M + offs_m[:, None]) * N + offs_n[None, :]
        tl.store(w_tile + pid_k.to(tl.int64) * w_slot, acc, mask=w_mask)
        tl.debug_barrier()
        arrived = tl.atomic_add(lock_ptr + tile_id, 1, sem='acq_rel')
        if arrived == SPLIT_K - 1:
            acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
            for s in tl.static_range(SPLIT_K):
                acc += tl.load(w_tile, mask=w_mask, other=0.0, cache_modifier='.cg')
                w_tile += w_slot
            c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
            x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
            t0 = acc + x0
            t1 = _skinny_narrow__gelu_erf(t0)
            if C_UNIT > 1:
                c_cols = tl.max_contiguous(offs_n, C_UNIT)
            else:
                c_cols = offs_n
            c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
            tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)
    else:
        c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
        x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
        t0 = acc + x0
        t1 = _skinny_narrow__gelu_erf(t0)
        if C_UNIT > 1:
            c_cols = tl.max_contiguous(offs_n, C_UNIT)
        else:
            c_cols = offs_n
        c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
        tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)

@triton.jit
def _skinny_narrow__gemm_tma_kernel(a_desc, b_desc, c_ptr, in0, M, N, K, stride_cb, stride_cm, s0_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, A_T: tl.constexpr, B_T: tl.constexpr, STAGES: tl.constexpr, C_UNIT: tl.constexpr, IS_FP32: tl.constexpr, UPCAST_BF16: tl.constexpr, ON_GPU: tl.constexpr):
    N = N * C_UNIT
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    tile_id = pid
    batch, pid_m, pid_n = _skinny_narrow__tile_coords(tile_id, tiles_m, tiles_n, GROUP_M)
    batch64 = batch.to(tl.int64)
    off_m = pid_m * BLOCK_M
    off_n = pid_n * BLOCK_N
    acc = tl.zeros((BLOCK_N, BLOCK_M), dtype=tl.float32)
    for k in tl.range(0, K, BLOCK_K, num_stages=STAGES):
        if A_T:
            a = a_desc.load([k, off_m]).T
        else:
            a = a_desc.load([off_m, k])
        if B_T:
            b = b_desc.load([off_n, k]).T
        else:
            b = b_desc.load([k, off_n])
        a, b = (tl.trans(b), tl.trans(a))
        if IS_FP32:
            part = tl.dot(a, b, input_precision='ieee')
            if ON_GPU:
                acc = tl.inline_asm_elementwise('add.rn.f32 $0, $1, $2;', '=r,r,r', [acc, part], dtype=tl.float32, is_pure=True, pack=1)
            else:
                acc = acc + part
        elif UPCAST_BF16:
            acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision='ieee')
        else:
            acc = tl.dot(a, b, acc)
    acc = tl.trans(acc)
    offs_m = off_m + tl.arange(0, BLOCK_M)
    offs_n = off_n + tl.arange(0, BLOCK_N)
    c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
    t0 = acc + x0
    t1 = _skinny_narrow__gelu_erf(t0)
    if C_UNIT > 1:
        c_cols = tl.max_contiguous(offs_n, C_UNIT)
    else:
        c_cols = offs_n
    c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
    tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)

@functools.lru_cache(maxsize=None)
def _skinny_narrow__sm_count(device_index: int) -> int:
    if not torch.cuda.is_available():
        return 4
    return torch.cuda.get_device_properties(device_index).multi_processor_count

def _skinny_narrow__as_3d(a, b):
    """(A as (batch, M, K), B as (batch, K, N), the output's shape); views where strides allow."""
    if a.dim() < 2 or b.dim() < 2:
        raise ValueError(f'launch_linear_bias_gelu: operands must have 2 or more dims, got {tuple(a.shape)} and {tuple(b.shape)}')
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f'launch_linear_bias_gelu: inner dims differ: {tuple(a.shape)} @ {tuple(b.shape)}')
    m, k, n = (a.shape[-2], a.shape[-1], b.shape[-1])
    if b.dim() == 2:
        out_shape = (*a.shape[:-1], n)
        return (a.reshape(1, -1, k), b.unsqueeze(0), out_shape)
    if a.dim() == 2:
        b3 = b.reshape(-1, k, n)
        return (a.unsqueeze(0).expand(b3.shape[0], m, k), b3, (*b.shape[:-2], m, n))
    if a.shape[:-2] != b.shape[:-2]:
        raise ValueError(f'launch_linear_bias_gelu: batch dims differ ({tuple(a.shape[:-2])} vs {tuple(b.shape[:-2])}); broadcast batch dims are not covered')
    return (a.reshape(-1, m, k), b.reshape(-1, k, n), (*a.shape[:-2], m, n))

@triton.jit
def _skinny_narrow__pad_copy_kernel(src, dst, R, C, s_b, s_r, s_c, d_b, d_r, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    pid_b = tl.program_id(2).to(tl.int64)
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (rows[:, None] < R) & (cols[None, :] < C)
    rows64 = rows.to(tl.int64)
    x = tl.load(src + pid_b * s_b + rows64[:, None] * s_r + cols[None, :] * s_c, mask=mask)
    tl.store(dst + pid_b * d_b + rows64[:, None] * d_r + cols[None, :], x, mask=mask)

def _skinny_narrow__unaligned(t3) -> bool:
    """Whether the pointer kernel would read t3 (batch, R, C) through a padded copy (_aligned):
    a unit-stride dim whose rows (or, with batches, batch stride) are not a multiple of 16
    elements, or a base that is not 16-byte aligned. Neither dim contiguous: read as it is."""
    if t3.stride(2) == 1 or t3.shape[2] == 1:
        lead_dim = 1
    elif t3.stride(1) == 1 or t3.shape[1] == 1:
        return _skinny_narrow__unaligned(t3.transpose(1, 2))
    else:
        return False
    strides_ok = t3.stride(lead_dim) % 16 == 0 and (t3.shape[0] == 1 or t3.stride(0) % 16 == 0)
    return not (strides_ok and t3.data_ptr() % 16 == 0)

def _skinny_narrow__aligned(t3):
    """t3 (batch, R, C) read by the GEMM; when its row stride is not a multiple of 16 elements
    (a width of 4097, or of 1000), a copy into rows padded to 16 elements, viewed at the original
    width. Triton vectorizes a tile load only along rows whose stride it can prove to be a
    multiple of 16 elements; scalar loads cost the GEMM several times the copy (on an H100,
    4095x4097x4093 took 5.9 ms, bench/results/runs/tune-h100-gemm-attention.json; gelu(linear) at
    4099 x 3073 x 1000 took 0.99 ms with rows of 1000 and 0.09 ms with rows of 1024,
    bench/results/gemm-odd-h100.json). Where descriptor loads are available the launcher takes
    them for such operands instead (tma_plan), and this copy is the fallback."""
    if not _skinny_narrow__unaligned(t3):
        return t3
    if not (t3.stride(2) == 1 or t3.shape[2] == 1):
        return _skinny_narrow__aligned(t3.transpose(1, 2)).transpose(1, 2)
    elem = 16
    batch, rows, cols = t3.shape
    padded = _skinny_narrow__cdiv(cols, elem) * elem
    out = torch.empty((batch, rows, padded), dtype=t3.dtype, device=t3.device)
    grid = (_skinny_narrow__cdiv(rows, 32), _skinny_narrow__cdiv(cols, 128), batch)
    _skinny_narrow__pad_copy_kernel[grid](t3, out, rows, cols, t3.stride(0), t3.stride(1), t3.stride(2), out.stride(0), out.stride(1), BLOCK_R=32, BLOCK_C=128, num_warps=4)
    return out[:, :, :cols]
_skinny_narrow_TMA_AVAILABLE = hasattr(tl, 'tensor_descriptor') and hasattr(TensorDescriptor, 'from_tensor')

@functools.lru_cache(maxsize=None)
def _skinny_narrow__capability(device_index: int) -> tuple[int, int]:
    return torch.cuda.get_device_capability(device_index)

def _skinny_narrow__tma_refused(t: torch.Tensor, wanted: bool=_skinny_narrow_USE_TMA) -> str | None:
    """Why no call on `t`'s device takes descriptor loads under this config, or None."""
    if not wanted:
        return 'config: use_tma is off'
    if not _skinny_narrow_TMA_AVAILABLE:
        return 'the installed Triton has no tensor descriptors'
    if not t.is_cuda:
        return "not a CUDA device (Triton's interpreter runs the pointer kernel)"
    if _skinny_narrow__capability(t.get_device())[0] < 9:
        return 'TMA needs compute capability 9.0 or newer'
    return None

def _skinny_narrow_tma_plan(a3, b3) -> str:
    """"tma" when this call takes the TMA kernel, else why it takes the pointer kernel.

    With use_tma off, a call whose A or B rows would need a padded copy for the pointer kernel
    (rows of 1000 or 3073 elements, say: 16-byte aligned, not 16-element aligned) takes the
    descriptor kernel where it can: it reads such rows in place at full speed, where the copy
    costs a kernel and a buffer (at 4099 x 1000 -> 3073 on an H100, 0.098 ms against 0.376 ms
    padded, bench/results/gemm-odd-h100.json). Not under split-K, which the TMA kernel lacks,
    and for 16-bit operands only: float32 through descriptors at the default 128x256x64 tiles
    needs 256 KB of shared memory and does not compile (runs/probe-fp32-tma-h100.txt)."""
    odd_rows = not _skinny_narrow_USE_TMA and _skinny_narrow_SPLIT_K == 1 and (a3.element_size() == 2) and (_skinny_narrow__unaligned(a3) or _skinny_narrow__unaligned(b3))
    refused = _skinny_narrow__tma_refused(a3, _skinny_narrow_USE_TMA or odd_rows)
    if refused:
        return refused
    if a3.shape[0] != 1:
        return 'batched operands (the TMA kernel is 2-D)'
    for name, t in (('A', a3[0]), ('B', b3[0])):
        if t.stride(-1) != 1 and t.stride(-2) != 1:
            return f'{name} has no unit stride'
        outer = t.stride(-2) if t.stride(-1) == 1 else t.stride(-1)
        if t.data_ptr() % 16 or outer * t.element_size() % 16:
            return f"{name}'s base or row stride is not 16-byte aligned"
    return 'tma'

class _skinny_narrow__RecordedDescriptor(TensorDescriptor):
    """A descriptor of a recorded launch (_gemm's recipe), built without TensorDescriptor's
    checks: the recipe's key (the caller's shapes, strides, dtypes and 16-byte alignment) fixes
    all those checks read, and the recording call's descriptors passed them. Building the two
    descriptors with the checks took 6 us of an H100 host's time a call
    (bench/results/probe-host-parts-h100.json)."""

    def __init__(self, base, shape, strides, block_shape):
        self.base, self.shape, self.strides, self.block_shape = (base, shape, strides, block_shape)

def _skinny_narrow__descriptor(t, rows_block: int, cols_block: int):
    """A descriptor over 2-D `t` and whether the kernel must transpose what it loads."""
    if t.stride(-1) == 1:
        return (TensorDescriptor(t, list(t.shape), [t.stride(0), 1], [rows_block, cols_block]), False)
    return (TensorDescriptor(t, [t.shape[1], t.shape[0]], [t.stride(1), 1], [cols_block, rows_block]), True)

def _skinny_narrow__epilogue_args(extras, out_shape, c_shape, like):
    """The epilogue's operands, checked, and their strides, in the kernels' argument order."""
    args, strides, flags = ([], [], {})
    n = c_shape[2]
    t = extras[0]
    if t.dim() != 1 or t.shape[0] != n or t.dtype != like.dtype:
        raise ValueError(f'launch_linear_bias_gelu: epilogue input 0 is {tuple(t.shape)} {t.dtype}; expected ({n},) {like.dtype}, broadcast along N')
    strides.append(t.stride(0))
    args.append(t)
    return (args, strides, flags)

def _skinny_narrow_fp32_stages(stages: int=_skinny_narrow_NUM_STAGES) -> int:
    """Pipeline stages of an fp32 launch: NUM_STAGES, lowered until 4-byte tiles fit. A loop
    pipelined in n stages keeps n - 1 tiles of A and B in shared memory (Triton 3.6 asked for
    8 x 48 KB at 9 stages of 128x64x64 fp32 tiles, runs/gpu-tests-h100-round17.txt)."""
    per_stage = (_skinny_narrow_BLOCK_M * _skinny_narrow_BLOCK_K + _skinny_narrow_BLOCK_K * _skinny_narrow_BLOCK_N) * 4
    return max(1, min(stages, _skinny_narrow_MAX_SHARED_BYTES // per_stage + 1))
_skinny_narrow__RECIPES = {}
_skinny_narrow__MAX_RECIPES = 256

def _skinny_narrow__signature(a, b, extras, use_tma):
    return (a.shape, a.stride(), b.shape, b.stride(), a.dtype, b.dtype, a.device, a.data_ptr() % 16, b.data_ptr() % 16, use_tma, tuple(((t.shape, t.stride(), t.dtype, t.data_ptr() % 16) if isinstance(t, torch.Tensor) else type(t) for t in extras)))

def _skinny_narrow__output_unit(c3, cols: int) -> int:
    """C_UNIT of a launch that writes c3 (batch, M, N), a new contiguous tensor, in stores
    `cols` columns wide: the widest vector (elements, at most 16 bytes) that N and c3's base align
    to, and so its strides (M * N, N), but not one that makes exactly 32 vectors of a store's row.
    Triton lays such a store out one row per warp, every warp on rows of its own, and on an H100
    that store was the slow one at every tile and slice width timed: TILED's 128x256 tiles at
    1000x1024->3000 took 23.0 us a call in 16-byte vectors and 18.9 in 8-byte ones (2-byte: 19.5),
    128x128 tiles 20.4 in 8-byte vectors against 18.3-18.5 in 4- or 16-byte ones
    (bench/results/runs/probe-gemm-store-h100-round171.json); at 1000x1024->4096, where Triton
    took 16 bytes by itself, TILED took 23.6 us and TILED in two epilogue slices 19.7
    (bench/results/probe-gemm-parts-h100.json). The kernels take N and those strides divided by
    the unit (unit_width) and store vectors of at most a unit (store_cols)."""
    unit = _skinny_narrow__unit((c3.shape[2],), c3.data_ptr(), c3.element_size())
    if unit > 1 and cols // unit == 32:
        unit //= 2
    return unit

def _skinny_narrow__split_buffers(ws_shape, tiles: int, like):
    """Split-K's fp32 partials (SPLIT_K, batch, M, N) and one zeroed arrival counter per output
    tile, new for every call (so two launches on two streams never share them); without split-K,
    placeholders the kernel never touches."""
    if ws_shape is None:
        return (like, like)
    return (torch.empty(ws_shape, dtype=torch.float32, device=like.device), torch.zeros(tiles, dtype=torch.int32, device=like.device))

def _skinny_narrow__gemm(a, b, extras, use_tma=None, key=None):
    """epilogue(a @ b) for a (..., M, K), b (..., K, N) of one dtype; `use_tma` None: tma_plan.
    `key`: the call's _signature, where the caller has it."""
    if key is None:
        key = _skinny_narrow__signature(a, b, extras, use_tma)
    recipe = _skinny_narrow__RECIPES.get(key)
    if recipe is None:
        return _skinny_narrow__gemm_first(a, b, extras, use_tma, key)
    epi = [t if isinstance(t, torch.Tensor) else float(t) for t in extras]
    if recipe[0] == 'tma':
        _, out_shape, grid, (a_box, b_box), args, kwargs, direct = recipe
        out = torch.empty(out_shape, dtype=a.dtype, device=a.device)
        _skinny_narrow__run(_skinny_narrow__gemm_tma_kernel, grid, direct, (_skinny_narrow__RecordedDescriptor(a, *a_box), _skinny_narrow__RecordedDescriptor(b, *b_box), out, *epi, *args), kwargs)
        return out
    _, out_shape, grid, args, kwargs, ws_shape, tiles, direct = recipe
    out = torch.empty(out_shape, dtype=a.dtype, device=a.device)
    workspace, locks = _skinny_narrow__split_buffers(ws_shape, tiles, out)
    _skinny_narrow__run(_skinny_narrow__gemm_kernel, grid, direct, (a, b, out, workspace, locks, *epi, *args), kwargs)
    return out

def _skinny_narrow__direct(compiled, kernel, grid, n_args: int, kwargs):
    """A recorded launch through the compiled kernel's own launcher: (the launcher over `grid`,
    the values of the kernel's parameters after its first `n_args`, all passed as keywords), or
    None in Triton's interpreter or where a parameter was left to its default.
    `kernel[grid](...)` binds and specializes every argument again on each call; a recipe's key
    (shapes, strides, dtypes, device, 16-byte alignment) already fixes all that specialization
    depends on, and its sizes and strides are the first call's. The verifier counts these
    launches as it counts `kernel[grid](...)` (verifier/runtime.py)."""
    if compiled is None:
        return None
    rest = kernel.arg_names[n_args:]
    if any((name not in kwargs for name in rest)):
        return None
    return (compiled[(*grid, 1, 1)[:3]], tuple((kwargs[name] for name in rest)))

def _skinny_narrow__run(kernel, grid, direct, args, kwargs):
    """kernel[grid](*args, **kwargs), through `direct` (from _direct) where there is one."""
    if direct is None:
        kernel[grid](*args, **kwargs)
    else:
        run, consts = direct
        run(*args, *consts)

def _skinny_narrow__box(desc):
    return (list(desc.shape), list(desc.strides), list(desc.block_shape))

def _skinny_narrow__record(key, recipe):
    if len(_skinny_narrow__RECIPES) >= _skinny_narrow__MAX_RECIPES:
        _skinny_narrow__RECIPES.clear()
    _skinny_narrow__RECIPES[key] = recipe

def _skinny_narrow__same_tensors(pairs) -> bool:
    """Whether every view the launch took starts at its caller tensor's first element."""
    return all((not isinstance(v, torch.Tensor) or v.data_ptr() == t.data_ptr() for v, t in pairs))

def _skinny_narrow__gemm_first(a, b, extras, use_tma, key):
    """_gemm for a call signature not seen yet: checks, views, the launch, and its recipe."""
    if a.dtype not in (torch.float32, torch.float16, torch.bfloat16) or b.dtype != a.dtype:
        raise TypeError(f'launch_linear_bias_gelu: unsupported dtypes {a.dtype} @ {b.dtype}')
    a3, b3, out_shape = _skinny_narrow__as_3d(a, b)
    if use_tma is None:
        use_tma = _skinny_narrow_tma_plan(a3, b3) == 'tma'
    if not use_tma:
        a3, b3 = (_skinny_narrow__aligned(a3), _skinny_narrow__aligned(b3))
    n_batch, m, k = a3.shape
    n = b3.shape[2]
    out = torch.empty(out_shape, dtype=a.dtype, device=a.device)
    if out.numel() == 0:
        return out
    c3 = out.reshape(n_batch, m, n)
    c_unit = _skinny_narrow__output_unit(c3, _skinny_narrow_BLOCK_N // _skinny_narrow_EPILOGUE_SPLIT)
    epi, epi_strides, flags = _skinny_narrow__epilogue_args(extras, out_shape, c3.shape, a)
    is_fp32 = a.dtype == torch.float32
    on_gpu = a.is_cuda
    upcast = a.dtype == torch.bfloat16 and (not on_gpu)
    stages = _skinny_narrow_fp32_stages() if is_fp32 else _skinny_narrow_NUM_STAGES
    tiles_m, tiles_n = (_skinny_narrow__cdiv(m, _skinny_narrow_BLOCK_M), _skinny_narrow__cdiv(n, _skinny_narrow_BLOCK_N))
    tiles = n_batch * tiles_m * tiles_n
    programs = tiles
    if _skinny_narrow_PERSISTENT:
        programs = min(tiles, _skinny_narrow__sm_count(max(a.get_device(), 0)) * _skinny_narrow_PERSISTENT)
    if use_tma:
        a_desc, a_t = _skinny_narrow__descriptor(a3[0], _skinny_narrow_BLOCK_M, _skinny_narrow_BLOCK_K)
        b_desc, b_t = _skinny_narrow__descriptor(b3[0], _skinny_narrow_BLOCK_K, _skinny_narrow_BLOCK_N)
        args = (m, n // c_unit, k, c3.stride(0) // c_unit, c3.stride(1) // c_unit, *epi_strides)
        kwargs = dict(BLOCK_M=_skinny_narrow_BLOCK_M, BLOCK_N=_skinny_narrow_BLOCK_N, BLOCK_K=_skinny_narrow_BLOCK_K, GROUP_M=_skinny_narrow_GROUP_M, A_T=a_t, B_T=b_t, STAGES=stages, C_UNIT=c_unit, IS_FP32=is_fp32, UPCAST_BF16=upcast, ON_GPU=on_gpu, num_warps=_skinny_narrow_NUM_WARPS, num_stages=stages, **flags, num_ctas=1 if b_t else _skinny_narrow_NUM_CTAS)
        launch = (a_desc, b_desc, c3, *epi, *args)
        kwargs, compiled = _skinny_narrow__launch_fitting(_skinny_narrow__gemm_tma_kernel, (programs,), launch, kwargs, c3)
        if _skinny_narrow__same_tensors([(a_desc.base, a), (b_desc.base, b), *zip(epi, extras)]):
            _skinny_narrow__record(key, ('tma', out_shape, (programs,), (_skinny_narrow__box(a_desc), _skinny_narrow__box(b_desc)), args, kwargs, _skinny_narrow__direct(compiled, _skinny_narrow__gemm_tma_kernel, (programs,), len(launch), kwargs)))
        return out
    k_tiles = _skinny_narrow__cdiv(k, _skinny_narrow_BLOCK_K)
    split = 1 if _skinny_narrow_PERSISTENT else max(1, min(_skinny_narrow_SPLIT_K, k_tiles))
    k_per_split = _skinny_narrow__cdiv(k_tiles, split) * _skinny_narrow_BLOCK_K
    split = max(1, _skinny_narrow__cdiv(k, k_per_split))
    ws_shape = (split, n_batch, m, n) if split > 1 else None
    workspace, locks = _skinny_narrow__split_buffers(ws_shape, tiles, c3)
    biggest = max(a3.numel(), b3.numel(), c3.numel(), workspace.numel(), max((t.numel() for t in epi if isinstance(t, torch.Tensor)), default=0))
    grid = (programs,) if _skinny_narrow_PERSISTENT else (tiles, split)
    args = (m, n // c_unit, k, n_batch, k_per_split, n_batch * m * n, a3.stride(0), a3.stride(1), a3.stride(2), b3.stride(0), b3.stride(1), b3.stride(2), c3.stride(0) // c_unit, c3.stride(1) // c_unit, *epi_strides)
    kwargs = dict(BLOCK_M=_skinny_narrow_BLOCK_M, BLOCK_N=_skinny_narrow_BLOCK_N, BLOCK_K=_skinny_narrow_BLOCK_K, GROUP_M=_skinny_narrow_GROUP_M, SPLIT_K=split, EVEN_M=m % _skinny_narrow_BLOCK_M == 0 or (_skinny_narrow_SHIFT_TAIL and m >= _skinny_narrow_BLOCK_M), EVEN_N=n % _skinny_narrow_BLOCK_N == 0, EVEN_K=k % _skinny_narrow_BLOCK_K == 0, IS_FP32=is_fp32, UPCAST_BF16=upcast, ON_GPU=on_gpu, INDEX_64=biggest >= 2 ** 31, STAGES=stages, C_UNIT=c_unit, num_warps=_skinny_narrow_NUM_WARPS, num_stages=stages, **flags)
    launch = (a3, b3, c3, workspace, locks, *epi, *args)
    kwargs, compiled = _skinny_narrow__launch_fitting(_skinny_narrow__gemm_kernel, grid, launch, kwargs, c3)
    if _skinny_narrow__same_tensors([(a3, a), (b3, b), *zip(epi, extras)]):
        _skinny_narrow__record(key, ('pointer', out_shape, grid, args, kwargs, ws_shape, tiles, _skinny_narrow__direct(compiled, _skinny_narrow__gemm_kernel, grid, len(launch), kwargs)))
    return out

def _skinny_narrow__fit_stages(kernel, grid, args, kwargs, limit: int):
    """`kwargs` with the pipeline's stages lowered, one at a time, until the compiled kernel's
    shared memory fits `limit` (compiled, not launched: `warmup`); at one stage, as it is. float32
    tiles under a flattened tile loop or a sliced epilogue asked for 256-288 KB at the stages
    fp32_stages() allows, against 227 KB (H100, GPU round 46, bench/probe_gemm_default_gpu.py)."""
    while kwargs['num_stages'] > 1:
        if kernel.warmup(*args, grid=grid, **kwargs).metadata.shared <= limit:
            break
        stages = kwargs['num_stages'] - 1
        kwargs = {**kwargs, 'STAGES': stages, 'num_stages': stages}
    return kwargs

@functools.lru_cache(maxsize=None)
def _skinny_narrow__shared_limit(device_index: int) -> int:
    return torch.cuda.get_device_properties(device_index).shared_memory_per_block_optin

def _skinny_narrow__launch_fitting(kernel, grid, args, kwargs, out):
    """kernel[grid](*args, **kwargs), on a GPU with stages that fit its shared memory (_fit_stages);
    returns the keywords it ran with, which a recipe keeps, and the compiled kernel (None in the
    interpreter). `out`: the output, on the device."""
    if out.is_cuda:
        kwargs = _skinny_narrow__fit_stages(kernel, grid, args, kwargs, _skinny_narrow__shared_limit(out.get_device()))
    return (kwargs, kernel[grid](*args, **kwargs))

def _skinny_narrow__operand(t, transposed: bool):
    return t.transpose(-2, -1) if transposed else t

def _skinny_narrow_launch_linear_bias_gelu(a, b, in0):
    """linear_bias_gelu: epilogue(a @ b^T), one kernel launch."""
    return _skinny_narrow__gemm(_skinny_narrow__operand(a, _skinny_narrow_A_TRANSPOSED), _skinny_narrow__operand(b, _skinny_narrow_B_TRANSPOSED), (in0,))

class _skinny_narrow_ModelNew(torch.nn.Module):
    """Drop-in for the task's Model: the matmul and its epilogue in one kernel."""

    def __init__(self, *args, **kwargs):
        super().__init__()
        self.fc = torch.nn.Module()
        self.fc.weight = torch.nn.UninitializedParameter()
        self.fc.bias = torch.nn.UninitializedParameter()

    def forward(self, *args):
        return _skinny_narrow_launch_linear_bias_gelu(args[0], self.fc.weight, self.fc.bias)

# skinny_rows: the kernels and launcher of the calls it routes (_skinny_narrow_wide_)

def _skinny_narrow_wide__cdiv(a: int, b: int) -> int:
    """ceil(a / b) for non-negative ints, on the host."""
    return -(-a // b)

def _skinny_narrow_wide__next_pow2(n: int) -> int:
    """The smallest power of two >= n, 0 for 0 (as triton.next_power_of_2), on the host."""
    return 1 << (n - 1).bit_length() if n > 0 else 0

def _skinny_narrow_wide__unit(values, data_ptr: int, itemsize: int) -> int:
    """The widest vector (elements, at most 16 bytes) that every offset and the base align to.
    A kernel takes its widths and strides divided by it and multiplies them back by the
    constexpr: Triton marks an int argument only when it is divisible by 16, so a 1000-wide
    bf16 row (2000 bytes, 16-byte aligned) would otherwise get 2-byte loads and stores."""
    unit = 16 // itemsize
    while unit > 1 and (any((v % unit for v in values)) or data_ptr % (unit * itemsize)):
        unit //= 2
    return unit
_skinny_narrow_wide_PARAMS = {'BLOCK_M': 32, 'BLOCK_N': 128, 'BLOCK_K': 128, 'GROUP_M': 4, 'num_warps': 4, 'num_stages': 4, 'SPLIT_K': 1, 'persistent': 0, 'use_tma': True, 'EPILOGUE_SPLIT': 1, 'flatten': False, 'gelu_erf_fit': False, 'skinny_rows': 0, 'odd_tiled': False, 'single_wave_tiled': False, 'fuse_norm': False, 'ws_pingpong': False, 'ws_coop': False, 'num_ctas': 1, 'swap_ab': True, 'shift_tail': False}
_skinny_narrow_wide_BLOCK_M = 32
_skinny_narrow_wide_BLOCK_N = 128
_skinny_narrow_wide_BLOCK_K = 128
_skinny_narrow_wide_EPILOGUE_SPLIT = 1
_skinny_narrow_wide_GROUP_M = 4
_skinny_narrow_wide_NUM_WARPS = 4
_skinny_narrow_wide_NUM_STAGES = 4
_skinny_narrow_wide_NUM_CTAS = 1
_skinny_narrow_wide_SPLIT_K = 1
_skinny_narrow_wide_PERSISTENT = 0
_skinny_narrow_wide_USE_TMA = True
_skinny_narrow_wide_SHIFT_TAIL = False
_skinny_narrow_wide_SKINNY_ROWS = 0
_skinny_narrow_wide_SKINNY_TILES = ((32, 64, 'skinny_narrow', 'one'), (32, 128, 'skinny_narrow_wide', 'one'), (64, 64, 'skinny', 'tile'), (64, 64, 'skinny_pointer', 'any'), (64, 128, 'skinny_wide', 'any'), (64, 256, 'skinny_wider', 'any'), (128, 128, 'skinny_large', 'any'))
_skinny_narrow_wide_DECODE_BLOCK_N = (32, 64, 128)
_skinny_narrow_wide_DECODE_ROWS = 16
_skinny_narrow_wide_ODD_TILED = False
_skinny_narrow_wide_SINGLE_WAVE_TILED = False
_skinny_narrow_wide_A_TRANSPOSED = False
_skinny_narrow_wide_B_TRANSPOSED = True
_skinny_narrow_wide_MAX_SHARED_BYTES = 227 * 1024

@triton.jit
def _skinny_narrow_wide__relu(x):
    return tl.where(x < 0.0, 0.0, x)

@triton.jit
def _skinny_narrow_wide__leaky_relu(x, slope):
    return tl.where(x > 0.0, x, x * slope)

@triton.jit
def _skinny_narrow_wide__expm1(x):
    series = x * (1.0 + x * (0.5 + x * (1.0 / 6.0 + x * (1.0 / 24.0 + x * (1.0 / 120.0)))))
    return tl.where(tl.abs(x) < 0.03125, series, tl.exp(x) - 1.0)

@triton.jit
def _skinny_narrow_wide__elu(x, alpha):
    return tl.where(x > 0.0, x, alpha * _skinny_narrow_wide__expm1(x))

@triton.jit
def _skinny_narrow_wide__sigmoid(x):
    return 1.0 / (1.0 + tl.exp(-x))

@triton.jit
def _skinny_narrow_wide__silu(x):
    return x / (1.0 + tl.exp(-x))

@triton.jit
def _skinny_narrow_wide__tanh(x):
    ax = tl.abs(x)
    t = tl.exp(-2.0 * ax)
    far = (1.0 - t) / (1.0 + t)
    x2 = ax * ax
    near = ax * (1.0 + x2 * (-1.0 / 3.0 + x2 * (2.0 / 15.0 + x2 * (-17.0 / 315.0))))
    r = tl.where(ax < 0.0625, near, far)
    return tl.where(x < 0.0, -r, r)

@triton.jit
def _skinny_narrow_wide__gelu_erf(x):
    return 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))

@triton.jit
def _skinny_narrow_wide__gelu_tanh(x):
    u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    return x / (1.0 + tl.exp(-2.0 * u))

@triton.jit
def _skinny_narrow_wide__log1p_unit(e):
    series = e * (1.0 - e * (0.5 - e * (1.0 / 3.0 - e * (0.25 - e * 0.2))))
    return tl.where(e < 0.03125, series, tl.log(1.0 + e))

@triton.jit
def _skinny_narrow_wide__softplus(x, beta, threshold):
    z = x * beta
    sp = tl.where(z > 0.0, z, 0.0) + _skinny_narrow_wide__log1p_unit(tl.exp(-tl.abs(z)))
    return tl.where(z > threshold, x, sp / beta)

@triton.jit
def _skinny_narrow_wide__mish(x):
    e = tl.exp(tl.where(x < 20.0, x, 20.0))
    n = e * (e + 2.0)
    return tl.where(x > 20.0, x, x * (n / (n + 2.0)))

@triton.jit
def _skinny_narrow_wide__clamp_min(x, lo):
    return tl.where(x < lo, lo, x)

@triton.jit
def _skinny_narrow_wide__clamp_max(x, hi):
    return tl.where(x > hi, hi, x)

@triton.jit
def _skinny_narrow_wide__clamp(x, lo, hi):
    return _skinny_narrow_wide__clamp_max(_skinny_narrow_wide__clamp_min(x, lo), hi)

@triton.jit
def _skinny_narrow_wide__hardsigmoid(x):
    return _skinny_narrow_wide__clamp(x + 3.0, 0.0, 6.0) / 6.0

@triton.jit
def _skinny_narrow_wide__hardswish(x):
    return x * _skinny_narrow_wide__clamp(x + 3.0, 0.0, 6.0) / 6.0

@triton.jit
def _skinny_narrow_wide__maximum(a, b):
    return tl.where((a > b) | (a != a), a, b)

@triton.jit
def _skinny_narrow_wide__minimum(a, b):
    return tl.where((a < b) | (a != a), a, b)

@triton.jit
def _skinny_narrow_wide__tile_coords(tile_id, tiles_m, tiles_n, GROUP_M: tl.constexpr):
    per_batch = tiles_m * tiles_n
    batch = tile_id // per_batch
    t = tile_id % per_batch
    in_group = GROUP_M * tiles_n
    first_m = t // in_group * GROUP_M
    group_rows = tl.minimum(tiles_m - first_m, GROUP_M)
    pid_m = first_m + t % in_group % group_rows
    pid_n = t % in_group // group_rows
    return (batch, pid_m, pid_n)

@triton.jit
def _skinny_narrow_wide__gemm_kernel(a_ptr, b_ptr, c_ptr, w_ptr, lock_ptr, in0, M, N, K, n_batch, k_per_split, w_slot, stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn, stride_cb, stride_cm, s0_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, SPLIT_K: tl.constexpr, EVEN_M: tl.constexpr, EVEN_N: tl.constexpr, EVEN_K: tl.constexpr, STAGES: tl.constexpr, C_UNIT: tl.constexpr, IS_FP32: tl.constexpr, UPCAST_BF16: tl.constexpr, ON_GPU: tl.constexpr, INDEX_64: tl.constexpr):
    N = N * C_UNIT
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    tile_id = pid
    pid_k = tl.program_id(1)
    batch, pid_m, pid_n = _skinny_narrow_wide__tile_coords(tile_id, tiles_m, tiles_n, GROUP_M)
    batch64 = batch.to(tl.int64)
    off_m = pid_m * BLOCK_M
    offs_m = off_m + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    if INDEX_64:
        offs_m = offs_m.to(tl.int64)
        offs_n = offs_n.to(tl.int64)
        offs_k = offs_k.to(tl.int64)
    k_start = pid_k * k_per_split
    k_end = tl.minimum(K, k_start + k_per_split)
    a_ptrs = a_ptr + batch64 * stride_ab + offs_m[:, None] * stride_am + (k_start + offs_k)[None, :] * stride_ak
    b_ptrs = b_ptr + batch64 * stride_bb + (k_start + offs_k)[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_N, BLOCK_M), dtype=tl.float32)
    k_full = k_start + (k_end - k_start) // BLOCK_K * BLOCK_K
    for k in tl.range(k_start, k_full, BLOCK_K, num_stages=STAGES):
        if EVEN_M:
            a = tl.load(a_ptrs)
        else:
            a = tl.load(a_ptrs, mask=offs_m[:, None] < M, other=0.0)
        if EVEN_N:
            b = tl.load(b_ptrs)
        else:
            b = tl.load(b_ptrs, mask=offs_n[None, :] < N, other=0.0)
        a, b = (tl.trans(b), tl.trans(a))
        if IS_FP32:
            part = tl.dot(a, b, input_precision='ieee')
            if ON_GPU:
                acc = tl.inline_asm_elementwise('add.rn.f32 $0, $1, $2;', '=r,r,r', [acc, part], dtype=tl.float32, is_pure=True, pack=1)
            else:
                acc = acc + part
        elif UPCAST_BF16:
            acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision='ieee')
        else:
            acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    if not EVEN_K:
        if k_full < k_end:
            a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & ((k_full + offs_k)[None, :] < k_end), other=0.0)
            b = tl.load(b_ptrs, mask=((k_full + offs_k)[:, None] < k_end) & (offs_n[None, :] < N), other=0.0)
            a, b = (tl.trans(b), tl.trans(a))
            if IS_FP32:
                part = tl.dot(a, b, input_precision='ieee')
                if ON_GPU:
                    acc = tl.inline_asm_elementwise('add.rn.f32 $0, $1, $2;', '=r,r,r', [acc, part], dtype=tl.float32, is_pure=True, pack=1)
                else:
                    acc = acc + part
            elif UPCAST_BF16:
                acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision='ieee')
            else:
                acc = tl.dot(a, b, acc)
    acc = tl.trans(acc)
    if SPLIT_K > 1:
        w_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
        w_tile = w_ptr + (batch64 * M + offs_m[:, None]) * N + offs_n[None, :]
        tl.store(w_tile + pid_k.to(tl.int64) * w_slot, acc, mask=w_mask)
        tl.debug_barrier()
        arrived = tl.atomic_add(lock_ptr + tile_id, 1, sem='acq_rel')
        if arrived == SPLIT_K - 1:
            acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
            for s in tl.static_range(SPLIT_K):
                acc += tl.load(w_tile, mask=w_mask, other=0.0, cache_modifier='.cg')
                w_tile += w_slot
            c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
            x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
            t0 = acc + x0
            t1 = _skinny_narrow_wide__gelu_erf(t0)
            if C_UNIT > 1:
                c_cols = tl.max_contiguous(offs_n, C_UNIT)
            else:
                c_cols = offs_n
            c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
            tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)
    else:
        c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
        x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
        t0 = acc + x0
        t1 = _skinny_narrow_wide__gelu_erf(t0)
        if C_UNIT > 1:
            c_cols = tl.max_contiguous(offs_n, C_UNIT)
        else:
            c_cols = offs_n
        c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
        tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)

@triton.jit
def _skinny_narrow_wide__gemm_tma_kernel(a_desc, b_desc, c_ptr, in0, M, N, K, stride_cb, stride_cm, s0_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, A_T: tl.constexpr, B_T: tl.constexpr, STAGES: tl.constexpr, C_UNIT: tl.constexpr, IS_FP32: tl.constexpr, UPCAST_BF16: tl.constexpr, ON_GPU: tl.constexpr):
    N = N * C_UNIT
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    tile_id = pid
    batch, pid_m, pid_n = _skinny_narrow_wide__tile_coords(tile_id, tiles_m, tiles_n, GROUP_M)
    batch64 = batch.to(tl.int64)
    off_m = pid_m * BLOCK_M
    off_n = pid_n * BLOCK_N
    acc = tl.zeros((BLOCK_N, BLOCK_M), dtype=tl.float32)
    for k in tl.range(0, K, BLOCK_K, num_stages=STAGES):
        if A_T:
            a = a_desc.load([k, off_m]).T
        else:
            a = a_desc.load([off_m, k])
        if B_T:
            b = b_desc.load([off_n, k]).T
        else:
            b = b_desc.load([k, off_n])
        a, b = (tl.trans(b), tl.trans(a))
        if IS_FP32:
            part = tl.dot(a, b, input_precision='ieee')
            if ON_GPU:
                acc = tl.inline_asm_elementwise('add.rn.f32 $0, $1, $2;', '=r,r,r', [acc, part], dtype=tl.float32, is_pure=True, pack=1)
            else:
                acc = acc + part
        elif UPCAST_BF16:
            acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision='ieee')
        else:
            acc = tl.dot(a, b, acc)
    acc = tl.trans(acc)
    offs_m = off_m + tl.arange(0, BLOCK_M)
    offs_n = off_n + tl.arange(0, BLOCK_N)
    c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
    t0 = acc + x0
    t1 = _skinny_narrow_wide__gelu_erf(t0)
    if C_UNIT > 1:
        c_cols = tl.max_contiguous(offs_n, C_UNIT)
    else:
        c_cols = offs_n
    c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
    tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)

@functools.lru_cache(maxsize=None)
def _skinny_narrow_wide__sm_count(device_index: int) -> int:
    if not torch.cuda.is_available():
        return 4
    return torch.cuda.get_device_properties(device_index).multi_processor_count

def _skinny_narrow_wide__as_3d(a, b):
    """(A as (batch, M, K), B as (batch, K, N), the output's shape); views where strides allow."""
    if a.dim() < 2 or b.dim() < 2:
        raise ValueError(f'launch_linear_bias_gelu: operands must have 2 or more dims, got {tuple(a.shape)} and {tuple(b.shape)}')
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f'launch_linear_bias_gelu: inner dims differ: {tuple(a.shape)} @ {tuple(b.shape)}')
    m, k, n = (a.shape[-2], a.shape[-1], b.shape[-1])
    if b.dim() == 2:
        out_shape = (*a.shape[:-1], n)
        return (a.reshape(1, -1, k), b.unsqueeze(0), out_shape)
    if a.dim() == 2:
        b3 = b.reshape(-1, k, n)
        return (a.unsqueeze(0).expand(b3.shape[0], m, k), b3, (*b.shape[:-2], m, n))
    if a.shape[:-2] != b.shape[:-2]:
        raise ValueError(f'launch_linear_bias_gelu: batch dims differ ({tuple(a.shape[:-2])} vs {tuple(b.shape[:-2])}); broadcast batch dims are not covered')
    return (a.reshape(-1, m, k), b.reshape(-1, k, n), (*a.shape[:-2], m, n))

@triton.jit
def _skinny_narrow_wide__pad_copy_kernel(src, dst, R, C, s_b, s_r, s_c, d_b, d_r, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    pid_b = tl.program_id(2).to(tl.int64)
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (rows[:, None] < R) & (cols[None, :] < C)
    rows64 = rows.to(tl.int64)
    x = tl.load(src + pid_b * s_b + rows64[:, None] * s_r + cols[None, :] * s_c, mask=mask)
    tl.store(dst + pid_b * d_b + rows64[:, None] * d_r + cols[None, :], x, mask=mask)

def _skinny_narrow_wide__unaligned(t3) -> bool:
    """Whether the pointer kernel would read t3 (batch, R, C) through a padded copy (_aligned):
    a unit-stride dim whose rows (or, with batches, batch stride) are not a multiple of 16
    elements, or a base that is not 16-byte aligned. Neither dim contiguous: read as it is."""
    if t3.stride(2) == 1 or t3.shape[2] == 1:
        lead_dim = 1
    elif t3.stride(1) == 1 or t3.shape[1] == 1:
        return _skinny_narrow_wide__unaligned(t3.transpose(1, 2))
    else:
        return False
    strides_ok = t3.stride(lead_dim) % 16 == 0 and (t3.shape[0] == 1 or t3.stride(0) % 16 == 0)
    return not (strides_ok and t3.data_ptr() % 16 == 0)

def _skinny_narrow_wide__aligned(t3):
    """t3 (batch, R, C) read by the GEMM; when its row stride is not a multiple of 16 elements
    (a width of 4097, or of 1000), a copy into rows padded to 16 elements, viewed at the original
    width. Triton vectorizes a tile load only along rows whose stride it can prove to be a
    multiple of 16 elements; scalar loads cost the GEMM several times the copy (on an H100,
    4095x4097x4093 took 5.9 ms, bench/results/runs/tune-h100-gemm-attention.json; gelu(linear) at
    4099 x 3073 x 1000 took 0.99 ms with rows of 1000 and 0.09 ms with rows of 1024,
    bench/results/gemm-odd-h100.json). Where descriptor loads are available the launcher takes
    them for such operands instead (tma_plan), and this copy is the fallback."""
    if not _skinny_narrow_wide__unaligned(t3):
        return t3
    if not (t3.stride(2) == 1 or t3.shape[2] == 1):
        return _skinny_narrow_wide__aligned(t3.transpose(1, 2)).transpose(1, 2)
    elem = 16
    batch, rows, cols = t3.shape
    padded = _skinny_narrow_wide__cdiv(cols, elem) * elem
    out = torch.empty((batch, rows, padded), dtype=t3.dtype, device=t3.device)
    grid = (_skinny_narrow_wide__cdiv(rows, 32), _skinny_narrow_wide__cdiv(cols, 128), batch)
    _skinny_narrow_wide__pad_copy_kernel[grid](t3, out, rows, cols, t3.stride(0), t3.stride(1), t3.stride(2), out.stride(0), out.stride(1), BLOCK_R=32, BLOCK_C=128, num_warps=4)
    return out[:, :, :cols]
_skinny_narrow_wide_TMA_AVAILABLE = hasattr(tl, 'tensor_descriptor') and hasattr(TensorDescriptor, 'from_tensor')

@functools.lru_cache(maxsize=None)
def _skinny_narrow_wide__capability(device_index: int) -> tuple[int, int]:
    return torch.cuda.get_device_capability(device_index)

def _skinny_narrow_wide__tma_refused(t: torch.Tensor, wanted: bool=_skinny_narrow_wide_USE_TMA) -> str | None:
    """Why no call on `t`'s device takes descriptor loads under this config, or None."""
    if not wanted:
        return 'config: use_tma is off'
    if not _skinny_narrow_wide_TMA_AVAILABLE:
        return 'the installed Triton has no tensor descriptors'
    if not t.is_cuda:
        return "not a CUDA device (Triton's interpreter runs the pointer kernel)"
    if _skinny_narrow_wide__capability(t.get_device())[0] < 9:
        return 'TMA needs compute capability 9.0 or newer'
    return None

def _skinny_narrow_wide_tma_plan(a3, b3) -> str:
    """"tma" when this call takes the TMA kernel, else why it takes the pointer kernel.

    With use_tma off, a call whose A or B rows would need a padded copy for the pointer kernel
    (rows of 1000 or 3073 elements, say: 16-byte aligned, not 16-element aligned) takes the
    descriptor kernel where it can: it reads such rows in place at full speed, where the copy
    costs a kernel and a buffer (at 4099 x 1000 -> 3073 on an H100, 0.098 ms against 0.376 ms
    padded, bench/results/gemm-odd-h100.json). Not under split-K, which the TMA kernel lacks,
    and for 16-bit operands only: float32 through descriptors at the default 128x256x64 tiles
    needs 256 KB of shared memory and does not compile (runs/probe-fp32-tma-h100.txt)."""
    odd_rows = not _skinny_narrow_wide_USE_TMA and _skinny_narrow_wide_SPLIT_K == 1 and (a3.element_size() == 2) and (_skinny_narrow_wide__unaligned(a3) or _skinny_narrow_wide__unaligned(b3))
    refused = _skinny_narrow_wide__tma_refused(a3, _skinny_narrow_wide_USE_TMA or odd_rows)
    if refused:
        return refused
    if a3.shape[0] != 1:
        return 'batched operands (the TMA kernel is 2-D)'
    for name, t in (('A', a3[0]), ('B', b3[0])):
        if t.stride(-1) != 1 and t.stride(-2) != 1:
            return f'{name} has no unit stride'
        outer = t.stride(-2) if t.stride(-1) == 1 else t.stride(-1)
        if t.data_ptr() % 16 or outer * t.element_size() % 16:
            return f"{name}'s base or row stride is not 16-byte aligned"
    return 'tma'

class _skinny_narrow_wide__RecordedDescriptor(TensorDescriptor):
    """A descriptor of a recorded launch (_gemm's recipe), built without TensorDescriptor's
    checks: the recipe's key (the caller's shapes, strides, dtypes and 16-byte alignment) fixes
    all those checks read, and the recording call's descriptors passed them. Building the two
    descriptors with the checks took 6 us of an H100 host's time a call
    (bench/results/probe-host-parts-h100.json)."""

    def __init__(self, base, shape, strides, block_shape):
        self.base, self.shape, self.strides, self.block_shape = (base, shape, strides, block_shape)

def _skinny_narrow_wide__descriptor(t, rows_block: int, cols_block: int):
    """A descriptor over 2-D `t` and whether the kernel must transpose what it loads."""
    if t.stride(-1) == 1:
        return (TensorDescriptor(t, list(t.shape), [t.stride(0), 1], [rows_block, cols_block]), False)
    return (TensorDescriptor(t, [t.shape[1], t.shape[0]], [t.stride(1), 1], [cols_block, rows_block]), True)

def _skinny_narrow_wide__epilogue_args(extras, out_shape, c_shape, like):
    """The epilogue's operands, checked, and their strides, in the kernels' argument order."""
    args, strides, flags = ([], [], {})
    n = c_shape[2]
    t = extras[0]
    if t.dim() != 1 or t.shape[0] != n or t.dtype != like.dtype:
        raise ValueError(f'launch_linear_bias_gelu: epilogue input 0 is {tuple(t.shape)} {t.dtype}; expected ({n},) {like.dtype}, broadcast along N')
    strides.append(t.stride(0))
    args.append(t)
    return (args, strides, flags)

def _skinny_narrow_wide_fp32_stages(stages: int=_skinny_narrow_wide_NUM_STAGES) -> int:
    """Pipeline stages of an fp32 launch: NUM_STAGES, lowered until 4-byte tiles fit. A loop
    pipelined in n stages keeps n - 1 tiles of A and B in shared memory (Triton 3.6 asked for
    8 x 48 KB at 9 stages of 128x64x64 fp32 tiles, runs/gpu-tests-h100-round17.txt)."""
    per_stage = (_skinny_narrow_wide_BLOCK_M * _skinny_narrow_wide_BLOCK_K + _skinny_narrow_wide_BLOCK_K * _skinny_narrow_wide_BLOCK_N) * 4
    return max(1, min(stages, _skinny_narrow_wide_MAX_SHARED_BYTES // per_stage + 1))
_skinny_narrow_wide__RECIPES = {}
_skinny_narrow_wide__MAX_RECIPES = 256

def _skinny_narrow_wide__signature(a, b, extras, use_tma):
    return (a.shape, a.stride(), b.shape, b.stride(), a.dtype, b.dtype, a.device, a.data_ptr() % 16, b.data_ptr() % 16, use_tma, tuple(((t.shape, t.stride(), t.dtype, t.data_ptr() % 16) if isinstance(t, torch.Tensor) else type(t) for t in extras)))

def _skinny_narrow_wide__output_unit(c3, cols: int) -> int:
    """C_UNIT of a launch that writes c3 (batch, M, N), a new contiguous tensor, in stores
    `cols` columns wide: the widest vector (elements, at most 16 bytes) that N and c3's base align
    to, and so its strides (M * N, N), but not one that makes exactly 32 vectors of a store's row.
    Triton lays such a store out one row per warp, every warp on rows of its own, and on an H100
    that store was the slow one at every tile and slice width timed: TILED's 128x256 tiles at
    1000x1024->3000 took 23.0 us a call in 16-byte vectors and 18.9 in 8-byte ones (2-byte: 19.5),
    128x128 tiles 20.4 in 8-byte vectors against 18.3-18.5 in 4- or 16-byte ones
    (bench/results/runs/probe-gemm-store-h100-round171.json); at 1000x1024->4096, where Triton
    took 16 bytes by itself, TILED took 23.6 us and TILED in two epilogue slices 19.7
    (bench/results/probe-gemm-parts-h100.json). The kernels take N and those strides divided by
    the unit (unit_width) and store vectors of at most a unit (store_cols)."""
    unit = _skinny_narrow_wide__unit((c3.shape[2],), c3.data_ptr(), c3.element_size())
    if unit > 1 and cols // unit == 32:
        unit //= 2
    return unit

def _skinny_narrow_wide__split_buffers(ws_shape, tiles: int, like):
    """Split-K's fp32 partials (SPLIT_K, batch, M, N) and one zeroed arrival counter per output
    tile, new for every call (so two launches on two streams never share them); without split-K,
    placeholders the kernel never touches."""
    if ws_shape is None:
        return (like, like)
    return (torch.empty(ws_shape, dtype=torch.float32, device=like.device), torch.zeros(tiles, dtype=torch.int32, device=like.device))

def _skinny_narrow_wide__gemm(a, b, extras, use_tma=None, key=None):
    """epilogue(a @ b) for a (..., M, K), b (..., K, N) of one dtype; `use_tma` None: tma_plan.
    `key`: the call's _signature, where the caller has it."""
    if key is None:
        key = _skinny_narrow_wide__signature(a, b, extras, use_tma)
    recipe = _skinny_narrow_wide__RECIPES.get(key)
    if recipe is None:
        return _skinny_narrow_wide__gemm_first(a, b, extras, use_tma, key)
    epi = [t if isinstance(t, torch.Tensor) else float(t) for t in extras]
    if recipe[0] == 'tma':
        _, out_shape, grid, (a_box, b_box), args, kwargs, direct = recipe
        out = torch.empty(out_shape, dtype=a.dtype, device=a.device)
        _skinny_narrow_wide__run(_skinny_narrow_wide__gemm_tma_kernel, grid, direct, (_skinny_narrow_wide__RecordedDescriptor(a, *a_box), _skinny_narrow_wide__RecordedDescriptor(b, *b_box), out, *epi, *args), kwargs)
        return out
    _, out_shape, grid, args, kwargs, ws_shape, tiles, direct = recipe
    out = torch.empty(out_shape, dtype=a.dtype, device=a.device)
    workspace, locks = _skinny_narrow_wide__split_buffers(ws_shape, tiles, out)
    _skinny_narrow_wide__run(_skinny_narrow_wide__gemm_kernel, grid, direct, (a, b, out, workspace, locks, *epi, *args), kwargs)
    return out

def _skinny_narrow_wide__direct(compiled, kernel, grid, n_args: int, kwargs):
    """A recorded launch through the compiled kernel's own launcher: (the launcher over `grid`,
    the values of the kernel's parameters after its first `n_args`, all passed as keywords), or
    None in Triton's interpreter or where a parameter was left to its default.
    `kernel[grid](...)` binds and specializes every argument again on each call; a recipe's key
    (shapes, strides, dtypes, device, 16-byte alignment) already fixes all that specialization
    depends on, and its sizes and strides are the first call's. The verifier counts these
    launches as it counts `kernel[grid](...)` (verifier/runtime.py)."""
    if compiled is None:
        return None
    rest = kernel.arg_names[n_args:]
    if any((name not in kwargs for name in rest)):
        return None
    return (compiled[(*grid, 1, 1)[:3]], tuple((kwargs[name] for name in rest)))

def _skinny_narrow_wide__run(kernel, grid, direct, args, kwargs):
    """kernel[grid](*args, **kwargs), through `direct` (from _direct) where there is one."""
    if direct is None:
        kernel[grid](*args, **kwargs)
    else:
        run, consts = direct
        run(*args, *consts)

def _skinny_narrow_wide__box(desc):
    return (list(desc.shape), list(desc.strides), list(desc.block_shape))

def _skinny_narrow_wide__record(key, recipe):
    if len(_skinny_narrow_wide__RECIPES) >= _skinny_narrow_wide__MAX_RECIPES:
        _skinny_narrow_wide__RECIPES.clear()
    _skinny_narrow_wide__RECIPES[key] = recipe

def _skinny_narrow_wide__same_tensors(pairs) -> bool:
    """Whether every view the launch took starts at its caller tensor's first element."""
    return all((not isinstance(v, torch.Tensor) or v.data_ptr() == t.data_ptr() for v, t in pairs))

def _skinny_narrow_wide__gemm_first(a, b, extras, use_tma, key):
    """_gemm for a call signature not seen yet: checks, views, the launch, and its recipe."""
    if a.dtype not in (torch.float32, torch.float16, torch.bfloat16) or b.dtype != a.dtype:
        raise TypeError(f'launch_linear_bias_gelu: unsupported dtypes {a.dtype} @ {b.dtype}')
    a3, b3, out_shape = _skinny_narrow_wide__as_3d(a, b)
    if use_tma is None:
        use_tma = _skinny_narrow_wide_tma_plan(a3, b3) == 'tma'
    if not use_tma:
        a3, b3 = (_skinny_narrow_wide__aligned(a3), _skinny_narrow_wide__aligned(b3))
    n_batch, m, k = a3.shape
    n = b3.shape[2]
    out = torch.empty(out_shape, dtype=a.dtype, device=a.device)
    if out.numel() == 0:
        return out
    c3 = out.reshape(n_batch, m, n)
    c_unit = _skinny_narrow_wide__output_unit(c3, _skinny_narrow_wide_BLOCK_N // _skinny_narrow_wide_EPILOGUE_SPLIT)
    epi, epi_strides, flags = _skinny_narrow_wide__epilogue_args(extras, out_shape, c3.shape, a)
    is_fp32 = a.dtype == torch.float32
    on_gpu = a.is_cuda
    upcast = a.dtype == torch.bfloat16 and (not on_gpu)
    stages = _skinny_narrow_wide_fp32_stages() if is_fp32 else _skinny_narrow_wide_NUM_STAGES
    tiles_m, tiles_n = (_skinny_narrow_wide__cdiv(m, _skinny_narrow_wide_BLOCK_M), _skinny_narrow_wide__cdiv(n, _skinny_narrow_wide_BLOCK_N))
    tiles = n_batch * tiles_m * tiles_n
    programs = tiles
    if _skinny_narrow_wide_PERSISTENT:
        programs = min(tiles, _skinny_narrow_wide__sm_count(max(a.get_device(), 0)) * _skinny_narrow_wide_PERSISTENT)
    if use_tma:
        a_desc, a_t = _skinny_narrow_wide__descriptor(a3[0], _skinny_narrow_wide_BLOCK_M, _skinny_narrow_wide_BLOCK_K)
        b_desc, b_t = _skinny_narrow_wide__descriptor(b3[0], _skinny_narrow_wide_BLOCK_K, _skinny_narrow_wide_BLOCK_N)
        args = (m, n // c_unit, k, c3.stride(0) // c_unit, c3.stride(1) // c_unit, *epi_strides)
        kwargs = dict(BLOCK_M=_skinny_narrow_wide_BLOCK_M, BLOCK_N=_skinny_narrow_wide_BLOCK_N, BLOCK_K=_skinny_narrow_wide_BLOCK_K, GROUP_M=_skinny_narrow_wide_GROUP_M, A_T=a_t, B_T=b_t, STAGES=stages, C_UNIT=c_unit, IS_FP32=is_fp32, UPCAST_BF16=upcast, ON_GPU=on_gpu, num_warps=_skinny_narrow_wide_NUM_WARPS, num_stages=stages, **flags, num_ctas=1 if b_t else _skinny_narrow_wide_NUM_CTAS)
        launch = (a_desc, b_desc, c3, *epi, *args)
        kwargs, compiled = _skinny_narrow_wide__launch_fitting(_skinny_narrow_wide__gemm_tma_kernel, (programs,), launch, kwargs, c3)
        if _skinny_narrow_wide__same_tensors([(a_desc.base, a), (b_desc.base, b), *zip(epi, extras)]):
            _skinny_narrow_wide__record(key, ('tma', out_shape, (programs,), (_skinny_narrow_wide__box(a_desc), _skinny_narrow_wide__box(b_desc)), args, kwargs, _skinny_narrow_wide__direct(compiled, _skinny_narrow_wide__gemm_tma_kernel, (programs,), len(launch), kwargs)))
        return out
    k_tiles = _skinny_narrow_wide__cdiv(k, _skinny_narrow_wide_BLOCK_K)
    split = 1 if _skinny_narrow_wide_PERSISTENT else max(1, min(_skinny_narrow_wide_SPLIT_K, k_tiles))
    k_per_split = _skinny_narrow_wide__cdiv(k_tiles, split) * _skinny_narrow_wide_BLOCK_K
    split = max(1, _skinny_narrow_wide__cdiv(k, k_per_split))
    ws_shape = (split, n_batch, m, n) if split > 1 else None
    workspace, locks = _skinny_narrow_wide__split_buffers(ws_shape, tiles, c3)
    biggest = max(a3.numel(), b3.numel(), c3.numel(), workspace.numel(), max((t.numel() for t in epi if isinstance(t, torch.Tensor)), default=0))
    grid = (programs,) if _skinny_narrow_wide_PERSISTENT else (tiles, split)
    args = (m, n // c_unit, k, n_batch, k_per_split, n_batch * m * n, a3.stride(0), a3.stride(1), a3.stride(2), b3.stride(0), b3.stride(1), b3.stride(2), c3.stride(0) // c_unit, c3.stride(1) // c_unit, *epi_strides)
    kwargs = dict(BLOCK_M=_skinny_narrow_wide_BLOCK_M, BLOCK_N=_skinny_narrow_wide_BLOCK_N, BLOCK_K=_skinny_narrow_wide_BLOCK_K, GROUP_M=_skinny_narrow_wide_GROUP_M, SPLIT_K=split, EVEN_M=m % _skinny_narrow_wide_BLOCK_M == 0 or (_skinny_narrow_wide_SHIFT_TAIL and m >= _skinny_narrow_wide_BLOCK_M), EVEN_N=n % _skinny_narrow_wide_BLOCK_N == 0, EVEN_K=k % _skinny_narrow_wide_BLOCK_K == 0, IS_FP32=is_fp32, UPCAST_BF16=upcast, ON_GPU=on_gpu, INDEX_64=biggest >= 2 ** 31, STAGES=stages, C_UNIT=c_unit, num_warps=_skinny_narrow_wide_NUM_WARPS, num_stages=stages, **flags)
    launch = (a3, b3, c3, workspace, locks, *epi, *args)
    kwargs, compiled = _skinny_narrow_wide__launch_fitting(_skinny_narrow_wide__gemm_kernel, grid, launch, kwargs, c3)
    if _skinny_narrow_wide__same_tensors([(a3, a), (b3, b), *zip(epi, extras)]):
        _skinny_narrow_wide__record(key, ('pointer', out_shape, grid, args, kwargs, ws_shape, tiles, _skinny_narrow_wide__direct(compiled, _skinny_narrow_wide__gemm_kernel, grid, len(launch), kwargs)))
    return out

def _skinny_narrow_wide__fit_stages(kernel, grid, args, kwargs, limit: int):
    """`kwargs` with the pipeline's stages lowered, one at a time, until the compiled kernel's
    shared memory fits `limit` (compiled, not launched: `warmup`); at one stage, as it is. float32
    tiles under a flattened tile loop or a sliced epilogue asked for 256-288 KB at the stages
    fp32_stages() allows, against 227 KB (H100, GPU round 46, bench/probe_gemm_default_gpu.py)."""
    while kwargs['num_stages'] > 1:
        if kernel.warmup(*args, grid=grid, **kwargs).metadata.shared <= limit:
            break
        stages = kwargs['num_stages'] - 1
        kwargs = {**kwargs, 'STAGES': stages, 'num_stages': stages}
    return kwargs

@functools.lru_cache(maxsize=None)
def _skinny_narrow_wide__shared_limit(device_index: int) -> int:
    return torch.cuda.get_device_properties(device_index).shared_memory_per_block_optin

def _skinny_narrow_wide__launch_fitting(kernel, grid, args, kwargs, out):
    """kernel[grid](*args, **kwargs), on a GPU with stages that fit its shared memory (_fit_stages);
    returns the keywords it ran with, which a recipe keeps, and the compiled kernel (None in the
    interpreter). `out`: the output, on the device."""
    if out.is_cuda:
        kwargs = _skinny_narrow_wide__fit_stages(kernel, grid, args, kwargs, _skinny_narrow_wide__shared_limit(out.get_device()))
    return (kwargs, kernel[grid](*args, **kwargs))

def _skinny_narrow_wide__operand(t, transposed: bool):
    return t.transpose(-2, -1) if transposed else t

def _skinny_narrow_wide_launch_linear_bias_gelu(a, b, in0):
    """linear_bias_gelu: epilogue(a @ b^T), one kernel launch."""
    return _skinny_narrow_wide__gemm(_skinny_narrow_wide__operand(a, _skinny_narrow_wide_A_TRANSPOSED), _skinny_narrow_wide__operand(b, _skinny_narrow_wide_B_TRANSPOSED), (in0,))

class _skinny_narrow_wide_ModelNew(torch.nn.Module):
    """Drop-in for the task's Model: the matmul and its epilogue in one kernel."""

    def __init__(self, *args, **kwargs):
        super().__init__()
        self.fc = torch.nn.Module()
        self.fc.weight = torch.nn.UninitializedParameter()
        self.fc.bias = torch.nn.UninitializedParameter()

    def forward(self, *args):
        return _skinny_narrow_wide_launch_linear_bias_gelu(args[0], self.fc.weight, self.fc.bias)

# skinny_rows: the kernels and launcher of the calls it routes (_skinny_)

def _skinny__cdiv(a: int, b: int) -> int:
    """ceil(a / b) for non-negative ints, on the host."""
    return -(-a // b)

def _skinny__next_pow2(n: int) -> int:
    """The smallest power of two >= n, 0 for 0 (as triton.next_power_of_2), on the host."""
    return 1 << (n - 1).bit_length() if n > 0 else 0

def _skinny__unit(values, data_ptr: int, itemsize: int) -> int:
    """The widest vector (elements, at most 16 bytes) that every offset and the base align to.
    A kernel takes its widths and strides divided by it and multiplies them back by the
    constexpr: Triton marks an int argument only when it is divisible by 16, so a 1000-wide
    bf16 row (2000 bytes, 16-byte aligned) would otherwise get 2-byte loads and stores."""
    unit = 16 // itemsize
    while unit > 1 and (any((v % unit for v in values)) or data_ptr % (unit * itemsize)):
        unit //= 2
    return unit
_skinny_PARAMS = {'BLOCK_M': 64, 'BLOCK_N': 64, 'BLOCK_K': 128, 'GROUP_M': 4, 'num_warps': 4, 'num_stages': 6, 'SPLIT_K': 1, 'persistent': 0, 'use_tma': True, 'EPILOGUE_SPLIT': 1, 'flatten': False, 'gelu_erf_fit': False, 'skinny_rows': 0, 'odd_tiled': False, 'single_wave_tiled': False, 'fuse_norm': False, 'ws_pingpong': False, 'ws_coop': False, 'num_ctas': 1, 'swap_ab': False, 'shift_tail': True}
_skinny_BLOCK_M = 64
_skinny_BLOCK_N = 64
_skinny_BLOCK_K = 128
_skinny_EPILOGUE_SPLIT = 1
_skinny_GROUP_M = 4
_skinny_NUM_WARPS = 4
_skinny_NUM_STAGES = 6
_skinny_NUM_CTAS = 1
_skinny_SPLIT_K = 1
_skinny_PERSISTENT = 0
_skinny_USE_TMA = True
_skinny_SHIFT_TAIL = True
_skinny_SKINNY_ROWS = 0
_skinny_SKINNY_TILES = ((32, 64, 'skinny_narrow', 'one'), (32, 128, 'skinny_narrow_wide', 'one'), (64, 64, 'skinny', 'tile'), (64, 64, 'skinny_pointer', 'any'), (64, 128, 'skinny_wide', 'any'), (64, 256, 'skinny_wider', 'any'), (128, 128, 'skinny_large', 'any'))
_skinny_DECODE_BLOCK_N = (32, 64, 128)
_skinny_DECODE_ROWS = 16
_skinny_ODD_TILED = False
_skinny_SINGLE_WAVE_TILED = False
_skinny_A_TRANSPOSED = False
_skinny_B_TRANSPOSED = True
_skinny_MAX_SHARED_BYTES = 227 * 1024

@triton.jit
def _skinny__relu(x):
    return tl.where(x < 0.0, 0.0, x)

@triton.jit
def _skinny__leaky_relu(x, slope):
    return tl.where(x > 0.0, x, x * slope)

@triton.jit
def _skinny__expm1(x):
    series = x * (1.0 + x * (0.5 + x * (1.0 / 6.0 + x * (1.0 / 24.0 + x * (1.0 / 120.0)))))
    return tl.where(tl.abs(x) < 0.03125, series, tl.exp(x) - 1.0)

@triton.jit
def _skinny__elu(x, alpha):
    return tl.where(x > 0.0, x, alpha * _skinny__expm1(x))

@triton.jit
def _skinny__sigmoid(x):
    return 1.0 / (1.0 + tl.exp(-x))

@triton.jit
def _skinny__silu(x):
    return x / (1.0 + tl.exp(-x))

@triton.jit
def _skinny__tanh(x):
    ax = tl.abs(x)
    t = tl.exp(-2.0 * ax)
    far = (1.0 - t) / (1.0 + t)
    x2 = ax * ax
    near = ax * (1.0 + x2 * (-1.0 / 3.0 + x2 * (2.0 / 15.0 + x2 * (-17.0 / 315.0))))
    r = tl.where(ax < 0.0625, near, far)
    return tl.where(x < 0.0, -r, r)

@triton.jit
def _skinny__gelu_erf(x):
    return 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))

@triton.jit
def _skinny__gelu_tanh(x):
    u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    return x / (1.0 + tl.exp(-2.0 * u))

@triton.jit
def _skinny__log1p_unit(e):
    series = e * (1.0 - e * (0.5 - e * (1.0 / 3.0 - e * (0.25 - e * 0.2))))
    return tl.where(e < 0.03125, series, tl.log(1.0 + e))

@triton.jit
def _skinny__softplus(x, beta, threshold):
    z = x * beta
    sp = tl.where(z > 0.0, z, 0.0) + _skinny__log1p_unit(tl.exp(-tl.abs(z)))
    return tl.where(z > threshold, x, sp / beta)

@triton.jit
def _skinny__mish(x):
    e = tl.exp(tl.where(x < 20.0, x, 20.0))
    n = e * (e + 2.0)
    return tl.where(x > 20.0, x, x * (n / (n + 2.0)))

@triton.jit
def _skinny__clamp_min(x, lo):
    return tl.where(x < lo, lo, x)

@triton.jit
def _skinny__clamp_max(x, hi):
    return tl.where(x > hi, hi, x)

@triton.jit
def _skinny__clamp(x, lo, hi):
    return _skinny__clamp_max(_skinny__clamp_min(x, lo), hi)

@triton.jit
def _skinny__hardsigmoid(x):
    return _skinny__clamp(x + 3.0, 0.0, 6.0) / 6.0

@triton.jit
def _skinny__hardswish(x):
    return x * _skinny__clamp(x + 3.0, 0.0, 6.0) / 6.0

@triton.jit
def _skinny__maximum(a, b):
    return tl.where((a > b) | (a != a), a, b)

@triton.jit
def _skinny__minimum(a, b):
    return tl.where((a < b) | (a != a), a, b)

@triton.jit
def _skinny__tile_coords(tile_id, tiles_m, tiles_n, GROUP_M: tl.constexpr):
    per_batch = tiles_m * tiles_n
    batch = tile_id // per_batch
    t = tile_id % per_batch
    in_group = GROUP_M * tiles_n
    first_m = t // in_group * GROUP_M
    group_rows = tl.minimum(tiles_m - first_m, GROUP_M)
    pid_m = first_m + t % in_group % group_rows
    pid_n = t % in_group // group_rows
    return (batch, pid_m, pid_n)

@triton.jit
def _skinny__gemm_kernel(a_ptr, b_ptr, c_ptr, w_ptr, lock_ptr, in0, M, N, K, n_batch, k_per_split, w_slot, stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn, stride_cb, stride_cm, s0_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, SPLIT_K: tl.constexpr, EVEN_M: tl.constexpr, EVEN_N: tl.constexpr, EVEN_K: tl.constexpr, STAGES: tl.constexpr, C_UNIT: tl.constexpr, IS_FP32: tl.constexpr, UPCAST_BF16: tl.constexpr, ON_GPU: tl.constexpr, INDEX_64: tl.constexpr):
    N = N * C_UNIT
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    tile_id = pid
    pid_k = tl.program_id(1)
    batch, pid_m, pid_n = _skinny__tile_coords(tile_id, tiles_m, tiles_n, GROUP_M)
    batch64 = batch.to(tl.int64)
    off_m = tl.maximum(tl.minimum(pid_m * BLOCK_M, M - BLOCK_M), 0)
    offs_m = off_m + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    if INDEX_64:
        offs_m = offs_m.to(tl.int64)
        offs_n = offs_n.to(tl.int64)
        offs_k = offs_k.to(tl.int64)
    k_start = pid_k * k_per_split
    k_end = tl.minimum(K, k_start + k_per_split)
    a_ptrs = a_ptr + batch64 * stride_ab + offs_m[:, None] * stride_am + (k_start + offs_k)[None, :] * stride_ak
    b_ptrs = b_ptr + batch64 * stride_bb + (k_start + offs_k)[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    k_full = k_start + (k_end - k_start) // BLOCK_K * BLOCK_K
    for k in tl.range(k_start, k_full, BLOCK_K, num_stages=STAGES):
        if EVEN_M:
            a = tl.load(a_ptrs)
        else:
            a = tl.load(a_ptrs, mask=offs_m[:, None] < M, other=0.0)
        if EVEN_N:
            b = tl.load(b_ptrs)
        else:
            b = tl.load(b_ptrs, mask=offs_n[None, :] < N, other=0.0)
        if IS_FP32:
            part = tl.dot(a, b, input_precision='ieee')
            if ON_GPU:
                acc = tl.inline_asm_elementwise('add.rn.f32 $0, $1, $2;', '=r,r,r', [acc, part], dtype=tl.float32, is_pure=True, pack=1)
            else:
                acc = acc + part
        elif UPCAST_BF16:
            acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision='ieee')
        else:
            acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    if not EVEN_K:
        if k_full < k_end:
            a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & ((k_full + offs_k)[None, :] < k_end), other=0.0)
            b = tl.load(b_ptrs, mask=((k_full + offs_k)[:, None] < k_end) & (offs_n[None, :] < N), other=0.0)
            if IS_FP32:
                part = tl.dot(a, b, input_precision='ieee')
                if ON_GPU:
                    acc = tl.inline_asm_elementwise('add.rn.f32 $0, $1, $2;', '=r,r,r', [acc, part], dtype=tl.float32, is_pure=True, pack=1)
                else:
                    acc = acc + part
            elif UPCAST_BF16:
                acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision='ieee')
            else:
                acc = tl.dot(a, b, acc)
    if SPLIT_K > 1:
        w_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
        w_tile = w_ptr + (batch64 * M + offs_m[:, None]) * N + offs_n[None, :]
        tl.store(w_tile + pid_k.to(tl.int64) * w_slot, acc, mask=w_mask)
        tl.debug_barrier()
        arrived = tl.atomic_add(lock_ptr + tile_id, 1, sem='acq_rel')
        if arrived == SPLIT_K - 1:
            acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
            for s in tl.static_range(SPLIT_K):
                acc += tl.load(w_tile, mask=w_mask, other=0.0, cache_modifier='.cg')
                w_tile += w_slot
            c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
            x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
            t0 = acc + x0
            t1 = _skinny__gelu_erf(t0)
            if C_UNIT > 1:
                c_cols = tl.max_contiguous(offs_n, C_UNIT)
            else:
                c_cols = offs_n
            c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
            tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)
    else:
        c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
        x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
        t0 = acc + x0
        t1 = _skinny__gelu_erf(t0)
        if C_UNIT > 1:
            c_cols = tl.max_contiguous(offs_n, C_UNIT)
        else:
            c_cols = offs_n
        c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
        tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)

@triton.jit
def _skinny__gemm_tma_kernel(a_desc, b_desc, c_ptr, in0, M, N, K, stride_cb, stride_cm, s0_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, A_T: tl.constexpr, B_T: tl.constexpr, STAGES: tl.constexpr, C_UNIT: tl.constexpr, IS_FP32: tl.constexpr, UPCAST_BF16: tl.constexpr, ON_GPU: tl.constexpr):
    N = N * C_UNIT
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    tile_id = pid
    batch, pid_m, pid_n = _skinny__tile_coords(tile_id, tiles_m, tiles_n, GROUP_M)
    batch64 = batch.to(tl.int64)
    off_m = tl.maximum(tl.minimum(pid_m * BLOCK_M, M - BLOCK_M), 0)
    off_n = pid_n * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, K, BLOCK_K, num_stages=STAGES):
        if A_T:
            a = a_desc.load([k, off_m]).T
        else:
            a = a_desc.load([off_m, k])
        if B_T:
            b = b_desc.load([off_n, k]).T
        else:
            b = b_desc.load([k, off_n])
        if IS_FP32:
            part = tl.dot(a, b, input_precision='ieee')
            if ON_GPU:
                acc = tl.inline_asm_elementwise('add.rn.f32 $0, $1, $2;', '=r,r,r', [acc, part], dtype=tl.float32, is_pure=True, pack=1)
            else:
                acc = acc + part
        elif UPCAST_BF16:
            acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision='ieee')
        else:
            acc = tl.dot(a, b, acc)
    offs_m = off_m + tl.arange(0, BLOCK_M)
    offs_n = off_n + tl.arange(0, BLOCK_N)
    c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
    t0 = acc + x0
    t1 = _skinny__gelu_erf(t0)
    if C_UNIT > 1:
        c_cols = tl.max_contiguous(offs_n, C_UNIT)
    else:
        c_cols = offs_n
    c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
    tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)

@functools.lru_cache(maxsize=None)
def _skinny__sm_count(device_index: int) -> int:
    if not torch.cuda.is_available():
        return 4
    return torch.cuda.get_device_properties(device_index).multi_processor_count

def _skinny__as_3d(a, b):
    """(A as (batch, M, K), B as (batch, K, N), the output's shape); views where strides allow."""
    if a.dim() < 2 or b.dim() < 2:
        raise ValueError(f'launch_linear_bias_gelu: operands must have 2 or more dims, got {tuple(a.shape)} and {tuple(b.shape)}')
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f'launch_linear_bias_gelu: inner dims differ: {tuple(a.shape)} @ {tuple(b.shape)}')
    m, k, n = (a.shape[-2], a.shape[-1], b.shape[-1])
    if b.dim() == 2:
        out_shape = (*a.shape[:-1], n)
        return (a.reshape(1, -1, k), b.unsqueeze(0), out_shape)
    if a.dim() == 2:
        b3 = b.reshape(-1, k, n)
        return (a.unsqueeze(0).expand(b3.shape[0], m, k), b3, (*b.shape[:-2], m, n))
    if a.shape[:-2] != b.shape[:-2]:
        raise ValueError(f'launch_linear_bias_gelu: batch dims differ ({tuple(a.shape[:-2])} vs {tuple(b.shape[:-2])}); broadcast batch dims are not covered')
    return (a.reshape(-1, m, k), b.reshape(-1, k, n), (*a.shape[:-2], m, n))

@triton.jit
def _skinny__pad_copy_kernel(src, dst, R, C, s_b, s_r, s_c, d_b, d_r, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    pid_b = tl.program_id(2).to(tl.int64)
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (rows[:, None] < R) & (cols[None, :] < C)
    rows64 = rows.to(tl.int64)
    x = tl.load(src + pid_b * s_b + rows64[:, None] * s_r + cols[None, :] * s_c, mask=mask)
    tl.store(dst + pid_b * d_b + rows64[:, None] * d_r + cols[None, :], x, mask=mask)

def _skinny__unaligned(t3) -> bool:
    """Whether the pointer kernel would read t3 (batch, R, C) through a padded copy (_aligned):
    a unit-stride dim whose rows (or, with batches, batch stride) are not a multiple of 16
    elements, or a base that is not 16-byte aligned. Neither dim contiguous: read as it is."""
    if t3.stride(2) == 1 or t3.shape[2] == 1:
        lead_dim = 1
    elif t3.stride(1) == 1 or t3.shape[1] == 1:
        return _skinny__unaligned(t3.transpose(1, 2))
    else:
        return False
    strides_ok = t3.stride(lead_dim) % 16 == 0 and (t3.shape[0] == 1 or t3.stride(0) % 16 == 0)
    return not (strides_ok and t3.data_ptr() % 16 == 0)

def _skinny__aligned(t3):
    """t3 (batch, R, C) read by the GEMM; when its row stride is not a multiple of 16 elements
    (a width of 4097, or of 1000), a copy into rows padded to 16 elements, viewed at the original
    width. Triton vectorizes a tile load only along rows whose stride it can prove to be a
    multiple of 16 elements; scalar loads cost the GEMM several times the copy (on an H100,
    4095x4097x4093 took 5.9 ms, bench/results/runs/tune-h100-gemm-attention.json; gelu(linear) at
    4099 x 3073 x 1000 took 0.99 ms with rows of 1000 and 0.09 ms with rows of 1024,
    bench/results/gemm-odd-h100.json). Where descriptor loads are available the launcher takes
    them for such operands instead (tma_plan), and this copy is the fallback."""
    if not _skinny__unaligned(t3):
        return t3
    if not (t3.stride(2) == 1 or t3.shape[2] == 1):
        return _skinny__aligned(t3.transpose(1, 2)).transpose(1, 2)
    elem = 16
    batch, rows, cols = t3.shape
    padded = _skinny__cdiv(cols, elem) * elem
    out = torch.empty((batch, rows, padded), dtype=t3.dtype, device=t3.device)
    grid = (_skinny__cdiv(rows, 32), _skinny__cdiv(cols, 128), batch)
    _skinny__pad_copy_kernel[grid](t3, out, rows, cols, t3.stride(0), t3.stride(1), t3.stride(2), out.stride(0), out.stride(1), BLOCK_R=32, BLOCK_C=128, num_warps=4)
    return out[:, :, :cols]
_skinny_TMA_AVAILABLE = hasattr(tl, 'tensor_descriptor') and hasattr(TensorDescriptor, 'from_tensor')

@functools.lru_cache(maxsize=None)
def _skinny__capability(device_index: int) -> tuple[int, int]:
    return torch.cuda.get_device_capability(device_index)

def _skinny__tma_refused(t: torch.Tensor, wanted: bool=_skinny_USE_TMA) -> str | None:
    """Why no call on `t`'s device takes descriptor loads under this config, or None."""
    if not wanted:
        return 'config: use_tma is off'
    if not _skinny_TMA_AVAILABLE:
        return 'the installed Triton has no tensor descriptors'
    if not t.is_cuda:
        return "not a CUDA device (Triton's interpreter runs the pointer kernel)"
    if _skinny__capability(t.get_device())[0] < 9:
        return 'TMA needs compute capability 9.0 or newer'
    return None

def _skinny_tma_plan(a3, b3) -> str:
    """"tma" when this call takes the TMA kernel, else why it takes the pointer kernel.

    With use_tma off, a call whose A or B rows would need a padded copy for the pointer kernel
    (rows of 1000 or 3073 elements, say: 16-byte aligned, not 16-element aligned) takes the
    descriptor kernel where it can: it reads such rows in place at full speed, where the copy
    costs a kernel and a buffer (at 4099 x 1000 -> 3073 on an H100, 0.098 ms against 0.376 ms
    padded, bench/results/gemm-odd-h100.json). Not under split-K, which the TMA kernel lacks,
    and for 16-bit operands only: float32 through descriptors at the default 128x256x64 tiles
    needs 256 KB of shared memory and does not compile (runs/probe-fp32-tma-h100.txt)."""
    odd_rows = not _skinny_USE_TMA and _skinny_SPLIT_K == 1 and (a3.element_size() == 2) and (_skinny__unaligned(a3) or _skinny__unaligned(b3))
    refused = _skinny__tma_refused(a3, _skinny_USE_TMA or odd_rows)
    if refused:
        return refused
    if a3.shape[0] != 1:
        return 'batched operands (the TMA kernel is 2-D)'
    for name, t in (('A', a3[0]), ('B', b3[0])):
        if t.stride(-1) != 1 and t.stride(-2) != 1:
            return f'{name} has no unit stride'
        outer = t.stride(-2) if t.stride(-1) == 1 else t.stride(-1)
        if t.data_ptr() % 16 or outer * t.element_size() % 16:
            return f"{name}'s base or row stride is not 16-byte aligned"
    return 'tma'

class _skinny__RecordedDescriptor(TensorDescriptor):
    """A descriptor of a recorded launch (_gemm's recipe), built without TensorDescriptor's
    checks: the recipe's key (the caller's shapes, strides, dtypes and 16-byte alignment) fixes
    all those checks read, and the recording call's descriptors passed them. Building the two
    descriptors with the checks took 6 us of an H100 host's time a call
    (bench/results/probe-host-parts-h100.json)."""

    def __init__(self, base, shape, strides, block_shape):
        self.base, self.shape, self.strides, self.block_shape = (base, shape, strides, block_shape)

def _skinny__descriptor(t, rows_block: int, cols_block: int):
    """A descriptor over 2-D `t` and whether the kernel must transpose what it loads."""
    if t.stride(-1) == 1:
        return (TensorDescriptor(t, list(t.shape), [t.stride(0), 1], [rows_block, cols_block]), False)
    return (TensorDescriptor(t, [t.shape[1], t.shape[0]], [t.stride(1), 1], [cols_block, rows_block]), True)

def _skinny__epilogue_args(extras, out_shape, c_shape, like):
    """The epilogue's operands, checked, and their strides, in the kernels' argument order."""
    args, strides, flags = ([], [], {})
    n = c_shape[2]
    t = extras[0]
    if t.dim() != 1 or t.shape[0] != n or t.dtype != like.dtype:
        raise ValueError(f'launch_linear_bias_gelu: epilogue input 0 is {tuple(t.shape)} {t.dtype}; expected ({n},) {like.dtype}, broadcast along N')
    strides.append(t.stride(0))
    args.append(t)
    return (args, strides, flags)

def _skinny_fp32_stages(stages: int=_skinny_NUM_STAGES) -> int:
    """Pipeline stages of an fp32 launch: NUM_STAGES, lowered until 4-byte tiles fit. A loop
    pipelined in n stages keeps n - 1 tiles of A and B in shared memory (Triton 3.6 asked for
    8 x 48 KB at 9 stages of 128x64x64 fp32 tiles, runs/gpu-tests-h100-round17.txt)."""
    per_stage = (_skinny_BLOCK_M * _skinny_BLOCK_K + _skinny_BLOCK_K * _skinny_BLOCK_N) * 4
    return max(1, min(stages, _skinny_MAX_SHARED_BYTES // per_stage + 1))
_skinny__RECIPES = {}
_skinny__MAX_RECIPES = 256

def _skinny__signature(a, b, extras, use_tma):
    return (a.shape, a.stride(), b.shape, b.stride(), a.dtype, b.dtype, a.device, a.data_ptr() % 16, b.data_ptr() % 16, use_tma, tuple(((t.shape, t.stride(), t.dtype, t.data_ptr() % 16) if isinstance(t, torch.Tensor) else type(t) for t in extras)))

def _skinny__output_unit(c3, cols: int) -> int:
    """C_UNIT of a launch that writes c3 (batch, M, N), a new contiguous tensor, in stores
    `cols` columns wide: the widest vector (elements, at most 16 bytes) that N and c3's base align
    to, and so its strides (M * N, N), but not one that makes exactly 32 vectors of a store's row.
    Triton lays such a store out one row per warp, every warp on rows of its own, and on an H100
    that store was the slow one at every tile and slice width timed: TILED's 128x256 tiles at
    1000x1024->3000 took 23.0 us a call in 16-byte vectors and 18.9 in 8-byte ones (2-byte: 19.5),
    128x128 tiles 20.4 in 8-byte vectors against 18.3-18.5 in 4- or 16-byte ones
    (bench/results/runs/probe-gemm-store-h100-round171.json); at 1000x1024->4096, where Triton
    took 16 bytes by itself, TILED took 23.6 us and TILED in two epilogue slices 19.7
    (bench/results/probe-gemm-parts-h100.json). The kernels take N and those strides divided by
    the unit (unit_width) and store vectors of at most a unit (store_cols)."""
    unit = _skinny__unit((c3.shape[2],), c3.data_ptr(), c3.element_size())
    if unit > 1 and cols // unit == 32:
        unit //= 2
    return unit

def _skinny__split_buffers(ws_shape, tiles: int, like):
    """Split-K's fp32 partials (SPLIT_K, batch, M, N) and one zeroed arrival counter per output
    tile, new for every call (so two launches on two streams never share them); without split-K,
    placeholders the kernel never touches."""
    if ws_shape is None:
        return (like, like)
    return (torch.empty(ws_shape, dtype=torch.float32, device=like.device), torch.zeros(tiles, dtype=torch.int32, device=like.device))

def _skinny__gemm(a, b, extras, use_tma=None, key=None):
    """epilogue(a @ b) for a (..., M, K), b (..., K, N) of one dtype; `use_tma` None: tma_plan.
    `key`: the call's _signature, where the caller has it."""
    if key is None:
        key = _skinny__signature(a, b, extras, use_tma)
    recipe = _skinny__RECIPES.get(key)
    if recipe is None:
        return _skinny__gemm_first(a, b, extras, use_tma, key)
    epi = [t if isinstance(t, torch.Tensor) else float(t) for t in extras]
    if recipe[0] == 'tma':
        _, out_shape, grid, (a_box, b_box), args, kwargs, direct = recipe
        out = torch.empty(out_shape, dtype=a.dtype, device=a.device)
        _skinny__run(_skinny__gemm_tma_kernel, grid, direct, (_skinny__RecordedDescriptor(a, *a_box), _skinny__RecordedDescriptor(b, *b_box), out, *epi, *args), kwargs)
        return out
    _, out_shape, grid, args, kwargs, ws_shape, tiles, direct = recipe
    out = torch.empty(out_shape, dtype=a.dtype, device=a.device)
    workspace, locks = _skinny__split_buffers(ws_shape, tiles, out)
    _skinny__run(_skinny__gemm_kernel, grid, direct, (a, b, out, workspace, locks, *epi, *args), kwargs)
    return out

def _skinny__direct(compiled, kernel, grid, n_args: int, kwargs):
    """A recorded launch through the compiled kernel's own launcher: (the launcher over `grid`,
    the values of the kernel's parameters after its first `n_args`, all passed as keywords), or
    None in Triton's interpreter or where a parameter was left to its default.
    `kernel[grid](...)` binds and specializes every argument again on each call; a recipe's key
    (shapes, strides, dtypes, device, 16-byte alignment) already fixes all that specialization
    depends on, and its sizes and strides are the first call's. The verifier counts these
    launches as it counts `kernel[grid](...)` (verifier/runtime.py)."""
    if compiled is None:
        return None
    rest = kernel.arg_names[n_args:]
    if any((name not in kwargs for name in rest)):
        return None
    return (compiled[(*grid, 1, 1)[:3]], tuple((kwargs[name] for name in rest)))

def _skinny__run(kernel, grid, direct, args, kwargs):
    """kernel[grid](*args, **kwargs), through `direct` (from _direct) where there is one."""
    if direct is None:
        kernel[grid](*args, **kwargs)
    else:
        run, consts = direct
        run(*args, *consts)

def _skinny__box(desc):
    return (list(desc.shape), list(desc.strides), list(desc.block_shape))

def _skinny__record(key, recipe):
    if len(_skinny__RECIPES) >= _skinny__MAX_RECIPES:
        _skinny__RECIPES.clear()
    _skinny__RECIPES[key] = recipe

def _skinny__same_tensors(pairs) -> bool:
    """Whether every view the launch took starts at its caller tensor's first element."""
    return all((not isinstance(v, torch.Tensor) or v.data_ptr() == t.data_ptr() for v, t in pairs))

def _skinny__gemm_first(a, b, extras, use_tma, key):
    """_gemm for a call signature not seen yet: checks, views, the launch, and its recipe."""
    if a.dtype not in (torch.float32, torch.float16, torch.bfloat16) or b.dtype != a.dtype:
        raise TypeError(f'launch_linear_bias_gelu: unsupported dtypes {a.dtype} @ {b.dtype}')
    a3, b3, out_shape = _skinny__as_3d(a, b)
    if use_tma is None:
        use_tma = _skinny_tma_plan(a3, b3) == 'tma'
    if not use_tma:
        a3, b3 = (_skinny__aligned(a3), _skinny__aligned(b3))
    n_batch, m, k = a3.shape
    n = b3.shape[2]
    out = torch.empty(out_shape, dtype=a.dtype, device=a.device)
    if out.numel() == 0:
        return out
    c3 = out.reshape(n_batch, m, n)
    c_unit = _skinny__output_unit(c3, _skinny_BLOCK_N // _skinny_EPILOGUE_SPLIT)
    epi, epi_strides, flags = _skinny__epilogue_args(extras, out_shape, c3.shape, a)
    is_fp32 = a.dtype == torch.float32
    on_gpu = a.is_cuda
    upcast = a.dtype == torch.bfloat16 and (not on_gpu)
    stages = _skinny_fp32_stages() if is_fp32 else _skinny_NUM_STAGES
    tiles_m, tiles_n = (_skinny__cdiv(m, _skinny_BLOCK_M), _skinny__cdiv(n, _skinny_BLOCK_N))
    tiles = n_batch * tiles_m * tiles_n
    programs = tiles
    if _skinny_PERSISTENT:
        programs = min(tiles, _skinny__sm_count(max(a.get_device(), 0)) * _skinny_PERSISTENT)
    if use_tma:
        a_desc, a_t = _skinny__descriptor(a3[0], _skinny_BLOCK_M, _skinny_BLOCK_K)
        b_desc, b_t = _skinny__descriptor(b3[0], _skinny_BLOCK_K, _skinny_BLOCK_N)
        args = (m, n // c_unit, k, c3.stride(0) // c_unit, c3.stride(1) // c_unit, *epi_strides)
        kwargs = dict(BLOCK_M=_skinny_BLOCK_M, BLOCK_N=_skinny_BLOCK_N, BLOCK_K=_skinny_BLOCK_K, GROUP_M=_skinny_GROUP_M, A_T=a_t, B_T=b_t, STAGES=stages, C_UNIT=c_unit, IS_FP32=is_fp32, UPCAST_BF16=upcast, ON_GPU=on_gpu, num_warps=_skinny_NUM_WARPS, num_stages=stages, **flags, num_ctas=1 if b_t else _skinny_NUM_CTAS)
        launch = (a_desc, b_desc, c3, *epi, *args)
        kwargs, compiled = _skinny__launch_fitting(_skinny__gemm_tma_kernel, (programs,), launch, kwargs, c3)
        if _skinny__same_tensors([(a_desc.base, a), (b_desc.base, b), *zip(epi, extras)]):
            _skinny__record(key, ('tma', out_shape, (programs,), (_skinny__box(a_desc), _skinny__box(b_desc)), args, kwargs, _skinny__direct(compiled, _skinny__gemm_tma_kernel, (programs,), len(launch), kwargs)))
        return out
    k_tiles = _skinny__cdiv(k, _skinny_BLOCK_K)
    split = 1 if _skinny_PERSISTENT else max(1, min(_skinny_SPLIT_K, k_tiles))
    k_per_split = _skinny__cdiv(k_tiles, split) * _skinny_BLOCK_K
    split = max(1, _skinny__cdiv(k, k_per_split))
    ws_shape = (split, n_batch, m, n) if split > 1 else None
    workspace, locks = _skinny__split_buffers(ws_shape, tiles, c3)
    biggest = max(a3.numel(), b3.numel(), c3.numel(), workspace.numel(), max((t.numel() for t in epi if isinstance(t, torch.Tensor)), default=0))
    grid = (programs,) if _skinny_PERSISTENT else (tiles, split)
    args = (m, n // c_unit, k, n_batch, k_per_split, n_batch * m * n, a3.stride(0), a3.stride(1), a3.stride(2), b3.stride(0), b3.stride(1), b3.stride(2), c3.stride(0) // c_unit, c3.stride(1) // c_unit, *epi_strides)
    kwargs = dict(BLOCK_M=_skinny_BLOCK_M, BLOCK_N=_skinny_BLOCK_N, BLOCK_K=_skinny_BLOCK_K, GROUP_M=_skinny_GROUP_M, SPLIT_K=split, EVEN_M=m % _skinny_BLOCK_M == 0 or (_skinny_SHIFT_TAIL and m >= _skinny_BLOCK_M), EVEN_N=n % _skinny_BLOCK_N == 0, EVEN_K=k % _skinny_BLOCK_K == 0, IS_FP32=is_fp32, UPCAST_BF16=upcast, ON_GPU=on_gpu, INDEX_64=biggest >= 2 ** 31, STAGES=stages, C_UNIT=c_unit, num_warps=_skinny_NUM_WARPS, num_stages=stages, **flags)
    launch = (a3, b3, c3, workspace, locks, *epi, *args)
    kwargs, compiled = _skinny__launch_fitting(_skinny__gemm_kernel, grid, launch, kwargs, c3)
    if _skinny__same_tensors([(a3, a), (b3, b), *zip(epi, extras)]):
        _skinny__record(key, ('pointer', out_shape, grid, args, kwargs, ws_shape, tiles, _skinny__direct(compiled, _skinny__gemm_kernel, grid, len(launch), kwargs)))
    return out

def _skinny__fit_stages(kernel, grid, args, kwargs, limit: int):
    """`kwargs` with the pipeline's stages lowered, one at a time, until the compiled kernel's
    shared memory fits `limit` (compiled, not launched: `warmup`); at one stage, as it is. float32
    tiles under a flattened tile loop or a sliced epilogue asked for 256-288 KB at the stages
    fp32_stages() allows, against 227 KB (H100, GPU round 46, bench/probe_gemm_default_gpu.py)."""
    while kwargs['num_stages'] > 1:
        if kernel.warmup(*args, grid=grid, **kwargs).metadata.shared <= limit:
            break
        stages = kwargs['num_stages'] - 1
        kwargs = {**kwargs, 'STAGES': stages, 'num_stages': stages}
    return kwargs

@functools.lru_cache(maxsize=None)
def _skinny__shared_limit(device_index: int) -> int:
    return torch.cuda.get_device_properties(device_index).shared_memory_per_block_optin

def _skinny__launch_fitting(kernel, grid, args, kwargs, out):
    """kernel[grid](*args, **kwargs), on a GPU with stages that fit its shared memory (_fit_stages);
    returns the keywords it ran with, which a recipe keeps, and the compiled kernel (None in the
    interpreter). `out`: the output, on the device."""
    if out.is_cuda:
        kwargs = _skinny__fit_stages(kernel, grid, args, kwargs, _skinny__shared_limit(out.get_device()))
    return (kwargs, kernel[grid](*args, **kwargs))

def _skinny__operand(t, transposed: bool):
    return t.transpose(-2, -1) if transposed else t

def _skinny_launch_linear_bias_gelu(a, b, in0):
    """linear_bias_gelu: epilogue(a @ b^T), one kernel launch."""
    return _skinny__gemm(_skinny__operand(a, _skinny_A_TRANSPOSED), _skinny__operand(b, _skinny_B_TRANSPOSED), (in0,))

class _skinny_ModelNew(torch.nn.Module):
    """Drop-in for the task's Model: the matmul and its epilogue in one kernel."""

    def __init__(self, *args, **kwargs):
        super().__init__()
        self.fc = torch.nn.Module()
        self.fc.weight = torch.nn.UninitializedParameter()
        self.fc.bias = torch.nn.UninitializedParameter()

    def forward(self, *args):
        return _skinny_launch_linear_bias_gelu(args[0], self.fc.weight, self.fc.bias)

# skinny_rows: the kernels and launcher of the calls it routes (_skinny_pointer_)

def _skinny_pointer__cdiv(a: int, b: int) -> int:
    """ceil(a / b) for non-negative ints, on the host."""
    return -(-a // b)

def _skinny_pointer__next_pow2(n: int) -> int:
    """The smallest power of two >= n, 0 for 0 (as triton.next_power_of_2), on the host."""
    return 1 << (n - 1).bit_length() if n > 0 else 0

def _skinny_pointer__unit(values, data_ptr: int, itemsize: int) -> int:
    """The widest vector (elements, at most 16 bytes) that every offset and the base align to.
    A kernel takes its widths and strides divided by it and multiplies them back by the
    constexpr: Triton marks an int argument only when it is divisible by 16, so a 1000-wide
    bf16 row (2000 bytes, 16-byte aligned) would otherwise get 2-byte loads and stores."""
    unit = 16 // itemsize
    while unit > 1 and (any((v % unit for v in values)) or data_ptr % (unit * itemsize)):
        unit //= 2
    return unit
_skinny_pointer_PARAMS = {'BLOCK_M': 64, 'BLOCK_N': 64, 'BLOCK_K': 128, 'GROUP_M': 4, 'num_warps': 4, 'num_stages': 6, 'SPLIT_K': 1, 'persistent': 0, 'use_tma': False, 'EPILOGUE_SPLIT': 1, 'flatten': False, 'gelu_erf_fit': False, 'skinny_rows': 0, 'odd_tiled': False, 'single_wave_tiled': False, 'fuse_norm': False, 'ws_pingpong': False, 'ws_coop': False, 'num_ctas': 1, 'swap_ab': False, 'shift_tail': True}
_skinny_pointer_BLOCK_M = 64
_skinny_pointer_BLOCK_N = 64
_skinny_pointer_BLOCK_K = 128
_skinny_pointer_EPILOGUE_SPLIT = 1
_skinny_pointer_GROUP_M = 4
_skinny_pointer_NUM_WARPS = 4
_skinny_pointer_NUM_STAGES = 6
_skinny_pointer_NUM_CTAS = 1
_skinny_pointer_SPLIT_K = 1
_skinny_pointer_PERSISTENT = 0
_skinny_pointer_USE_TMA = False
_skinny_pointer_SHIFT_TAIL = True
_skinny_pointer_SKINNY_ROWS = 0
_skinny_pointer_SKINNY_TILES = ((32, 64, 'skinny_narrow', 'one'), (32, 128, 'skinny_narrow_wide', 'one'), (64, 64, 'skinny', 'tile'), (64, 64, 'skinny_pointer', 'any'), (64, 128, 'skinny_wide', 'any'), (64, 256, 'skinny_wider', 'any'), (128, 128, 'skinny_large', 'any'))
_skinny_pointer_DECODE_BLOCK_N = (32, 64, 128)
_skinny_pointer_DECODE_ROWS = 16
_skinny_pointer_ODD_TILED = False
_skinny_pointer_SINGLE_WAVE_TILED = False
_skinny_pointer_A_TRANSPOSED = False
_skinny_pointer_B_TRANSPOSED = True
_skinny_pointer_MAX_SHARED_BYTES = 227 * 1024

@triton.jit
def _skinny_pointer__relu(x):
    return tl.where(x < 0.0, 0.0, x)

@triton.jit
def _skinny_pointer__leaky_relu(x, slope):
    return tl.where(x > 0.0, x, x * slope)

@triton.jit
def _skinny_pointer__expm1(x):
    series = x * (1.0 + x * (0.5 + x * (1.0 / 6.0 + x * (1.0 / 24.0 + x * (1.0 / 120.0)))))
    return tl.where(tl.abs(x) < 0.03125, series, tl.exp(x) - 1.0)

@triton.jit
def _skinny_pointer__elu(x, alpha):
    return tl.where(x > 0.0, x, alpha * _skinny_pointer__expm1(x))

@triton.jit
def _skinny_pointer__sigmoid(x):
    return 1.0 / (1.0 + tl.exp(-x))

@triton.jit
def _skinny_pointer__silu(x):
    return x / (1.0 + tl.exp(-x))

@triton.jit
def _skinny_pointer__tanh(x):
    ax = tl.abs(x)
    t = tl.exp(-2.0 * ax)
    far = (1.0 - t) / (1.0 + t)
    x2 = ax * ax
    near = ax * (1.0 + x2 * (-1.0 / 3.0 + x2 * (2.0 / 15.0 + x2 * (-17.0 / 315.0))))
    r = tl.where(ax < 0.0625, near, far)
    return tl.where(x < 0.0, -r, r)

@triton.jit
def _skinny_pointer__gelu_erf(x):
    return 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))

@triton.jit
def _skinny_pointer__gelu_tanh(x):
    u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    return x / (1.0 + tl.exp(-2.0 * u))

@triton.jit
def _skinny_pointer__log1p_unit(e):
    series = e * (1.0 - e * (0.5 - e * (1.0 / 3.0 - e * (0.25 - e * 0.2))))
    return tl.where(e < 0.03125, series, tl.log(1.0 + e))

@triton.jit
def _skinny_pointer__softplus(x, beta, threshold):
    z = x * beta
    sp = tl.where(z > 0.0, z, 0.0) + _skinny_pointer__log1p_unit(tl.exp(-tl.abs(z)))
    return tl.where(z > threshold, x, sp / beta)

@triton.jit
def _skinny_pointer__mish(x):
    e = tl.exp(tl.where(x < 20.0, x, 20.0))
    n = e * (e + 2.0)
    return tl.where(x > 20.0, x, x * (n / (n + 2.0)))

@triton.jit
def _skinny_pointer__clamp_min(x, lo):
    return tl.where(x < lo, lo, x)

@triton.jit
def _skinny_pointer__clamp_max(x, hi):
    return tl.where(x > hi, hi, x)

@triton.jit
def _skinny_pointer__clamp(x, lo, hi):
    return _skinny_pointer__clamp_max(_skinny_pointer__clamp_min(x, lo), hi)

@triton.jit
def _skinny_pointer__hardsigmoid(x):
    return _skinny_pointer__clamp(x + 3.0, 0.0, 6.0) / 6.0

@triton.jit
def _skinny_pointer__hardswish(x):
    return x * _skinny_pointer__clamp(x + 3.0, 0.0, 6.0) / 6.0

@triton.jit
def _skinny_pointer__maximum(a, b):
    return tl.where((a > b) | (a != a), a, b)

@triton.jit
def _skinny_pointer__minimum(a, b):
    return tl.where((a < b) | (a != a), a, b)

@triton.jit
def _skinny_pointer__tile_coords(tile_id, tiles_m, tiles_n, GROUP_M: tl.constexpr):
    per_batch = tiles_m * tiles_n
    batch = tile_id // per_batch
    t = tile_id % per_batch
    in_group = GROUP_M * tiles_n
    first_m = t // in_group * GROUP_M
    group_rows = tl.minimum(tiles_m - first_m, GROUP_M)
    pid_m = first_m + t % in_group % group_rows
    pid_n = t % in_group // group_rows
    return (batch, pid_m, pid_n)

@triton.jit
def _skinny_pointer__gemm_kernel(a_ptr, b_ptr, c_ptr, w_ptr, lock_ptr, in0, M, N, K, n_batch, k_per_split, w_slot, stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn, stride_cb, stride_cm, s0_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, SPLIT_K: tl.constexpr, EVEN_M: tl.constexpr, EVEN_N: tl.constexpr, EVEN_K: tl.constexpr, STAGES: tl.constexpr, C_UNIT: tl.constexpr, IS_FP32: tl.constexpr, UPCAST_BF16: tl.constexpr, ON_GPU: tl.constexpr, INDEX_64: tl.constexpr):
    N = N * C_UNIT
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    tile_id = pid
    pid_k = tl.program_id(1)
    batch, pid_m, pid_n = _skinny_pointer__tile_coords(tile_id, tiles_m, tiles_n, GROUP_M)
    batch64 = batch.to(tl.int64)
    off_m = tl.maximum(tl.minimum(pid_m * BLOCK_M, M - BLOCK_M), 0)
    offs_m = off_m + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    if INDEX_64:
        offs_m = offs_m.to(tl.int64)
        offs_n = offs_n.to(tl.int64)
        offs_k = offs_k.to(tl.int64)
    k_start = pid_k * k_per_split
    k_end = tl.minimum(K, k_start + k_per_split)
    a_ptrs = a_ptr + batch64 * stride_ab + offs_m[:, None] * stride_am + (k_start + offs_k)[None, :] * stride_ak
    b_ptrs = b_ptr + batch64 * stride_bb + (k_start + offs_k)[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    k_full = k_start + (k_end - k_start) // BLOCK_K * BLOCK_K
    for k in tl.range(k_start, k_full, BLOCK_K, num_stages=STAGES):
        if EVEN_M:
            a = tl.load(a_ptrs)
        else:
            a = tl.load(a_ptrs, mask=offs_m[:, None] < M, other=0.0)
        if EVEN_N:
            b = tl.load(b_ptrs)
        else:
            b = tl.load(b_ptrs, mask=offs_n[None, :] < N, other=0.0)
        if IS_FP32:
            part = tl.dot(a, b, input_precision='ieee')
            if ON_GPU:
                acc = tl.inline_asm_elementwise('add.rn.f32 $0, $1, $2;', '=r,r,r', [acc, part], dtype=tl.float32, is_pure=True, pack=1)
            else:
                acc = acc + part
        elif UPCAST_BF16:
            acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision='ieee')
        else:
            acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    if not EVEN_K:
        if k_full < k_end:
            a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & ((k_full + offs_k)[None, :] < k_end), other=0.0)
            b = tl.load(b_ptrs, mask=((k_full + offs_k)[:, None] < k_end) & (offs_n[None, :] < N), other=0.0)
            if IS_FP32:
                part = tl.dot(a, b, input_precision='ieee')
                if ON_GPU:
                    acc = tl.inline_asm_elementwise('add.rn.f32 $0, $1, $2;', '=r,r,r', [acc, part], dtype=tl.float32, is_pure=True, pack=1)
                else:
                    acc = acc + part
            elif UPCAST_BF16:
                acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision='ieee')
            else:
                acc = tl.dot(a, b, acc)
    if SPLIT_K > 1:
        w_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
        w_tile = w_ptr + (batch64 * M + offs_m[:, None]) * N + offs_n[None, :]
        tl.store(w_tile + pid_k.to(tl.int64) * w_slot, acc, mask=w_mask)
        tl.debug_barrier()
        arrived = tl.atomic_add(lock_ptr + tile_id, 1, sem='acq_rel')
        if arrived == SPLIT_K - 1:
            acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
            for s in tl.static_range(SPLIT_K):
                acc += tl.load(w_tile, mask=w_mask, other=0.0, cache_modifier='.cg')
                w_tile += w_slot
            c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
            x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
            t0 = acc + x0
            t1 = _skinny_pointer__gelu_erf(t0)
            if C_UNIT > 1:
                c_cols = tl.max_contiguous(offs_n, C_UNIT)
            else:
                c_cols = offs_n
            c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
            tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)
    else:
        c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
        x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
        t0 = acc + x0
        t1 = _skinny_pointer__gelu_erf(t0)
        if C_UNIT > 1:
            c_cols = tl.max_contiguous(offs_n, C_UNIT)
        else:
            c_cols = offs_n
        c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
        tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)

@triton.jit
def _skinny_pointer__gemm_tma_kernel(a_desc, b_desc, c_ptr, in0, M, N, K, stride_cb, stride_cm, s0_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, A_T: tl.constexpr, B_T: tl.constexpr, STAGES: tl.constexpr, C_UNIT: tl.constexpr, IS_FP32: tl.constexpr, UPCAST_BF16: tl.constexpr, ON_GPU: tl.constexpr):
    N = N * C_UNIT
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    tile_id = pid
    batch, pid_m, pid_n = _skinny_pointer__tile_coords(tile_id, tiles_m, tiles_n, GROUP_M)
    batch64 = batch.to(tl.int64)
    off_m = tl.maximum(tl.minimum(pid_m * BLOCK_M, M - BLOCK_M), 0)
    off_n = pid_n * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, K, BLOCK_K, num_stages=STAGES):
        if A_T:
            a = a_desc.load([k, off_m]).T
        else:
            a = a_desc.load([off_m, k])
        if B_T:
            b = b_desc.load([off_n, k]).T
        else:
            b = b_desc.load([k, off_n])
        if IS_FP32:
            part = tl.dot(a, b, input_precision='ieee')
            if ON_GPU:
                acc = tl.inline_asm_elementwise('add.rn.f32 $0, $1, $2;', '=r,r,r', [acc, part], dtype=tl.float32, is_pure=True, pack=1)
            else:
                acc = acc + part
        elif UPCAST_BF16:
            acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision='ieee')
        else:
            acc = tl.dot(a, b, acc)
    offs_m = off_m + tl.arange(0, BLOCK_M)
    offs_n = off_n + tl.arange(0, BLOCK_N)
    c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
    t0 = acc + x0
    t1 = _skinny_pointer__gelu_erf(t0)
    if C_UNIT > 1:
        c_cols = tl.max_contiguous(offs_n, C_UNIT)
    else:
        c_cols = offs_n
    c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
    tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)

@functools.lru_cache(maxsize=None)
def _skinny_pointer__sm_count(device_index: int) -> int:
    if not torch.cuda.is_available():
        return 4
    return torch.cuda.get_device_properties(device_index).multi_processor_count

def _skinny_pointer__as_3d(a, b):
    """(A as (batch, M, K), B as (batch, K, N), the output's shape); views where strides allow."""
    if a.dim() < 2 or b.dim() < 2:
        raise ValueError(f'launch_linear_bias_gelu: operands must have 2 or more dims, got {tuple(a.shape)} and {tuple(b.shape)}')
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f'launch_linear_bias_gelu: inner dims differ: {tuple(a.shape)} @ {tuple(b.shape)}')
    m, k, n = (a.shape[-2], a.shape[-1], b.shape[-1])
    if b.dim() == 2:
        out_shape = (*a.shape[:-1], n)
        return (a.reshape(1, -1, k), b.unsqueeze(0), out_shape)
    if a.dim() == 2:
        b3 = b.reshape(-1, k, n)
        return (a.unsqueeze(0).expand(b3.shape[0], m, k), b3, (*b.shape[:-2], m, n))
    if a.shape[:-2] != b.shape[:-2]:
        raise ValueError(f'launch_linear_bias_gelu: batch dims differ ({tuple(a.shape[:-2])} vs {tuple(b.shape[:-2])}); broadcast batch dims are not covered')
    return (a.reshape(-1, m, k), b.reshape(-1, k, n), (*a.shape[:-2], m, n))

@triton.jit
def _skinny_pointer__pad_copy_kernel(src, dst, R, C, s_b, s_r, s_c, d_b, d_r, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    pid_b = tl.program_id(2).to(tl.int64)
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (rows[:, None] < R) & (cols[None, :] < C)
    rows64 = rows.to(tl.int64)
    x = tl.load(src + pid_b * s_b + rows64[:, None] * s_r + cols[None, :] * s_c, mask=mask)
    tl.store(dst + pid_b * d_b + rows64[:, None] * d_r + cols[None, :], x, mask=mask)

def _skinny_pointer__unaligned(t3) -> bool:
    """Whether the pointer kernel would read t3 (batch, R, C) through a padded copy (_aligned):
    a unit-stride dim whose rows (or, with batches, batch stride) are not a multiple of 16
    elements, or a base that is not 16-byte aligned. Neither dim contiguous: read as it is."""
    if t3.stride(2) == 1 or t3.shape[2] == 1:
        lead_dim = 1
    elif t3.stride(1) == 1 or t3.shape[1] == 1:
        return _skinny_pointer__unaligned(t3.transpose(1, 2))
    else:
        return False
    strides_ok = t3.stride(lead_dim) % 16 == 0 and (t3.shape[0] == 1 or t3.stride(0) % 16 == 0)
    return not (strides_ok and t3.data_ptr() % 16 == 0)

def _skinny_pointer__aligned(t3):
    """t3 (batch, R, C) read by the GEMM; when its row stride is not a multiple of 16 elements
    (a width of 4097, or of 1000), a copy into rows padded to 16 elements, viewed at the original
    width. Triton vectorizes a tile load only along rows whose stride it can prove to be a
    multiple of 16 elements; scalar loads cost the GEMM several times the copy (on an H100,
    4095x4097x4093 took 5.9 ms, bench/results/runs/tune-h100-gemm-attention.json; gelu(linear) at
    4099 x 3073 x 1000 took 0.99 ms with rows of 1000 and 0.09 ms with rows of 1024,
    bench/results/gemm-odd-h100.json). Where descriptor loads are available the launcher takes
    them for such operands instead (tma_plan), and this copy is the fallback."""
    if not _skinny_pointer__unaligned(t3):
        return t3
    if not (t3.stride(2) == 1 or t3.shape[2] == 1):
        return _skinny_pointer__aligned(t3.transpose(1, 2)).transpose(1, 2)
    elem = 16
    batch, rows, cols = t3.shape
    padded = _skinny_pointer__cdiv(cols, elem) * elem
    out = torch.empty((batch, rows, padded), dtype=t3.dtype, device=t3.device)
    grid = (_skinny_pointer__cdiv(rows, 32), _skinny_pointer__cdiv(cols, 128), batch)
    _skinny_pointer__pad_copy_kernel[grid](t3, out, rows, cols, t3.stride(0), t3.stride(1), t3.stride(2), out.stride(0), out.stride(1), BLOCK_R=32, BLOCK_C=128, num_warps=4)
    return out[:, :, :cols]
_skinny_pointer_TMA_AVAILABLE = hasattr(tl, 'tensor_descriptor') and hasattr(TensorDescriptor, 'from_tensor')

@functools.lru_cache(maxsize=None)
def _skinny_pointer__capability(device_index: int) -> tuple[int, int]:
    return torch.cuda.get_device_capability(device_index)

def _skinny_pointer__tma_refused(t: torch.Tensor, wanted: bool=_skinny_pointer_USE_TMA) -> str | None:
    """Why no call on `t`'s device takes descriptor loads under this config, or None."""
    if not wanted:
        return 'config: use_tma is off'
    if not _skinny_pointer_TMA_AVAILABLE:
        return 'the installed Triton has no tensor descriptors'
    if not t.is_cuda:
        return "not a CUDA device (Triton's interpreter runs the pointer kernel)"
    if _skinny_pointer__capability(t.get_device())[0] < 9:
        return 'TMA needs compute capability 9.0 or newer'
    return None

def _skinny_pointer_tma_plan(a3, b3) -> str:
    """"tma" when this call takes the TMA kernel, else why it takes the pointer kernel.

    With use_tma off, a call whose A or B rows would need a padded copy for the pointer kernel
    (rows of 1000 or 3073 elements, say: 16-byte aligned, not 16-element aligned) takes the
    descriptor kernel where it can: it reads such rows in place at full speed, where the copy
    costs a kernel and a buffer (at 4099 x 1000 -> 3073 on an H100, 0.098 ms against 0.376 ms
    padded, bench/results/gemm-odd-h100.json). Not under split-K, which the TMA kernel lacks,
    and for 16-bit operands only: float32 through descriptors at the default 128x256x64 tiles
    needs 256 KB of shared memory and does not compile (runs/probe-fp32-tma-h100.txt)."""
    odd_rows = not _skinny_pointer_USE_TMA and _skinny_pointer_SPLIT_K == 1 and (a3.element_size() == 2) and (_skinny_pointer__unaligned(a3) or _skinny_pointer__unaligned(b3))
    refused = _skinny_pointer__tma_refused(a3, _skinny_pointer_USE_TMA or odd_rows)
    if refused:
        return refused
    if a3.shape[0] != 1:
        return 'batched operands (the TMA kernel is 2-D)'
    for name, t in (('A', a3[0]), ('B', b3[0])):
        if t.stride(-1) != 1 and t.stride(-2) != 1:
            return f'{name} has no unit stride'
        outer = t.stride(-2) if t.stride(-1) == 1 else t.stride(-1)
        if t.data_ptr() % 16 or outer * t.element_size() % 16:
            return f"{name}'s base or row stride is not 16-byte aligned"
    return 'tma'

class _skinny_pointer__RecordedDescriptor(TensorDescriptor):
    """A descriptor of a recorded launch (_gemm's recipe), built without TensorDescriptor's
    checks: the recipe's key (the caller's shapes, strides, dtypes and 16-byte alignment) fixes
    all those checks read, and the recording call's descriptors passed them. Building the two
    descriptors with the checks took 6 us of an H100 host's time a call
    (bench/results/probe-host-parts-h100.json)."""

    def __init__(self, base, shape, strides, block_shape):
        self.base, self.shape, self.strides, self.block_shape = (base, shape, strides, block_shape)

def _skinny_pointer__descriptor(t, rows_block: int, cols_block: int):
    """A descriptor over 2-D `t` and whether the kernel must transpose what it loads."""
    if t.stride(-1) == 1:
        return (TensorDescriptor(t, list(t.shape), [t.stride(0), 1], [rows_block, cols_block]), False)
    return (TensorDescriptor(t, [t.shape[1], t.shape[0]], [t.stride(1), 1], [cols_block, rows_block]), True)

def _skinny_pointer__epilogue_args(extras, out_shape, c_shape, like):
    """The epilogue's operands, checked, and their strides, in the kernels' argument order."""
    args, strides, flags = ([], [], {})
    n = c_shape[2]
    t = extras[0]
    if t.dim() != 1 or t.shape[0] != n or t.dtype != like.dtype:
        raise ValueError(f'launch_linear_bias_gelu: epilogue input 0 is {tuple(t.shape)} {t.dtype}; expected ({n},) {like.dtype}, broadcast along N')
    strides.append(t.stride(0))
    args.append(t)
    return (args, strides, flags)

def _skinny_pointer_fp32_stages(stages: int=_skinny_pointer_NUM_STAGES) -> int:
    """Pipeline stages of an fp32 launch: NUM_STAGES, lowered until 4-byte tiles fit. A loop
    pipelined in n stages keeps n - 1 tiles of A and B in shared memory (Triton 3.6 asked for
    8 x 48 KB at 9 stages of 128x64x64 fp32 tiles, runs/gpu-tests-h100-round17.txt)."""
    per_stage = (_skinny_pointer_BLOCK_M * _skinny_pointer_BLOCK_K + _skinny_pointer_BLOCK_K * _skinny_pointer_BLOCK_N) * 4
    return max(1, min(stages, _skinny_pointer_MAX_SHARED_BYTES // per_stage + 1))
_skinny_pointer__RECIPES = {}
_skinny_pointer__MAX_RECIPES = 256

def _skinny_pointer__signature(a, b, extras, use_tma):
    return (a.shape, a.stride(), b.shape, b.stride(), a.dtype, b.dtype, a.device, a.data_ptr() % 16, b.data_ptr() % 16, use_tma, tuple(((t.shape, t.stride(), t.dtype, t.data_ptr() % 16) if isinstance(t, torch.Tensor) else type(t) for t in extras)))

def _skinny_pointer__output_unit(c3, cols: int) -> int:
    """C_UNIT of a launch that writes c3 (batch, M, N), a new contiguous tensor, in stores
    `cols` columns wide: the widest vector (elements, at most 16 bytes) that N and c3's base align
    to, and so its strides (M * N, N), but not one that makes exactly 32 vectors of a store's row.
    Triton lays such a store out one row per warp, every warp on rows of its own, and on an H100
    that store was the slow one at every tile and slice width timed: TILED's 128x256 tiles at
    1000x1024->3000 took 23.0 us a call in 16-byte vectors and 18.9 in 8-byte ones (2-byte: 19.5),
    128x128 tiles 20.4 in 8-byte vectors against 18.3-18.5 in 4- or 16-byte ones
    (bench/results/runs/probe-gemm-store-h100-round171.json); at 1000x1024->4096, where Triton
    took 16 bytes by itself, TILED took 23.6 us and TILED in two epilogue slices 19.7
    (bench/results/probe-gemm-parts-h100.json). The kernels take N and those strides divided by
    the unit (unit_width) and store vectors of at most a unit (store_cols)."""
    unit = _skinny_pointer__unit((c3.shape[2],), c3.data_ptr(), c3.element_size())
    if unit > 1 and cols // unit == 32:
        unit //= 2
    return unit

def _skinny_pointer__split_buffers(ws_shape, tiles: int, like):
    """Split-K's fp32 partials (SPLIT_K, batch, M, N) and one zeroed arrival counter per output
    tile, new for every call (so two launches on two streams never share them); without split-K,
    placeholders the kernel never touches."""
    if ws_shape is None:
        return (like, like)
    return (torch.empty(ws_shape, dtype=torch.float32, device=like.device), torch.zeros(tiles, dtype=torch.int32, device=like.device))

def _skinny_pointer__gemm(a, b, extras, use_tma=None, key=None):
    """epilogue(a @ b) for a (..., M, K), b (..., K, N) of one dtype; `use_tma` None: tma_plan.
    `key`: the call's _signature, where the caller has it."""
    if key is None:
        key = _skinny_pointer__signature(a, b, extras, use_tma)
    recipe = _skinny_pointer__RECIPES.get(key)
    if recipe is None:
        return _skinny_pointer__gemm_first(a, b, extras, use_tma, key)
    epi = [t if isinstance(t, torch.Tensor) else float(t) for t in extras]
    if recipe[0] == 'tma':
        _, out_shape, grid, (a_box, b_box), args, kwargs, direct = recipe
        out = torch.empty(out_shape, dtype=a.dtype, device=a.device)
        _skinny_pointer__run(_skinny_pointer__gemm_tma_kernel, grid, direct, (_skinny_pointer__RecordedDescriptor(a, *a_box), _skinny_pointer__RecordedDescriptor(b, *b_box), out, *epi, *args), kwargs)
        return out
    _, out_shape, grid, args, kwargs, ws_shape, tiles, direct = recipe
    out = torch.empty(out_shape, dtype=a.dtype, device=a.device)
    workspace, locks = _skinny_pointer__split_buffers(ws_shape, tiles, out)
    _skinny_pointer__run(_skinny_pointer__gemm_kernel, grid, direct, (a, b, out, workspace, locks, *epi, *args), kwargs)
    return out

def _skinny_pointer__direct(compiled, kernel, grid, n_args: int, kwargs):
    """A recorded launch through the compiled kernel's own launcher: (the launcher over `grid`,
    the values of the kernel's parameters after its first `n_args`, all passed as keywords), or
    None in Triton's interpreter or where a parameter was left to its default.
    `kernel[grid](...)` binds and specializes every argument again on each call; a recipe's key
    (shapes, strides, dtypes, device, 16-byte alignment) already fixes all that specialization
    depends on, and its sizes and strides are the first call's. The verifier counts these
    launches as it counts `kernel[grid](...)` (verifier/runtime.py)."""
    if compiled is None:
        return None
    rest = kernel.arg_names[n_args:]
    if any((name not in kwargs for name in rest)):
        return None
    return (compiled[(*grid, 1, 1)[:3]], tuple((kwargs[name] for name in rest)))

def _skinny_pointer__run(kernel, grid, direct, args, kwargs):
    """kernel[grid](*args, **kwargs), through `direct` (from _direct) where there is one."""
    if direct is None:
        kernel[grid](*args, **kwargs)
    else:
        run, consts = direct
        run(*args, *consts)

def _skinny_pointer__box(desc):
    return (list(desc.shape), list(desc.strides), list(desc.block_shape))

def _skinny_pointer__record(key, recipe):
    if len(_skinny_pointer__RECIPES) >= _skinny_pointer__MAX_RECIPES:
        _skinny_pointer__RECIPES.clear()
    _skinny_pointer__RECIPES[key] = recipe

def _skinny_pointer__same_tensors(pairs) -> bool:
    """Whether every view the launch took starts at its caller tensor's first element."""
    return all((not isinstance(v, torch.Tensor) or v.data_ptr() == t.data_ptr() for v, t in pairs))

def _skinny_pointer__gemm_first(a, b, extras, use_tma, key):
    """_gemm for a call signature not seen yet: checks, views, the launch, and its recipe."""
    if a.dtype not in (torch.float32, torch.float16, torch.bfloat16) or b.dtype != a.dtype:
        raise TypeError(f'launch_linear_bias_gelu: unsupported dtypes {a.dtype} @ {b.dtype}')
    a3, b3, out_shape = _skinny_pointer__as_3d(a, b)
    if use_tma is None:
        use_tma = _skinny_pointer_tma_plan(a3, b3) == 'tma'
    if not use_tma:
        a3, b3 = (_skinny_pointer__aligned(a3), _skinny_pointer__aligned(b3))
    n_batch, m, k = a3.shape
    n = b3.shape[2]
    out = torch.empty(out_shape, dtype=a.dtype, device=a.device)
    if out.numel() == 0:
        return out
    c3 = out.reshape(n_batch, m, n)
    c_unit = _skinny_pointer__output_unit(c3, _skinny_pointer_BLOCK_N // _skinny_pointer_EPILOGUE_SPLIT)
    epi, epi_strides, flags = _skinny_pointer__epilogue_args(extras, out_shape, c3.shape, a)
    is_fp32 = a.dtype == torch.float32
    on_gpu = a.is_cuda
    upcast = a.dtype == torch.bfloat16 and (not on_gpu)
    stages = _skinny_pointer_fp32_stages() if is_fp32 else _skinny_pointer_NUM_STAGES
    tiles_m, tiles_n = (_skinny_pointer__cdiv(m, _skinny_pointer_BLOCK_M), _skinny_pointer__cdiv(n, _skinny_pointer_BLOCK_N))
    tiles = n_batch * tiles_m * tiles_n
    programs = tiles
    if _skinny_pointer_PERSISTENT:
        programs = min(tiles, _skinny_pointer__sm_count(max(a.get_device(), 0)) * _skinny_pointer_PERSISTENT)
    if use_tma:
        a_desc, a_t = _skinny_pointer__descriptor(a3[0], _skinny_pointer_BLOCK_M, _skinny_pointer_BLOCK_K)
        b_desc, b_t = _skinny_pointer__descriptor(b3[0], _skinny_pointer_BLOCK_K, _skinny_pointer_BLOCK_N)
        args = (m, n // c_unit, k, c3.stride(0) // c_unit, c3.stride(1) // c_unit, *epi_strides)
        kwargs = dict(BLOCK_M=_skinny_pointer_BLOCK_M, BLOCK_N=_skinny_pointer_BLOCK_N, BLOCK_K=_skinny_pointer_BLOCK_K, GROUP_M=_skinny_pointer_GROUP_M, A_T=a_t, B_T=b_t, STAGES=stages, C_UNIT=c_unit, IS_FP32=is_fp32, UPCAST_BF16=upcast, ON_GPU=on_gpu, num_warps=_skinny_pointer_NUM_WARPS, num_stages=stages, **flags, num_ctas=1 if b_t else _skinny_pointer_NUM_CTAS)
        launch = (a_desc, b_desc, c3, *epi, *args)
        kwargs, compiled = _skinny_pointer__launch_fitting(_skinny_pointer__gemm_tma_kernel, (programs,), launch, kwargs, c3)
        if _skinny_pointer__same_tensors([(a_desc.base, a), (b_desc.base, b), *zip(epi, extras)]):
            _skinny_pointer__record(key, ('tma', out_shape, (programs,), (_skinny_pointer__box(a_desc), _skinny_pointer__box(b_desc)), args, kwargs, _skinny_pointer__direct(compiled, _skinny_pointer__gemm_tma_kernel, (programs,), len(launch), kwargs)))
        return out
    k_tiles = _skinny_pointer__cdiv(k, _skinny_pointer_BLOCK_K)
    split = 1 if _skinny_pointer_PERSISTENT else max(1, min(_skinny_pointer_SPLIT_K, k_tiles))
    k_per_split = _skinny_pointer__cdiv(k_tiles, split) * _skinny_pointer_BLOCK_K
    split = max(1, _skinny_pointer__cdiv(k, k_per_split))
    ws_shape = (split, n_batch, m, n) if split > 1 else None
    workspace, locks = _skinny_pointer__split_buffers(ws_shape, tiles, c3)
    biggest = max(a3.numel(), b3.numel(), c3.numel(), workspace.numel(), max((t.numel() for t in epi if isinstance(t, torch.Tensor)), default=0))
    grid = (programs,) if _skinny_pointer_PERSISTENT else (tiles, split)
    args = (m, n // c_unit, k, n_batch, k_per_split, n_batch * m * n, a3.stride(0), a3.stride(1), a3.stride(2), b3.stride(0), b3.stride(1), b3.stride(2), c3.stride(0) // c_unit, c3.stride(1) // c_unit, *epi_strides)
    kwargs = dict(BLOCK_M=_skinny_pointer_BLOCK_M, BLOCK_N=_skinny_pointer_BLOCK_N, BLOCK_K=_skinny_pointer_BLOCK_K, GROUP_M=_skinny_pointer_GROUP_M, SPLIT_K=split, EVEN_M=m % _skinny_pointer_BLOCK_M == 0 or (_skinny_pointer_SHIFT_TAIL and m >= _skinny_pointer_BLOCK_M), EVEN_N=n % _skinny_pointer_BLOCK_N == 0, EVEN_K=k % _skinny_pointer_BLOCK_K == 0, IS_FP32=is_fp32, UPCAST_BF16=upcast, ON_GPU=on_gpu, INDEX_64=biggest >= 2 ** 31, STAGES=stages, C_UNIT=c_unit, num_warps=_skinny_pointer_NUM_WARPS, num_stages=stages, **flags)
    launch = (a3, b3, c3, workspace, locks, *epi, *args)
    kwargs, compiled = _skinny_pointer__launch_fitting(_skinny_pointer__gemm_kernel, grid, launch, kwargs, c3)
    if _skinny_pointer__same_tensors([(a3, a), (b3, b), *zip(epi, extras)]):
        _skinny_pointer__record(key, ('pointer', out_shape, grid, args, kwargs, ws_shape, tiles, _skinny_pointer__direct(compiled, _skinny_pointer__gemm_kernel, grid, len(launch), kwargs)))
    return out

def _skinny_pointer__fit_stages(kernel, grid, args, kwargs, limit: int):
    """`kwargs` with the pipeline's stages lowered, one at a time, until the compiled kernel's
    shared memory fits `limit` (compiled, not launched: `warmup`); at one stage, as it is. float32
    tiles under a flattened tile loop or a sliced epilogue asked for 256-288 KB at the stages
    fp32_stages() allows, against 227 KB (H100, GPU round 46, bench/probe_gemm_default_gpu.py)."""
    while kwargs['num_stages'] > 1:
        if kernel.warmup(*args, grid=grid, **kwargs).metadata.shared <= limit:
            break
        stages = kwargs['num_stages'] - 1
        kwargs = {**kwargs, 'STAGES': stages, 'num_stages': stages}
    return kwargs

@functools.lru_cache(maxsize=None)
def _skinny_pointer__shared_limit(device_index: int) -> int:
    return torch.cuda.get_device_properties(device_index).shared_memory_per_block_optin

def _skinny_pointer__launch_fitting(kernel, grid, args, kwargs, out):
    """kernel[grid](*args, **kwargs), on a GPU with stages that fit its shared memory (_fit_stages);
    returns the keywords it ran with, which a recipe keeps, and the compiled kernel (None in the
    interpreter). `out`: the output, on the device."""
    if out.is_cuda:
        kwargs = _skinny_pointer__fit_stages(kernel, grid, args, kwargs, _skinny_pointer__shared_limit(out.get_device()))
    return (kwargs, kernel[grid](*args, **kwargs))

def _skinny_pointer__operand(t, transposed: bool):
    return t.transpose(-2, -1) if transposed else t

def _skinny_pointer_launch_linear_bias_gelu(a, b, in0):
    """linear_bias_gelu: epilogue(a @ b^T), one kernel launch."""
    return _skinny_pointer__gemm(_skinny_pointer__operand(a, _skinny_pointer_A_TRANSPOSED), _skinny_pointer__operand(b, _skinny_pointer_B_TRANSPOSED), (in0,))

class _skinny_pointer_ModelNew(torch.nn.Module):
    """Drop-in for the task's Model: the matmul and its epilogue in one kernel."""

    def __init__(self, *args, **kwargs):
        super().__init__()
        self.fc = torch.nn.Module()
        self.fc.weight = torch.nn.UninitializedParameter()
        self.fc.bias = torch.nn.UninitializedParameter()

    def forward(self, *args):
        return _skinny_pointer_launch_linear_bias_gelu(args[0], self.fc.weight, self.fc.bias)

# skinny_rows: the kernels and launcher of the calls it routes (_skinny_wide_)

def _skinny_wide__cdiv(a: int, b: int) -> int:
    """ceil(a / b) for non-negative ints, on the host."""
    return -(-a // b)

def _skinny_wide__next_pow2(n: int) -> int:
    """The smallest power of two >= n, 0 for 0 (as triton.next_power_of_2), on the host."""
    return 1 << (n - 1).bit_length() if n > 0 else 0

def _skinny_wide__unit(values, data_ptr: int, itemsize: int) -> int:
    """The widest vector (elements, at most 16 bytes) that every offset and the base align to.
    A kernel takes its widths and strides divided by it and multiplies them back by the
    constexpr: Triton marks an int argument only when it is divisible by 16, so a 1000-wide
    bf16 row (2000 bytes, 16-byte aligned) would otherwise get 2-byte loads and stores."""
    unit = 16 // itemsize
    while unit > 1 and (any((v % unit for v in values)) or data_ptr % (unit * itemsize)):
        unit //= 2
    return unit
_skinny_wide_PARAMS = {'BLOCK_M': 64, 'BLOCK_N': 128, 'BLOCK_K': 128, 'GROUP_M': 4, 'num_warps': 4, 'num_stages': 4, 'SPLIT_K': 1, 'persistent': 0, 'use_tma': True, 'EPILOGUE_SPLIT': 1, 'flatten': False, 'gelu_erf_fit': False, 'skinny_rows': 0, 'odd_tiled': False, 'single_wave_tiled': False, 'fuse_norm': False, 'ws_pingpong': False, 'ws_coop': False, 'num_ctas': 1, 'swap_ab': False, 'shift_tail': True}
_skinny_wide_BLOCK_M = 64
_skinny_wide_BLOCK_N = 128
_skinny_wide_BLOCK_K = 128
_skinny_wide_EPILOGUE_SPLIT = 1
_skinny_wide_GROUP_M = 4
_skinny_wide_NUM_WARPS = 4
_skinny_wide_NUM_STAGES = 4
_skinny_wide_NUM_CTAS = 1
_skinny_wide_SPLIT_K = 1
_skinny_wide_PERSISTENT = 0
_skinny_wide_USE_TMA = True
_skinny_wide_SHIFT_TAIL = True
_skinny_wide_SKINNY_ROWS = 0
_skinny_wide_SKINNY_TILES = ((32, 64, 'skinny_narrow', 'one'), (32, 128, 'skinny_narrow_wide', 'one'), (64, 64, 'skinny', 'tile'), (64, 64, 'skinny_pointer', 'any'), (64, 128, 'skinny_wide', 'any'), (64, 256, 'skinny_wider', 'any'), (128, 128, 'skinny_large', 'any'))
_skinny_wide_DECODE_BLOCK_N = (32, 64, 128)
_skinny_wide_DECODE_ROWS = 16
_skinny_wide_ODD_TILED = False
_skinny_wide_SINGLE_WAVE_TILED = False
_skinny_wide_A_TRANSPOSED = False
_skinny_wide_B_TRANSPOSED = True
_skinny_wide_MAX_SHARED_BYTES = 227 * 1024

@triton.jit
def _skinny_wide__relu(x):
    return tl.where(x < 0.0, 0.0, x)

@triton.jit
def _skinny_wide__leaky_relu(x, slope):
    return tl.where(x > 0.0, x, x * slope)

@triton.jit
def _skinny_wide__expm1(x):
    series = x * (1.0 + x * (0.5 + x * (1.0 / 6.0 + x * (1.0 / 24.0 + x * (1.0 / 120.0)))))
    return tl.where(tl.abs(x) < 0.03125, series, tl.exp(x) - 1.0)

@triton.jit
def _skinny_wide__elu(x, alpha):
    return tl.where(x > 0.0, x, alpha * _skinny_wide__expm1(x))

@triton.jit
def _skinny_wide__sigmoid(x):
    return 1.0 / (1.0 + tl.exp(-x))

@triton.jit
def _skinny_wide__silu(x):
    return x / (1.0 + tl.exp(-x))

@triton.jit
def _skinny_wide__tanh(x):
    ax = tl.abs(x)
    t = tl.exp(-2.0 * ax)
    far = (1.0 - t) / (1.0 + t)
    x2 = ax * ax
    near = ax * (1.0 + x2 * (-1.0 / 3.0 + x2 * (2.0 / 15.0 + x2 * (-17.0 / 315.0))))
    r = tl.where(ax < 0.0625, near, far)
    return tl.where(x < 0.0, -r, r)

@triton.jit
def _skinny_wide__gelu_erf(x):
    return 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))

@triton.jit
def _skinny_wide__gelu_tanh(x):
    u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    return x / (1.0 + tl.exp(-2.0 * u))

@triton.jit
def _skinny_wide__log1p_unit(e):
    series = e * (1.0 - e * (0.5 - e * (1.0 / 3.0 - e * (0.25 - e * 0.2))))
    return tl.where(e < 0.03125, series, tl.log(1.0 + e))

@triton.jit
def _skinny_wide__softplus(x, beta, threshold):
    z = x * beta
    sp = tl.where(z > 0.0, z, 0.0) + _skinny_wide__log1p_unit(tl.exp(-tl.abs(z)))
    return tl.where(z > threshold, x, sp / beta)

@triton.jit
def _skinny_wide__mish(x):
    e = tl.exp(tl.where(x < 20.0, x, 20.0))
    n = e * (e + 2.0)
    return tl.where(x > 20.0, x, x * (n / (n + 2.0)))

@triton.jit
def _skinny_wide__clamp_min(x, lo):
    return tl.where(x < lo, lo, x)

@triton.jit
def _skinny_wide__clamp_max(x, hi):
    return tl.where(x > hi, hi, x)

@triton.jit
def _skinny_wide__clamp(x, lo, hi):
    return _skinny_wide__clamp_max(_skinny_wide__clamp_min(x, lo), hi)

@triton.jit
def _skinny_wide__hardsigmoid(x):
    return _skinny_wide__clamp(x + 3.0, 0.0, 6.0) / 6.0

@triton.jit
def _skinny_wide__hardswish(x):
    return x * _skinny_wide__clamp(x + 3.0, 0.0, 6.0) / 6.0

@triton.jit
def _skinny_wide__maximum(a, b):
    return tl.where((a > b) | (a != a), a, b)

@triton.jit
def _skinny_wide__minimum(a, b):
    return tl.where((a < b) | (a != a), a, b)

@triton.jit
def _skinny_wide__tile_coords(tile_id, tiles_m, tiles_n, GROUP_M: tl.constexpr):
    per_batch = tiles_m * tiles_n
    batch = tile_id // per_batch
    t = tile_id % per_batch
    in_group = GROUP_M * tiles_n
    first_m = t // in_group * GROUP_M
    group_rows = tl.minimum(tiles_m - first_m, GROUP_M)
    pid_m = first_m + t % in_group % group_rows
    pid_n = t % in_group // group_rows
    return (batch, pid_m, pid_n)

@triton.jit
def _skinny_wide__gemm_kernel(a_ptr, b_ptr, c_ptr, w_ptr, lock_ptr, in0, M, N, K, n_batch, k_per_split, w_slot, stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn, stride_cb, stride_cm, s0_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, SPLIT_K: tl.constexpr, EVEN_M: tl.constexpr, EVEN_N: tl.constexpr, EVEN_K: tl.constexpr, STAGES: tl.constexpr, C_UNIT: tl.constexpr, IS_FP32: tl.constexpr, UPCAST_BF16: tl.constexpr, ON_GPU: tl.constexpr, INDEX_64: tl.constexpr):
    N = N * C_UNIT
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    tile_id = pid
    pid_k = tl.program_id(1)
    batch, pid_m, pid_n = _skinny_wide__tile_coords(tile_id, tiles_m, tiles_n, GROUP_M)
    batch64 = batch.to(tl.int64)
    off_m = tl.maximum(tl.minimum(pid_m * BLOCK_M, M - BLOCK_M), 0)
    offs_m = off_m + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    if INDEX_64:
        offs_m = offs_m.to(tl.int64)
        offs_n = offs_n.to(tl.int64)
        offs_k = offs_k.to(tl.int64)
    k_start = pid_k * k_per_split
    k_end = tl.minimum(K, k_start + k_per_split)
    a_ptrs = a_ptr + batch64 * stride_ab + offs_m[:, None] * stride_am + (k_start + offs_k)[None, :] * stride_ak
    b_ptrs = b_ptr + batch64 * stride_bb + (k_start + offs_k)[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    k_full = k_start + (k_end - k_start) // BLOCK_K * BLOCK_K
    for k in tl.range(k_start, k_full, BLOCK_K, num_stages=STAGES):
        if EVEN_M:
            a = tl.load(a_ptrs)
        else:
            a = tl.load(a_ptrs, mask=offs_m[:, None] < M, other=0.0)
        if EVEN_N:
            b = tl.load(b_ptrs)
        else:
            b = tl.load(b_ptrs, mask=offs_n[None, :] < N, other=0.0)
        if IS_FP32:
            part = tl.dot(a, b, input_precision='ieee')
            if ON_GPU:
                acc = tl.inline_asm_elementwise('add.rn.f32 $0, $1, $2;', '=r,r,r', [acc, part], dtype=tl.float32, is_pure=True, pack=1)
            else:
                acc = acc + part
        elif UPCAST_BF16:
            acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision='ieee')
        else:
            acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    if not EVEN_K:
        if k_full < k_end:
            a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & ((k_full + offs_k)[None, :] < k_end), other=0.0)
            b = tl.load(b_ptrs, mask=((k_full + offs_k)[:, None] < k_end) & (offs_n[None, :] < N), other=0.0)
            if IS_FP32:
                part = tl.dot(a, b, input_precision='ieee')
                if ON_GPU:
                    acc = tl.inline_asm_elementwise('add.rn.f32 $0, $1, $2;', '=r,r,r', [acc, part], dtype=tl.float32, is_pure=True, pack=1)
                else:
                    acc = acc + part
            elif UPCAST_BF16:
                acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision='ieee')
            else:
                acc = tl.dot(a, b, acc)
    if SPLIT_K > 1:
        w_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
        w_tile = w_ptr + (batch64 * M + offs_m[:, None]) * N + offs_n[None, :]
        tl.store(w_tile + pid_k.to(tl.int64) * w_slot, acc, mask=w_mask)
        tl.debug_barrier()
        arrived = tl.atomic_add(lock_ptr + tile_id, 1, sem='acq_rel')
        if arrived == SPLIT_K - 1:
            acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
            for s in tl.static_range(SPLIT_K):
                acc += tl.load(w_tile, mask=w_mask, other=0.0, cache_modifier='.cg')
                w_tile += w_slot
            c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
            x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
            t0 = acc + x0
            t1 = _skinny_wide__gelu_erf(t0)
            if C_UNIT > 1:
                c_cols = tl.max_contiguous(offs_n, C_UNIT)
            else:
                c_cols = offs_n
            c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
            tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)
    else:
        c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
        x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
        t0 = acc + x0
        t1 = _skinny_wide__gelu_erf(t0)
        if C_UNIT > 1:
            c_cols = tl.max_contiguous(offs_n, C_UNIT)
        else:
            c_cols = offs_n
        c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
        tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)

@triton.jit
def _skinny_wide__gemm_tma_kernel(a_desc, b_desc, c_ptr, in0, M, N, K, stride_cb, stride_cm, s0_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, A_T: tl.constexpr, B_T: tl.constexpr, STAGES: tl.constexpr, C_UNIT: tl.constexpr, IS_FP32: tl.constexpr, UPCAST_BF16: tl.constexpr, ON_GPU: tl.constexpr):
    N = N * C_UNIT
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    tile_id = pid
    batch, pid_m, pid_n = _skinny_wide__tile_coords(tile_id, tiles_m, tiles_n, GROUP_M)
    batch64 = batch.to(tl.int64)
    off_m = tl.maximum(tl.minimum(pid_m * BLOCK_M, M - BLOCK_M), 0)
    off_n = pid_n * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, K, BLOCK_K, num_stages=STAGES):
        if A_T:
            a = a_desc.load([k, off_m]).T
        else:
            a = a_desc.load([off_m, k])
        if B_T:
            b = b_desc.load([off_n, k]).T
        else:
            b = b_desc.load([k, off_n])
        if IS_FP32:
            part = tl.dot(a, b, input_precision='ieee')
            if ON_GPU:
                acc = tl.inline_asm_elementwise('add.rn.f32 $0, $1, $2;', '=r,r,r', [acc, part], dtype=tl.float32, is_pure=True, pack=1)
            else:
                acc = acc + part
        elif UPCAST_BF16:
            acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision='ieee')
        else:
            acc = tl.dot(a, b, acc)
    offs_m = off_m + tl.arange(0, BLOCK_M)
    offs_n = off_n + tl.arange(0, BLOCK_N)
    c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
    t0 = acc + x0
    t1 = _skinny_wide__gelu_erf(t0)
    if C_UNIT > 1:
        c_cols = tl.max_contiguous(offs_n, C_UNIT)
    else:
        c_cols = offs_n
    c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
    tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)

@functools.lru_cache(maxsize=None)
def _skinny_wide__sm_count(device_index: int) -> int:
    if not torch.cuda.is_available():
        return 4
    return torch.cuda.get_device_properties(device_index).multi_processor_count

def _skinny_wide__as_3d(a, b):
    """(A as (batch, M, K), B as (batch, K, N), the output's shape); views where strides allow."""
    if a.dim() < 2 or b.dim() < 2:
        raise ValueError(f'launch_linear_bias_gelu: operands must have 2 or more dims, got {tuple(a.shape)} and {tuple(b.shape)}')
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f'launch_linear_bias_gelu: inner dims differ: {tuple(a.shape)} @ {tuple(b.shape)}')
    m, k, n = (a.shape[-2], a.shape[-1], b.shape[-1])
    if b.dim() == 2:
        out_shape = (*a.shape[:-1], n)
        return (a.reshape(1, -1, k), b.unsqueeze(0), out_shape)
    if a.dim() == 2:
        b3 = b.reshape(-1, k, n)
        return (a.unsqueeze(0).expand(b3.shape[0], m, k), b3, (*b.shape[:-2], m, n))
    if a.shape[:-2] != b.shape[:-2]:
        raise ValueError(f'launch_linear_bias_gelu: batch dims differ ({tuple(a.shape[:-2])} vs {tuple(b.shape[:-2])}); broadcast batch dims are not covered')
    return (a.reshape(-1, m, k), b.reshape(-1, k, n), (*a.shape[:-2], m, n))

@triton.jit
def _skinny_wide__pad_copy_kernel(src, dst, R, C, s_b, s_r, s_c, d_b, d_r, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    pid_b = tl.program_id(2).to(tl.int64)
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (rows[:, None] < R) & (cols[None, :] < C)
    rows64 = rows.to(tl.int64)
    x = tl.load(src + pid_b * s_b + rows64[:, None] * s_r + cols[None, :] * s_c, mask=mask)
    tl.store(dst + pid_b * d_b + rows64[:, None] * d_r + cols[None, :], x, mask=mask)

def _skinny_wide__unaligned(t3) -> bool:
    """Whether the pointer kernel would read t3 (batch, R, C) through a padded copy (_aligned):
    a unit-stride dim whose rows (or, with batches, batch stride) are not a multiple of 16
    elements, or a base that is not 16-byte aligned. Neither dim contiguous: read as it is."""
    if t3.stride(2) == 1 or t3.shape[2] == 1:
        lead_dim = 1
    elif t3.stride(1) == 1 or t3.shape[1] == 1:
        return _skinny_wide__unaligned(t3.transpose(1, 2))
    else:
        return False
    strides_ok = t3.stride(lead_dim) % 16 == 0 and (t3.shape[0] == 1 or t3.stride(0) % 16 == 0)
    return not (strides_ok and t3.data_ptr() % 16 == 0)

def _skinny_wide__aligned(t3):
    """t3 (batch, R, C) read by the GEMM; when its row stride is not a multiple of 16 elements
    (a width of 4097, or of 1000), a copy into rows padded to 16 elements, viewed at the original
    width. Triton vectorizes a tile load only along rows whose stride it can prove to be a
    multiple of 16 elements; scalar loads cost the GEMM several times the copy (on an H100,
    4095x4097x4093 took 5.9 ms, bench/results/runs/tune-h100-gemm-attention.json; gelu(linear) at
    4099 x 3073 x 1000 took 0.99 ms with rows of 1000 and 0.09 ms with rows of 1024,
    bench/results/gemm-odd-h100.json). Where descriptor loads are available the launcher takes
    them for such operands instead (tma_plan), and this copy is the fallback."""
    if not _skinny_wide__unaligned(t3):
        return t3
    if not (t3.stride(2) == 1 or t3.shape[2] == 1):
        return _skinny_wide__aligned(t3.transpose(1, 2)).transpose(1, 2)
    elem = 16
    batch, rows, cols = t3.shape
    padded = _skinny_wide__cdiv(cols, elem) * elem
    out = torch.empty((batch, rows, padded), dtype=t3.dtype, device=t3.device)
    grid = (_skinny_wide__cdiv(rows, 32), _skinny_wide__cdiv(cols, 128), batch)
    _skinny_wide__pad_copy_kernel[grid](t3, out, rows, cols, t3.stride(0), t3.stride(1), t3.stride(2), out.stride(0), out.stride(1), BLOCK_R=32, BLOCK_C=128, num_warps=4)
    return out[:, :, :cols]
_skinny_wide_TMA_AVAILABLE = hasattr(tl, 'tensor_descriptor') and hasattr(TensorDescriptor, 'from_tensor')

@functools.lru_cache(maxsize=None)
def _skinny_wide__capability(device_index: int) -> tuple[int, int]:
    return torch.cuda.get_device_capability(device_index)

def _skinny_wide__tma_refused(t: torch.Tensor, wanted: bool=_skinny_wide_USE_TMA) -> str | None:
    """Why no call on `t`'s device takes descriptor loads under this config, or None."""
    if not wanted:
        return 'config: use_tma is off'
    if not _skinny_wide_TMA_AVAILABLE:
        return 'the installed Triton has no tensor descriptors'
    if not t.is_cuda:
        return "not a CUDA device (Triton's interpreter runs the pointer kernel)"
    if _skinny_wide__capability(t.get_device())[0] < 9:
        return 'TMA needs compute capability 9.0 or newer'
    return None

def _skinny_wide_tma_plan(a3, b3) -> str:
    """"tma" when this call takes the TMA kernel, else why it takes the pointer kernel.

    With use_tma off, a call whose A or B rows would need a padded copy for the pointer kernel
    (rows of 1000 or 3073 elements, say: 16-byte aligned, not 16-element aligned) takes the
    descriptor kernel where it can: it reads such rows in place at full speed, where the copy
    costs a kernel and a buffer (at 4099 x 1000 -> 3073 on an H100, 0.098 ms against 0.376 ms
    padded, bench/results/gemm-odd-h100.json). Not under split-K, which the TMA kernel lacks,
    and for 16-bit operands only: float32 through descriptors at the default 128x256x64 tiles
    needs 256 KB of shared memory and does not compile (runs/probe-fp32-tma-h100.txt)."""
    odd_rows = not _skinny_wide_USE_TMA and _skinny_wide_SPLIT_K == 1 and (a3.element_size() == 2) and (_skinny_wide__unaligned(a3) or _skinny_wide__unaligned(b3))
    refused = _skinny_wide__tma_refused(a3, _skinny_wide_USE_TMA or odd_rows)
    if refused:
        return refused
    if a3.shape[0] != 1:
        return 'batched operands (the TMA kernel is 2-D)'
    for name, t in (('A', a3[0]), ('B', b3[0])):
        if t.stride(-1) != 1 and t.stride(-2) != 1:
            return f'{name} has no unit stride'
        outer = t.stride(-2) if t.stride(-1) == 1 else t.stride(-1)
        if t.data_ptr() % 16 or outer * t.element_size() % 16:
            return f"{name}'s base or row stride is not 16-byte aligned"
    return 'tma'

class _skinny_wide__RecordedDescriptor(TensorDescriptor):
    """A descriptor of a recorded launch (_gemm's recipe), built without TensorDescriptor's
    checks: the recipe's key (the caller's shapes, strides, dtypes and 16-byte alignment) fixes
    all those checks read, and the recording call's descriptors passed them. Building the two
    descriptors with the checks took 6 us of an H100 host's time a call
    (bench/results/probe-host-parts-h100.json)."""

    def __init__(self, base, shape, strides, block_shape):
        self.base, self.shape, self.strides, self.block_shape = (base, shape, strides, block_shape)

def _skinny_wide__descriptor(t, rows_block: int, cols_block: int):
    """A descriptor over 2-D `t` and whether the kernel must transpose what it loads."""
    if t.stride(-1) == 1:
        return (TensorDescriptor(t, list(t.shape), [t.stride(0), 1], [rows_block, cols_block]), False)
    return (TensorDescriptor(t, [t.shape[1], t.shape[0]], [t.stride(1), 1], [cols_block, rows_block]), True)

def _skinny_wide__epilogue_args(extras, out_shape, c_shape, like):
    """The epilogue's operands, checked, and their strides, in the kernels' argument order."""
    args, strides, flags = ([], [], {})
    n = c_shape[2]
    t = extras[0]
    if t.dim() != 1 or t.shape[0] != n or t.dtype != like.dtype:
        raise ValueError(f'launch_linear_bias_gelu: epilogue input 0 is {tuple(t.shape)} {t.dtype}; expected ({n},) {like.dtype}, broadcast along N')
    strides.append(t.stride(0))
    args.append(t)
    return (args, strides, flags)

def _skinny_wide_fp32_stages(stages: int=_skinny_wide_NUM_STAGES) -> int:
    """Pipeline stages of an fp32 launch: NUM_STAGES, lowered until 4-byte tiles fit. A loop
    pipelined in n stages keeps n - 1 tiles of A and B in shared memory (Triton 3.6 asked for
    8 x 48 KB at 9 stages of 128x64x64 fp32 tiles, runs/gpu-tests-h100-round17.txt)."""
    per_stage = (_skinny_wide_BLOCK_M * _skinny_wide_BLOCK_K + _skinny_wide_BLOCK_K * _skinny_wide_BLOCK_N) * 4
    return max(1, min(stages, _skinny_wide_MAX_SHARED_BYTES // per_stage + 1))
_skinny_wide__RECIPES = {}
_skinny_wide__MAX_RECIPES = 256

def _skinny_wide__signature(a, b, extras, use_tma):
    return (a.shape, a.stride(), b.shape, b.stride(), a.dtype, b.dtype, a.device, a.data_ptr() % 16, b.data_ptr() % 16, use_tma, tuple(((t.shape, t.stride(), t.dtype, t.data_ptr() % 16) if isinstance(t, torch.Tensor) else type(t) for t in extras)))

def _skinny_wide__output_unit(c3, cols: int) -> int:
    """C_UNIT of a launch that writes c3 (batch, M, N), a new contiguous tensor, in stores
    `cols` columns wide: the widest vector (elements, at most 16 bytes) that N and c3's base align
    to, and so its strides (M * N, N), but not one that makes exactly 32 vectors of a store's row.
    Triton lays such a store out one row per warp, every warp on rows of its own, and on an H100
    that store was the slow one at every tile and slice width timed: TILED's 128x256 tiles at
    1000x1024->3000 took 23.0 us a call in 16-byte vectors and 18.9 in 8-byte ones (2-byte: 19.5),
    128x128 tiles 20.4 in 8-byte vectors against 18.3-18.5 in 4- or 16-byte ones
    (bench/results/runs/probe-gemm-store-h100-round171.json); at 1000x1024->4096, where Triton
    took 16 bytes by itself, TILED took 23.6 us and TILED in two epilogue slices 19.7
    (bench/results/probe-gemm-parts-h100.json). The kernels take N and those strides divided by
    the unit (unit_width) and store vectors of at most a unit (store_cols)."""
    unit = _skinny_wide__unit((c3.shape[2],), c3.data_ptr(), c3.element_size())
    if unit > 1 and cols // unit == 32:
        unit //= 2
    return unit

def _skinny_wide__split_buffers(ws_shape, tiles: int, like):
    """Split-K's fp32 partials (SPLIT_K, batch, M, N) and one zeroed arrival counter per output
    tile, new for every call (so two launches on two streams never share them); without split-K,
    placeholders the kernel never touches."""
    if ws_shape is None:
        return (like, like)
    return (torch.empty(ws_shape, dtype=torch.float32, device=like.device), torch.zeros(tiles, dtype=torch.int32, device=like.device))

def _skinny_wide__gemm(a, b, extras, use_tma=None, key=None):
    """epilogue(a @ b) for a (..., M, K), b (..., K, N) of one dtype; `use_tma` None: tma_plan.
    `key`: the call's _signature, where the caller has it."""
    if key is None:
        key = _skinny_wide__signature(a, b, extras, use_tma)
    recipe = _skinny_wide__RECIPES.get(key)
    if recipe is None:
        return _skinny_wide__gemm_first(a, b, extras, use_tma, key)
    epi = [t if isinstance(t, torch.Tensor) else float(t) for t in extras]
    if recipe[0] == 'tma':
        _, out_shape, grid, (a_box, b_box), args, kwargs, direct = recipe
        out = torch.empty(out_shape, dtype=a.dtype, device=a.device)
        _skinny_wide__run(_skinny_wide__gemm_tma_kernel, grid, direct, (_skinny_wide__RecordedDescriptor(a, *a_box), _skinny_wide__RecordedDescriptor(b, *b_box), out, *epi, *args), kwargs)
        return out
    _, out_shape, grid, args, kwargs, ws_shape, tiles, direct = recipe
    out = torch.empty(out_shape, dtype=a.dtype, device=a.device)
    workspace, locks = _skinny_wide__split_buffers(ws_shape, tiles, out)
    _skinny_wide__run(_skinny_wide__gemm_kernel, grid, direct, (a, b, out, workspace, locks, *epi, *args), kwargs)
    return out

def _skinny_wide__direct(compiled, kernel, grid, n_args: int, kwargs):
    """A recorded launch through the compiled kernel's own launcher: (the launcher over `grid`,
    the values of the kernel's parameters after its first `n_args`, all passed as keywords), or
    None in Triton's interpreter or where a parameter was left to its default.
    `kernel[grid](...)` binds and specializes every argument again on each call; a recipe's key
    (shapes, strides, dtypes, device, 16-byte alignment) already fixes all that specialization
    depends on, and its sizes and strides are the first call's. The verifier counts these
    launches as it counts `kernel[grid](...)` (verifier/runtime.py)."""
    if compiled is None:
        return None
    rest = kernel.arg_names[n_args:]
    if any((name not in kwargs for name in rest)):
        return None
    return (compiled[(*grid, 1, 1)[:3]], tuple((kwargs[name] for name in rest)))

def _skinny_wide__run(kernel, grid, direct, args, kwargs):
    """kernel[grid](*args, **kwargs), through `direct` (from _direct) where there is one."""
    if direct is None:
        kernel[grid](*args, **kwargs)
    else:
        run, consts = direct
        run(*args, *consts)

def _skinny_wide__box(desc):
    return (list(desc.shape), list(desc.strides), list(desc.block_shape))

def _skinny_wide__record(key, recipe):
    if len(_skinny_wide__RECIPES) >= _skinny_wide__MAX_RECIPES:
        _skinny_wide__RECIPES.clear()
    _skinny_wide__RECIPES[key] = recipe

def _skinny_wide__same_tensors(pairs) -> bool:
    """Whether every view the launch took starts at its caller tensor's first element."""
    return all((not isinstance(v, torch.Tensor) or v.data_ptr() == t.data_ptr() for v, t in pairs))

def _skinny_wide__gemm_first(a, b, extras, use_tma, key):
    """_gemm for a call signature not seen yet: checks, views, the launch, and its recipe."""
    if a.dtype not in (torch.float32, torch.float16, torch.bfloat16) or b.dtype != a.dtype:
        raise TypeError(f'launch_linear_bias_gelu: unsupported dtypes {a.dtype} @ {b.dtype}')
    a3, b3, out_shape = _skinny_wide__as_3d(a, b)
    if use_tma is None:
        use_tma = _skinny_wide_tma_plan(a3, b3) == 'tma'
    if not use_tma:
        a3, b3 = (_skinny_wide__aligned(a3), _skinny_wide__aligned(b3))
    n_batch, m, k = a3.shape
    n = b3.shape[2]
    out = torch.empty(out_shape, dtype=a.dtype, device=a.device)
    if out.numel() == 0:
        return out
    c3 = out.reshape(n_batch, m, n)
    c_unit = _skinny_wide__output_unit(c3, _skinny_wide_BLOCK_N // _skinny_wide_EPILOGUE_SPLIT)
    epi, epi_strides, flags = _skinny_wide__epilogue_args(extras, out_shape, c3.shape, a)
    is_fp32 = a.dtype == torch.float32
    on_gpu = a.is_cuda
    upcast = a.dtype == torch.bfloat16 and (not on_gpu)
    stages = _skinny_wide_fp32_stages() if is_fp32 else _skinny_wide_NUM_STAGES
    tiles_m, tiles_n = (_skinny_wide__cdiv(m, _skinny_wide_BLOCK_M), _skinny_wide__cdiv(n, _skinny_wide_BLOCK_N))
    tiles = n_batch * tiles_m * tiles_n
    programs = tiles
    if _skinny_wide_PERSISTENT:
        programs = min(tiles, _skinny_wide__sm_count(max(a.get_device(), 0)) * _skinny_wide_PERSISTENT)
    if use_tma:
        a_desc, a_t = _skinny_wide__descriptor(a3[0], _skinny_wide_BLOCK_M, _skinny_wide_BLOCK_K)
        b_desc, b_t = _skinny_wide__descriptor(b3[0], _skinny_wide_BLOCK_K, _skinny_wide_BLOCK_N)
        args = (m, n // c_unit, k, c3.stride(0) // c_unit, c3.stride(1) // c_unit, *epi_strides)
        kwargs = dict(BLOCK_M=_skinny_wide_BLOCK_M, BLOCK_N=_skinny_wide_BLOCK_N, BLOCK_K=_skinny_wide_BLOCK_K, GROUP_M=_skinny_wide_GROUP_M, A_T=a_t, B_T=b_t, STAGES=stages, C_UNIT=c_unit, IS_FP32=is_fp32, UPCAST_BF16=upcast, ON_GPU=on_gpu, num_warps=_skinny_wide_NUM_WARPS, num_stages=stages, **flags, num_ctas=1 if b_t else _skinny_wide_NUM_CTAS)
        launch = (a_desc, b_desc, c3, *epi, *args)
        kwargs, compiled = _skinny_wide__launch_fitting(_skinny_wide__gemm_tma_kernel, (programs,), launch, kwargs, c3)
        if _skinny_wide__same_tensors([(a_desc.base, a), (b_desc.base, b), *zip(epi, extras)]):
            _skinny_wide__record(key, ('tma', out_shape, (programs,), (_skinny_wide__box(a_desc), _skinny_wide__box(b_desc)), args, kwargs, _skinny_wide__direct(compiled, _skinny_wide__gemm_tma_kernel, (programs,), len(launch), kwargs)))
        return out
    k_tiles = _skinny_wide__cdiv(k, _skinny_wide_BLOCK_K)
    split = 1 if _skinny_wide_PERSISTENT else max(1, min(_skinny_wide_SPLIT_K, k_tiles))
    k_per_split = _skinny_wide__cdiv(k_tiles, split) * _skinny_wide_BLOCK_K
    split = max(1, _skinny_wide__cdiv(k, k_per_split))
    ws_shape = (split, n_batch, m, n) if split > 1 else None
    workspace, locks = _skinny_wide__split_buffers(ws_shape, tiles, c3)
    biggest = max(a3.numel(), b3.numel(), c3.numel(), workspace.numel(), max((t.numel() for t in epi if isinstance(t, torch.Tensor)), default=0))
    grid = (programs,) if _skinny_wide_PERSISTENT else (tiles, split)
    args = (m, n // c_unit, k, n_batch, k_per_split, n_batch * m * n, a3.stride(0), a3.stride(1), a3.stride(2), b3.stride(0), b3.stride(1), b3.stride(2), c3.stride(0) // c_unit, c3.stride(1) // c_unit, *epi_strides)
    kwargs = dict(BLOCK_M=_skinny_wide_BLOCK_M, BLOCK_N=_skinny_wide_BLOCK_N, BLOCK_K=_skinny_wide_BLOCK_K, GROUP_M=_skinny_wide_GROUP_M, SPLIT_K=split, EVEN_M=m % _skinny_wide_BLOCK_M == 0 or (_skinny_wide_SHIFT_TAIL and m >= _skinny_wide_BLOCK_M), EVEN_N=n % _skinny_wide_BLOCK_N == 0, EVEN_K=k % _skinny_wide_BLOCK_K == 0, IS_FP32=is_fp32, UPCAST_BF16=upcast, ON_GPU=on_gpu, INDEX_64=biggest >= 2 ** 31, STAGES=stages, C_UNIT=c_unit, num_warps=_skinny_wide_NUM_WARPS, num_stages=stages, **flags)
    launch = (a3, b3, c3, workspace, locks, *epi, *args)
    kwargs, compiled = _skinny_wide__launch_fitting(_skinny_wide__gemm_kernel, grid, launch, kwargs, c3)
    if _skinny_wide__same_tensors([(a3, a), (b3, b), *zip(epi, extras)]):
        _skinny_wide__record(key, ('pointer', out_shape, grid, args, kwargs, ws_shape, tiles, _skinny_wide__direct(compiled, _skinny_wide__gemm_kernel, grid, len(launch), kwargs)))
    return out

def _skinny_wide__fit_stages(kernel, grid, args, kwargs, limit: int):
    """`kwargs` with the pipeline's stages lowered, one at a time, until the compiled kernel's
    shared memory fits `limit` (compiled, not launched: `warmup`); at one stage, as it is. float32
    tiles under a flattened tile loop or a sliced epilogue asked for 256-288 KB at the stages
    fp32_stages() allows, against 227 KB (H100, GPU round 46, bench/probe_gemm_default_gpu.py)."""
    while kwargs['num_stages'] > 1:
        if kernel.warmup(*args, grid=grid, **kwargs).metadata.shared <= limit:
            break
        stages = kwargs['num_stages'] - 1
        kwargs = {**kwargs, 'STAGES': stages, 'num_stages': stages}
    return kwargs

@functools.lru_cache(maxsize=None)
def _skinny_wide__shared_limit(device_index: int) -> int:
    return torch.cuda.get_device_properties(device_index).shared_memory_per_block_optin

def _skinny_wide__launch_fitting(kernel, grid, args, kwargs, out):
    """kernel[grid](*args, **kwargs), on a GPU with stages that fit its shared memory (_fit_stages);
    returns the keywords it ran with, which a recipe keeps, and the compiled kernel (None in the
    interpreter). `out`: the output, on the device."""
    if out.is_cuda:
        kwargs = _skinny_wide__fit_stages(kernel, grid, args, kwargs, _skinny_wide__shared_limit(out.get_device()))
    return (kwargs, kernel[grid](*args, **kwargs))

def _skinny_wide__operand(t, transposed: bool):
    return t.transpose(-2, -1) if transposed else t

def _skinny_wide_launch_linear_bias_gelu(a, b, in0):
    """linear_bias_gelu: epilogue(a @ b^T), one kernel launch."""
    return _skinny_wide__gemm(_skinny_wide__operand(a, _skinny_wide_A_TRANSPOSED), _skinny_wide__operand(b, _skinny_wide_B_TRANSPOSED), (in0,))

class _skinny_wide_ModelNew(torch.nn.Module):
    """Drop-in for the task's Model: the matmul and its epilogue in one kernel."""

    def __init__(self, *args, **kwargs):
        super().__init__()
        self.fc = torch.nn.Module()
        self.fc.weight = torch.nn.UninitializedParameter()
        self.fc.bias = torch.nn.UninitializedParameter()

    def forward(self, *args):
        return _skinny_wide_launch_linear_bias_gelu(args[0], self.fc.weight, self.fc.bias)

# skinny_rows: the kernels and launcher of the calls it routes (_skinny_wider_)

def _skinny_wider__cdiv(a: int, b: int) -> int:
    """ceil(a / b) for non-negative ints, on the host."""
    return -(-a // b)

def _skinny_wider__next_pow2(n: int) -> int:
    """The smallest power of two >= n, 0 for 0 (as triton.next_power_of_2), on the host."""
    return 1 << (n - 1).bit_length() if n > 0 else 0

def _skinny_wider__unit(values, data_ptr: int, itemsize: int) -> int:
    """The widest vector (elements, at most 16 bytes) that every offset and the base align to.
    A kernel takes its widths and strides divided by it and multiplies them back by the
    constexpr: Triton marks an int argument only when it is divisible by 16, so a 1000-wide
    bf16 row (2000 bytes, 16-byte aligned) would otherwise get 2-byte loads and stores."""
    unit = 16 // itemsize
    while unit > 1 and (any((v % unit for v in values)) or data_ptr % (unit * itemsize)):
        unit //= 2
    return unit
_skinny_wider_PARAMS = {'BLOCK_M': 64, 'BLOCK_N': 256, 'BLOCK_K': 64, 'GROUP_M': 4, 'num_warps': 8, 'num_stages': 5, 'SPLIT_K': 1, 'persistent': 0, 'use_tma': True, 'EPILOGUE_SPLIT': 1, 'flatten': False, 'gelu_erf_fit': False, 'skinny_rows': 0, 'odd_tiled': False, 'single_wave_tiled': False, 'fuse_norm': False, 'ws_pingpong': False, 'ws_coop': False, 'num_ctas': 1, 'swap_ab': False, 'shift_tail': True}
_skinny_wider_BLOCK_M = 64
_skinny_wider_BLOCK_N = 256
_skinny_wider_BLOCK_K = 64
_skinny_wider_EPILOGUE_SPLIT = 1
_skinny_wider_GROUP_M = 4
_skinny_wider_NUM_WARPS = 8
_skinny_wider_NUM_STAGES = 5
_skinny_wider_NUM_CTAS = 1
_skinny_wider_SPLIT_K = 1
_skinny_wider_PERSISTENT = 0
_skinny_wider_USE_TMA = True
_skinny_wider_SHIFT_TAIL = True
_skinny_wider_SKINNY_ROWS = 0
_skinny_wider_SKINNY_TILES = ((32, 64, 'skinny_narrow', 'one'), (32, 128, 'skinny_narrow_wide', 'one'), (64, 64, 'skinny', 'tile'), (64, 64, 'skinny_pointer', 'any'), (64, 128, 'skinny_wide', 'any'), (64, 256, 'skinny_wider', 'any'), (128, 128, 'skinny_large', 'any'))
_skinny_wider_DECODE_BLOCK_N = (32, 64, 128)
_skinny_wider_DECODE_ROWS = 16
_skinny_wider_ODD_TILED = False
_skinny_wider_SINGLE_WAVE_TILED = False
_skinny_wider_A_TRANSPOSED = False
_skinny_wider_B_TRANSPOSED = True
_skinny_wider_MAX_SHARED_BYTES = 227 * 1024

@triton.jit
def _skinny_wider__relu(x):
    return tl.where(x < 0.0, 0.0, x)

@triton.jit
def _skinny_wider__leaky_relu(x, slope):
    return tl.where(x > 0.0, x, x * slope)

@triton.jit
def _skinny_wider__expm1(x):
    series = x * (1.0 + x * (0.5 + x * (1.0 / 6.0 + x * (1.0 / 24.0 + x * (1.0 / 120.0)))))
    return tl.where(tl.abs(x) < 0.03125, series, tl.exp(x) - 1.0)

@triton.jit
def _skinny_wider__elu(x, alpha):
    return tl.where(x > 0.0, x, alpha * _skinny_wider__expm1(x))

@triton.jit
def _skinny_wider__sigmoid(x):
    return 1.0 / (1.0 + tl.exp(-x))

@triton.jit
def _skinny_wider__silu(x):
    return x / (1.0 + tl.exp(-x))

@triton.jit
def _skinny_wider__tanh(x):
    ax = tl.abs(x)
    t = tl.exp(-2.0 * ax)
    far = (1.0 - t) / (1.0 + t)
    x2 = ax * ax
    near = ax * (1.0 + x2 * (-1.0 / 3.0 + x2 * (2.0 / 15.0 + x2 * (-17.0 / 315.0))))
    r = tl.where(ax < 0.0625, near, far)
    return tl.where(x < 0.0, -r, r)

@triton.jit
def _skinny_wider__gelu_erf(x):
    return 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))

@triton.jit
def _skinny_wider__gelu_tanh(x):
    u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    return x / (1.0 + tl.exp(-2.0 * u))

@triton.jit
def _skinny_wider__log1p_unit(e):
    series = e * (1.0 - e * (0.5 - e * (1.0 / 3.0 - e * (0.25 - e * 0.2))))
    return tl.where(e < 0.03125, series, tl.log(1.0 + e))

@triton.jit
def _skinny_wider__softplus(x, beta, threshold):
    z = x * beta
    sp = tl.where(z > 0.0, z, 0.0) + _skinny_wider__log1p_unit(tl.exp(-tl.abs(z)))
    return tl.where(z > threshold, x, sp / beta)

@triton.jit
def _skinny_wider__mish(x):
    e = tl.exp(tl.where(x < 20.0, x, 20.0))
    n = e * (e + 2.0)
    return tl.where(x > 20.0, x, x * (n / (n + 2.0)))

@triton.jit
def _skinny_wider__clamp_min(x, lo):
    return tl.where(x < lo, lo, x)

@triton.jit
def _skinny_wider__clamp_max(x, hi):
    return tl.where(x > hi, hi, x)

@triton.jit
def _skinny_wider__clamp(x, lo, hi):
    return _skinny_wider__clamp_max(_skinny_wider__clamp_min(x, lo), hi)

@triton.jit
def _skinny_wider__hardsigmoid(x):
    return _skinny_wider__clamp(x + 3.0, 0.0, 6.0) / 6.0

@triton.jit
def _skinny_wider__hardswish(x):
    return x * _skinny_wider__clamp(x + 3.0, 0.0, 6.0) / 6.0

@triton.jit
def _skinny_wider__maximum(a, b):
    return tl.where((a > b) | (a != a), a, b)

@triton.jit
def _skinny_wider__minimum(a, b):
    return tl.where((a < b) | (a != a), a, b)

@triton.jit
def _skinny_wider__tile_coords(tile_id, tiles_m, tiles_n, GROUP_M: tl.constexpr):
    per_batch = tiles_m * tiles_n
    batch = tile_id // per_batch
    t = tile_id % per_batch
    in_group = GROUP_M * tiles_n
    first_m = t // in_group * GROUP_M
    group_rows = tl.minimum(tiles_m - first_m, GROUP_M)
    pid_m = first_m + t % in_group % group_rows
    pid_n = t % in_group // group_rows
    return (batch, pid_m, pid_n)

@triton.jit
def _skinny_wider__gemm_kernel(a_ptr, b_ptr, c_ptr, w_ptr, lock_ptr, in0, M, N, K, n_batch, k_per_split, w_slot, stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn, stride_cb, stride_cm, s0_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, SPLIT_K: tl.constexpr, EVEN_M: tl.constexpr, EVEN_N: tl.constexpr, EVEN_K: tl.constexpr, STAGES: tl.constexpr, C_UNIT: tl.constexpr, IS_FP32: tl.constexpr, UPCAST_BF16: tl.constexpr, ON_GPU: tl.constexpr, INDEX_64: tl.constexpr):
    N = N * C_UNIT
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    tile_id = pid
    pid_k = tl.program_id(1)
    batch, pid_m, pid_n = _skinny_wider__tile_coords(tile_id, tiles_m, tiles_n, GROUP_M)
    batch64 = batch.to(tl.int64)
    off_m = tl.maximum(tl.minimum(pid_m * BLOCK_M, M - BLOCK_M), 0)
    offs_m = off_m + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    if INDEX_64:
        offs_m = offs_m.to(tl.int64)
        offs_n = offs_n.to(tl.int64)
        offs_k = offs_k.to(tl.int64)
    k_start = pid_k * k_per_split
    k_end = tl.minimum(K, k_start + k_per_split)
    a_ptrs = a_ptr + batch64 * stride_ab + offs_m[:, None] * stride_am + (k_start + offs_k)[None, :] * stride_ak
    b_ptrs = b_ptr + batch64 * stride_bb + (k_start + offs_k)[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    k_full = k_start + (k_end - k_start) // BLOCK_K * BLOCK_K
    for k in tl.range(k_start, k_full, BLOCK_K, num_stages=STAGES):
        if EVEN_M:
            a = tl.load(a_ptrs)
        else:
            a = tl.load(a_ptrs, mask=offs_m[:, None] < M, other=0.0)
        if EVEN_N:
            b = tl.load(b_ptrs)
        else:
            b = tl.load(b_ptrs, mask=offs_n[None, :] < N, other=0.0)
        if IS_FP32:
            part = tl.dot(a, b, input_precision='ieee')
            if ON_GPU:
                acc = tl.inline_asm_elementwise('add.rn.f32 $0, $1, $2;', '=r,r,r', [acc, part], dtype=tl.float32, is_pure=True, pack=1)
            else:
                acc = acc + part
        elif UPCAST_BF16:
            acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision='ieee')
        else:
            acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    if not EVEN_K:
        if k_full < k_end:
            a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & ((k_full + offs_k)[None, :] < k_end), other=0.0)
            b = tl.load(b_ptrs, mask=((k_full + offs_k)[:, None] < k_end) & (offs_n[None, :] < N), other=0.0)
            if IS_FP32:
                part = tl.dot(a, b, input_precision='ieee')
                if ON_GPU:
                    acc = tl.inline_asm_elementwise('add.rn.f32 $0, $1, $2;', '=r,r,r', [acc, part], dtype=tl.float32, is_pure=True, pack=1)
                else:
                    acc = acc + part
            elif UPCAST_BF16:
                acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision='ieee')
            else:
                acc = tl.dot(a, b, acc)
    if SPLIT_K > 1:
        w_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
        w_tile = w_ptr + (batch64 * M + offs_m[:, None]) * N + offs_n[None, :]
        tl.store(w_tile + pid_k.to(tl.int64) * w_slot, acc, mask=w_mask)
        tl.debug_barrier()
        arrived = tl.atomic_add(lock_ptr + tile_id, 1, sem='acq_rel')
        if arrived == SPLIT_K - 1:
            acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
            for s in tl.static_range(SPLIT_K):
                acc += tl.load(w_tile, mask=w_mask, other=0.0, cache_modifier='.cg')
                w_tile += w_slot
            c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
            x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
            t0 = acc + x0
            t1 = _skinny_wider__gelu_erf(t0)
            if C_UNIT > 1:
                c_cols = tl.max_contiguous(offs_n, C_UNIT)
            else:
                c_cols = offs_n
            c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
            tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)
    else:
        c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
        x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
        t0 = acc + x0
        t1 = _skinny_wider__gelu_erf(t0)
        if C_UNIT > 1:
            c_cols = tl.max_contiguous(offs_n, C_UNIT)
        else:
            c_cols = offs_n
        c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
        tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)

@triton.jit
def _skinny_wider__gemm_tma_kernel(a_desc, b_desc, c_ptr, in0, M, N, K, stride_cb, stride_cm, s0_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, A_T: tl.constexpr, B_T: tl.constexpr, STAGES: tl.constexpr, C_UNIT: tl.constexpr, IS_FP32: tl.constexpr, UPCAST_BF16: tl.constexpr, ON_GPU: tl.constexpr):
    N = N * C_UNIT
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    tile_id = pid
    batch, pid_m, pid_n = _skinny_wider__tile_coords(tile_id, tiles_m, tiles_n, GROUP_M)
    batch64 = batch.to(tl.int64)
    off_m = tl.maximum(tl.minimum(pid_m * BLOCK_M, M - BLOCK_M), 0)
    off_n = pid_n * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, K, BLOCK_K, num_stages=STAGES):
        if A_T:
            a = a_desc.load([k, off_m]).T
        else:
            a = a_desc.load([off_m, k])
        if B_T:
            b = b_desc.load([off_n, k]).T
        else:
            b = b_desc.load([k, off_n])
        if IS_FP32:
            part = tl.dot(a, b, input_precision='ieee')
            if ON_GPU:
                acc = tl.inline_asm_elementwise('add.rn.f32 $0, $1, $2;', '=r,r,r', [acc, part], dtype=tl.float32, is_pure=True, pack=1)
            else:
                acc = acc + part
        elif UPCAST_BF16:
            acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision='ieee')
        else:
            acc = tl.dot(a, b, acc)
    offs_m = off_m + tl.arange(0, BLOCK_M)
    offs_n = off_n + tl.arange(0, BLOCK_N)
    c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
    t0 = acc + x0
    t1 = _skinny_wider__gelu_erf(t0)
    if C_UNIT > 1:
        c_cols = tl.max_contiguous(offs_n, C_UNIT)
    else:
        c_cols = offs_n
    c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
    tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)

@functools.lru_cache(maxsize=None)
def _skinny_wider__sm_count(device_index: int) -> int:
    if not torch.cuda.is_available():
        return 4
    return torch.cuda.get_device_properties(device_index).multi_processor_count

def _skinny_wider__as_3d(a, b):
    """(A as (batch, M, K), B as (batch, K, N), the output's shape); views where strides allow."""
    if a.dim() < 2 or b.dim() < 2:
        raise ValueError(f'launch_linear_bias_gelu: operands must have 2 or more dims, got {tuple(a.shape)} and {tuple(b.shape)}')
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f'launch_linear_bias_gelu: inner dims differ: {tuple(a.shape)} @ {tuple(b.shape)}')
    m, k, n = (a.shape[-2], a.shape[-1], b.shape[-1])
    if b.dim() == 2:
        out_shape = (*a.shape[:-1], n)
        return (a.reshape(1, -1, k), b.unsqueeze(0), out_shape)
    if a.dim() == 2:
        b3 = b.reshape(-1, k, n)
        return (a.unsqueeze(0).expand(b3.shape[0], m, k), b3, (*b.shape[:-2], m, n))
    if a.shape[:-2] != b.shape[:-2]:
        raise ValueError(f'launch_linear_bias_gelu: batch dims differ ({tuple(a.shape[:-2])} vs {tuple(b.shape[:-2])}); broadcast batch dims are not covered')
    return (a.reshape(-1, m, k), b.reshape(-1, k, n), (*a.shape[:-2], m, n))

@triton.jit
def _skinny_wider__pad_copy_kernel(src, dst, R, C, s_b, s_r, s_c, d_b, d_r, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    pid_b = tl.program_id(2).to(tl.int64)
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (rows[:, None] < R) & (cols[None, :] < C)
    rows64 = rows.to(tl.int64)
    x = tl.load(src + pid_b * s_b + rows64[:, None] * s_r + cols[None, :] * s_c, mask=mask)
    tl.store(dst + pid_b * d_b + rows64[:, None] * d_r + cols[None, :], x, mask=mask)

def _skinny_wider__unaligned(t3) -> bool:
    """Whether the pointer kernel would read t3 (batch, R, C) through a padded copy (_aligned):
    a unit-stride dim whose rows (or, with batches, batch stride) are not a multiple of 16
    elements, or a base that is not 16-byte aligned. Neither dim contiguous: read as it is."""
    if t3.stride(2) == 1 or t3.shape[2] == 1:
        lead_dim = 1
    elif t3.stride(1) == 1 or t3.shape[1] == 1:
        return _skinny_wider__unaligned(t3.transpose(1, 2))
    else:
        return False
    strides_ok = t3.stride(lead_dim) % 16 == 0 and (t3.shape[0] == 1 or t3.stride(0) % 16 == 0)
    return not (strides_ok and t3.data_ptr() % 16 == 0)

def _skinny_wider__aligned(t3):
    """t3 (batch, R, C) read by the GEMM; when its row stride is not a multiple of 16 elements
    (a width of 4097, or of 1000), a copy into rows padded to 16 elements, viewed at the original
    width. Triton vectorizes a tile load only along rows whose stride it can prove to be a
    multiple of 16 elements; scalar loads cost the GEMM several times the copy (on an H100,
    4095x4097x4093 took 5.9 ms, bench/results/runs/tune-h100-gemm-attention.json; gelu(linear) at
    4099 x 3073 x 1000 took 0.99 ms with rows of 1000 and 0.09 ms with rows of 1024,
    bench/results/gemm-odd-h100.json). Where descriptor loads are available the launcher takes
    them for such operands instead (tma_plan), and this copy is the fallback."""
    if not _skinny_wider__unaligned(t3):
        return t3
    if not (t3.stride(2) == 1 or t3.shape[2] == 1):
        return _skinny_wider__aligned(t3.transpose(1, 2)).transpose(1, 2)
    elem = 16
    batch, rows, cols = t3.shape
    padded = _skinny_wider__cdiv(cols, elem) * elem
    out = torch.empty((batch, rows, padded), dtype=t3.dtype, device=t3.device)
    grid = (_skinny_wider__cdiv(rows, 32), _skinny_wider__cdiv(cols, 128), batch)
    _skinny_wider__pad_copy_kernel[grid](t3, out, rows, cols, t3.stride(0), t3.stride(1), t3.stride(2), out.stride(0), out.stride(1), BLOCK_R=32, BLOCK_C=128, num_warps=4)
    return out[:, :, :cols]
_skinny_wider_TMA_AVAILABLE = hasattr(tl, 'tensor_descriptor') and hasattr(TensorDescriptor, 'from_tensor')

@functools.lru_cache(maxsize=None)
def _skinny_wider__capability(device_index: int) -> tuple[int, int]:
    return torch.cuda.get_device_capability(device_index)

def _skinny_wider__tma_refused(t: torch.Tensor, wanted: bool=_skinny_wider_USE_TMA) -> str | None:
    """Why no call on `t`'s device takes descriptor loads under this config, or None."""
    if not wanted:
        return 'config: use_tma is off'
    if not _skinny_wider_TMA_AVAILABLE:
        return 'the installed Triton has no tensor descriptors'
    if not t.is_cuda:
        return "not a CUDA device (Triton's interpreter runs the pointer kernel)"
    if _skinny_wider__capability(t.get_device())[0] < 9:
        return 'TMA needs compute capability 9.0 or newer'
    return None

def _skinny_wider_tma_plan(a3, b3) -> str:
    """"tma" when this call takes the TMA kernel, else why it takes the pointer kernel.

    With use_tma off, a call whose A or B rows would need a padded copy for the pointer kernel
    (rows of 1000 or 3073 elements, say: 16-byte aligned, not 16-element aligned) takes the
    descriptor kernel where it can: it reads such rows in place at full speed, where the copy
    costs a kernel and a buffer (at 4099 x 1000 -> 3073 on an H100, 0.098 ms against 0.376 ms
    padded, bench/results/gemm-odd-h100.json). Not under split-K, which the TMA kernel lacks,
    and for 16-bit operands only: float32 through descriptors at the default 128x256x64 tiles
    needs 256 KB of shared memory and does not compile (runs/probe-fp32-tma-h100.txt)."""
    odd_rows = not _skinny_wider_USE_TMA and _skinny_wider_SPLIT_K == 1 and (a3.element_size() == 2) and (_skinny_wider__unaligned(a3) or _skinny_wider__unaligned(b3))
    refused = _skinny_wider__tma_refused(a3, _skinny_wider_USE_TMA or odd_rows)
    if refused:
        return refused
    if a3.shape[0] != 1:
        return 'batched operands (the TMA kernel is 2-D)'
    for name, t in (('A', a3[0]), ('B', b3[0])):
        if t.stride(-1) != 1 and t.stride(-2) != 1:
            return f'{name} has no unit stride'
        outer = t.stride(-2) if t.stride(-1) == 1 else t.stride(-1)
        if t.data_ptr() % 16 or outer * t.element_size() % 16:
            return f"{name}'s base or row stride is not 16-byte aligned"
    return 'tma'

class _skinny_wider__RecordedDescriptor(TensorDescriptor):
    """A descriptor of a recorded launch (_gemm's recipe), built without TensorDescriptor's
    checks: the recipe's key (the caller's shapes, strides, dtypes and 16-byte alignment) fixes
    all those checks read, and the recording call's descriptors passed them. Building the two
    descriptors with the checks took 6 us of an H100 host's time a call
    (bench/results/probe-host-parts-h100.json)."""

    def __init__(self, base, shape, strides, block_shape):
        self.base, self.shape, self.strides, self.block_shape = (base, shape, strides, block_shape)

def _skinny_wider__descriptor(t, rows_block: int, cols_block: int):
    """A descriptor over 2-D `t` and whether the kernel must transpose what it loads."""
    if t.stride(-1) == 1:
        return (TensorDescriptor(t, list(t.shape), [t.stride(0), 1], [rows_block, cols_block]), False)
    return (TensorDescriptor(t, [t.shape[1], t.shape[0]], [t.stride(1), 1], [cols_block, rows_block]), True)

def _skinny_wider__epilogue_args(extras, out_shape, c_shape, like):
    """The epilogue's operands, checked, and their strides, in the kernels' argument order."""
    args, strides, flags = ([], [], {})
    n = c_shape[2]
    t = extras[0]
    if t.dim() != 1 or t.shape[0] != n or t.dtype != like.dtype:
        raise ValueError(f'launch_linear_bias_gelu: epilogue input 0 is {tuple(t.shape)} {t.dtype}; expected ({n},) {like.dtype}, broadcast along N')
    strides.append(t.stride(0))
    args.append(t)
    return (args, strides, flags)

def _skinny_wider_fp32_stages(stages: int=_skinny_wider_NUM_STAGES) -> int:
    """Pipeline stages of an fp32 launch: NUM_STAGES, lowered until 4-byte tiles fit. A loop
    pipelined in n stages keeps n - 1 tiles of A and B in shared memory (Triton 3.6 asked for
    8 x 48 KB at 9 stages of 128x64x64 fp32 tiles, runs/gpu-tests-h100-round17.txt)."""
    per_stage = (_skinny_wider_BLOCK_M * _skinny_wider_BLOCK_K + _skinny_wider_BLOCK_K * _skinny_wider_BLOCK_N) * 4
    return max(1, min(stages, _skinny_wider_MAX_SHARED_BYTES // per_stage + 1))
_skinny_wider__RECIPES = {}
_skinny_wider__MAX_RECIPES = 256

def _skinny_wider__signature(a, b, extras, use_tma):
    return (a.shape, a.stride(), b.shape, b.stride(), a.dtype, b.dtype, a.device, a.data_ptr() % 16, b.data_ptr() % 16, use_tma, tuple(((t.shape, t.stride(), t.dtype, t.data_ptr() % 16) if isinstance(t, torch.Tensor) else type(t) for t in extras)))

def _skinny_wider__output_unit(c3, cols: int) -> int:
    """C_UNIT of a launch that writes c3 (batch, M, N), a new contiguous tensor, in stores
    `cols` columns wide: the widest vector (elements, at most 16 bytes) that N and c3's base align
    to, and so its strides (M * N, N), but not one that makes exactly 32 vectors of a store's row.
    Triton lays such a store out one row per warp, every warp on rows of its own, and on an H100
    that store was the slow one at every tile and slice width timed: TILED's 128x256 tiles at
    1000x1024->3000 took 23.0 us a call in 16-byte vectors and 18.9 in 8-byte ones (2-byte: 19.5),
    128x128 tiles 20.4 in 8-byte vectors against 18.3-18.5 in 4- or 16-byte ones
    (bench/results/runs/probe-gemm-store-h100-round171.json); at 1000x1024->4096, where Triton
    took 16 bytes by itself, TILED took 23.6 us and TILED in two epilogue slices 19.7
    (bench/results/probe-gemm-parts-h100.json). The kernels take N and those strides divided by
    the unit (unit_width) and store vectors of at most a unit (store_cols)."""
    unit = _skinny_wider__unit((c3.shape[2],), c3.data_ptr(), c3.element_size())
    if unit > 1 and cols // unit == 32:
        unit //= 2
    return unit

def _skinny_wider__split_buffers(ws_shape, tiles: int, like):
    """Split-K's fp32 partials (SPLIT_K, batch, M, N) and one zeroed arrival counter per output
    tile, new for every call (so two launches on two streams never share them); without split-K,
    placeholders the kernel never touches."""
    if ws_shape is None:
        return (like, like)
    return (torch.empty(ws_shape, dtype=torch.float32, device=like.device), torch.zeros(tiles, dtype=torch.int32, device=like.device))

def _skinny_wider__gemm(a, b, extras, use_tma=None, key=None):
    """epilogue(a @ b) for a (..., M, K), b (..., K, N) of one dtype; `use_tma` None: tma_plan.
    `key`: the call's _signature, where the caller has it."""
    if key is None:
        key = _skinny_wider__signature(a, b, extras, use_tma)
    recipe = _skinny_wider__RECIPES.get(key)
    if recipe is None:
        return _skinny_wider__gemm_first(a, b, extras, use_tma, key)
    epi = [t if isinstance(t, torch.Tensor) else float(t) for t in extras]
    if recipe[0] == 'tma':
        _, out_shape, grid, (a_box, b_box), args, kwargs, direct = recipe
        out = torch.empty(out_shape, dtype=a.dtype, device=a.device)
        _skinny_wider__run(_skinny_wider__gemm_tma_kernel, grid, direct, (_skinny_wider__RecordedDescriptor(a, *a_box), _skinny_wider__RecordedDescriptor(b, *b_box), out, *epi, *args), kwargs)
        return out
    _, out_shape, grid, args, kwargs, ws_shape, tiles, direct = recipe
    out = torch.empty(out_shape, dtype=a.dtype, device=a.device)
    workspace, locks = _skinny_wider__split_buffers(ws_shape, tiles, out)
    _skinny_wider__run(_skinny_wider__gemm_kernel, grid, direct, (a, b, out, workspace, locks, *epi, *args), kwargs)
    return out

def _skinny_wider__direct(compiled, kernel, grid, n_args: int, kwargs):
    """A recorded launch through the compiled kernel's own launcher: (the launcher over `grid`,
    the values of the kernel's parameters after its first `n_args`, all passed as keywords), or
    None in Triton's interpreter or where a parameter was left to its default.
    `kernel[grid](...)` binds and specializes every argument again on each call; a recipe's key
    (shapes, strides, dtypes, device, 16-byte alignment) already fixes all that specialization
    depends on, and its sizes and strides are the first call's. The verifier counts these
    launches as it counts `kernel[grid](...)` (verifier/runtime.py)."""
    if compiled is None:
        return None
    rest = kernel.arg_names[n_args:]
    if any((name not in kwargs for name in rest)):
        return None
    return (compiled[(*grid, 1, 1)[:3]], tuple((kwargs[name] for name in rest)))

def _skinny_wider__run(kernel, grid, direct, args, kwargs):
    """kernel[grid](*args, **kwargs), through `direct` (from _direct) where there is one."""
    if direct is None:
        kernel[grid](*args, **kwargs)
    else:
        run, consts = direct
        run(*args, *consts)

def _skinny_wider__box(desc):
    return (list(desc.shape), list(desc.strides), list(desc.block_shape))

def _skinny_wider__record(key, recipe):
    if len(_skinny_wider__RECIPES) >= _skinny_wider__MAX_RECIPES:
        _skinny_wider__RECIPES.clear()
    _skinny_wider__RECIPES[key] = recipe

def _skinny_wider__same_tensors(pairs) -> bool:
    """Whether every view the launch took starts at its caller tensor's first element."""
    return all((not isinstance(v, torch.Tensor) or v.data_ptr() == t.data_ptr() for v, t in pairs))

def _skinny_wider__gemm_first(a, b, extras, use_tma, key):
    """_gemm for a call signature not seen yet: checks, views, the launch, and its recipe."""
    if a.dtype not in (torch.float32, torch.float16, torch.bfloat16) or b.dtype != a.dtype:
        raise TypeError(f'launch_linear_bias_gelu: unsupported dtypes {a.dtype} @ {b.dtype}')
    a3, b3, out_shape = _skinny_wider__as_3d(a, b)
    if use_tma is None:
        use_tma = _skinny_wider_tma_plan(a3, b3) == 'tma'
    if not use_tma:
        a3, b3 = (_skinny_wider__aligned(a3), _skinny_wider__aligned(b3))
    n_batch, m, k = a3.shape
    n = b3.shape[2]
    out = torch.empty(out_shape, dtype=a.dtype, device=a.device)
    if out.numel() == 0:
        return out
    c3 = out.reshape(n_batch, m, n)
    c_unit = _skinny_wider__output_unit(c3, _skinny_wider_BLOCK_N // _skinny_wider_EPILOGUE_SPLIT)
    epi, epi_strides, flags = _skinny_wider__epilogue_args(extras, out_shape, c3.shape, a)
    is_fp32 = a.dtype == torch.float32
    on_gpu = a.is_cuda
    upcast = a.dtype == torch.bfloat16 and (not on_gpu)
    stages = _skinny_wider_fp32_stages() if is_fp32 else _skinny_wider_NUM_STAGES
    tiles_m, tiles_n = (_skinny_wider__cdiv(m, _skinny_wider_BLOCK_M), _skinny_wider__cdiv(n, _skinny_wider_BLOCK_N))
    tiles = n_batch * tiles_m * tiles_n
    programs = tiles
    if _skinny_wider_PERSISTENT:
        programs = min(tiles, _skinny_wider__sm_count(max(a.get_device(), 0)) * _skinny_wider_PERSISTENT)
    if use_tma:
        a_desc, a_t = _skinny_wider__descriptor(a3[0], _skinny_wider_BLOCK_M, _skinny_wider_BLOCK_K)
        b_desc, b_t = _skinny_wider__descriptor(b3[0], _skinny_wider_BLOCK_K, _skinny_wider_BLOCK_N)
        args = (m, n // c_unit, k, c3.stride(0) // c_unit, c3.stride(1) // c_unit, *epi_strides)
        kwargs = dict(BLOCK_M=_skinny_wider_BLOCK_M, BLOCK_N=_skinny_wider_BLOCK_N, BLOCK_K=_skinny_wider_BLOCK_K, GROUP_M=_skinny_wider_GROUP_M, A_T=a_t, B_T=b_t, STAGES=stages, C_UNIT=c_unit, IS_FP32=is_fp32, UPCAST_BF16=upcast, ON_GPU=on_gpu, num_warps=_skinny_wider_NUM_WARPS, num_stages=stages, **flags, num_ctas=1 if b_t else _skinny_wider_NUM_CTAS)
        launch = (a_desc, b_desc, c3, *epi, *args)
        kwargs, compiled = _skinny_wider__launch_fitting(_skinny_wider__gemm_tma_kernel, (programs,), launch, kwargs, c3)
        if _skinny_wider__same_tensors([(a_desc.base, a), (b_desc.base, b), *zip(epi, extras)]):
            _skinny_wider__record(key, ('tma', out_shape, (programs,), (_skinny_wider__box(a_desc), _skinny_wider__box(b_desc)), args, kwargs, _skinny_wider__direct(compiled, _skinny_wider__gemm_tma_kernel, (programs,), len(launch), kwargs)))
        return out
    k_tiles = _skinny_wider__cdiv(k, _skinny_wider_BLOCK_K)
    split = 1 if _skinny_wider_PERSISTENT else max(1, min(_skinny_wider_SPLIT_K, k_tiles))
    k_per_split = _skinny_wider__cdiv(k_tiles, split) * _skinny_wider_BLOCK_K
    split = max(1, _skinny_wider__cdiv(k, k_per_split))
    ws_shape = (split, n_batch, m, n) if split > 1 else None
    workspace, locks = _skinny_wider__split_buffers(ws_shape, tiles, c3)
    biggest = max(a3.numel(), b3.numel(), c3.numel(), workspace.numel(), max((t.numel() for t in epi if isinstance(t, torch.Tensor)), default=0))
    grid = (programs,) if _skinny_wider_PERSISTENT else (tiles, split)
    args = (m, n // c_unit, k, n_batch, k_per_split, n_batch * m * n, a3.stride(0), a3.stride(1), a3.stride(2), b3.stride(0), b3.stride(1), b3.stride(2), c3.stride(0) // c_unit, c3.stride(1) // c_unit, *epi_strides)
    kwargs = dict(BLOCK_M=_skinny_wider_BLOCK_M, BLOCK_N=_skinny_wider_BLOCK_N, BLOCK_K=_skinny_wider_BLOCK_K, GROUP_M=_skinny_wider_GROUP_M, SPLIT_K=split, EVEN_M=m % _skinny_wider_BLOCK_M == 0 or (_skinny_wider_SHIFT_TAIL and m >= _skinny_wider_BLOCK_M), EVEN_N=n % _skinny_wider_BLOCK_N == 0, EVEN_K=k % _skinny_wider_BLOCK_K == 0, IS_FP32=is_fp32, UPCAST_BF16=upcast, ON_GPU=on_gpu, INDEX_64=biggest >= 2 ** 31, STAGES=stages, C_UNIT=c_unit, num_warps=_skinny_wider_NUM_WARPS, num_stages=stages, **flags)
    launch = (a3, b3, c3, workspace, locks, *epi, *args)
    kwargs, compiled = _skinny_wider__launch_fitting(_skinny_wider__gemm_kernel, grid, launch, kwargs, c3)
    if _skinny_wider__same_tensors([(a3, a), (b3, b), *zip(epi, extras)]):
        _skinny_wider__record(key, ('pointer', out_shape, grid, args, kwargs, ws_shape, tiles, _skinny_wider__direct(compiled, _skinny_wider__gemm_kernel, grid, len(launch), kwargs)))
    return out

def _skinny_wider__fit_stages(kernel, grid, args, kwargs, limit: int):
    """`kwargs` with the pipeline's stages lowered, one at a time, until the compiled kernel's
    shared memory fits `limit` (compiled, not launched: `warmup`); at one stage, as it is. float32
    tiles under a flattened tile loop or a sliced epilogue asked for 256-288 KB at the stages
    fp32_stages() allows, against 227 KB (H100, GPU round 46, bench/probe_gemm_default_gpu.py)."""
    while kwargs['num_stages'] > 1:
        if kernel.warmup(*args, grid=grid, **kwargs).metadata.shared <= limit:
            break
        stages = kwargs['num_stages'] - 1
        kwargs = {**kwargs, 'STAGES': stages, 'num_stages': stages}
    return kwargs

@functools.lru_cache(maxsize=None)
def _skinny_wider__shared_limit(device_index: int) -> int:
    return torch.cuda.get_device_properties(device_index).shared_memory_per_block_optin

def _skinny_wider__launch_fitting(kernel, grid, args, kwargs, out):
    """kernel[grid](*args, **kwargs), on a GPU with stages that fit its shared memory (_fit_stages);
    returns the keywords it ran with, which a recipe keeps, and the compiled kernel (None in the
    interpreter). `out`: the output, on the device."""
    if out.is_cuda:
        kwargs = _skinny_wider__fit_stages(kernel, grid, args, kwargs, _skinny_wider__shared_limit(out.get_device()))
    return (kwargs, kernel[grid](*args, **kwargs))

def _skinny_wider__operand(t, transposed: bool):
    return t.transpose(-2, -1) if transposed else t

def _skinny_wider_launch_linear_bias_gelu(a, b, in0):
    """linear_bias_gelu: epilogue(a @ b^T), one kernel launch."""
    return _skinny_wider__gemm(_skinny_wider__operand(a, _skinny_wider_A_TRANSPOSED), _skinny_wider__operand(b, _skinny_wider_B_TRANSPOSED), (in0,))

class _skinny_wider_ModelNew(torch.nn.Module):
    """Drop-in for the task's Model: the matmul and its epilogue in one kernel."""

    def __init__(self, *args, **kwargs):
        super().__init__()
        self.fc = torch.nn.Module()
        self.fc.weight = torch.nn.UninitializedParameter()
        self.fc.bias = torch.nn.UninitializedParameter()

    def forward(self, *args):
        return _skinny_wider_launch_linear_bias_gelu(args[0], self.fc.weight, self.fc.bias)

# skinny_rows: the kernels and launcher of the calls it routes (_skinny_large_)

def _skinny_large__cdiv(a: int, b: int) -> int:
    """ceil(a / b) for non-negative ints, on the host."""
    return -(-a // b)

def _skinny_large__next_pow2(n: int) -> int:
    """The smallest power of two >= n, 0 for 0 (as triton.next_power_of_2), on the host."""
    return 1 << (n - 1).bit_length() if n > 0 else 0

def _skinny_large__unit(values, data_ptr: int, itemsize: int) -> int:
    """The widest vector (elements, at most 16 bytes) that every offset and the base align to.
    A kernel takes its widths and strides divided by it and multiplies them back by the
    constexpr: Triton marks an int argument only when it is divisible by 16, so a 1000-wide
    bf16 row (2000 bytes, 16-byte aligned) would otherwise get 2-byte loads and stores."""
    unit = 16 // itemsize
    while unit > 1 and (any((v % unit for v in values)) or data_ptr % (unit * itemsize)):
        unit //= 2
    return unit
_skinny_large_PARAMS = {'BLOCK_M': 128, 'BLOCK_N': 128, 'BLOCK_K': 128, 'GROUP_M': 1, 'num_warps': 8, 'num_stages': 3, 'SPLIT_K': 1, 'persistent': 0, 'use_tma': True, 'EPILOGUE_SPLIT': 1, 'flatten': False, 'gelu_erf_fit': False, 'skinny_rows': 0, 'odd_tiled': False, 'single_wave_tiled': False, 'fuse_norm': False, 'ws_pingpong': False, 'ws_coop': False, 'num_ctas': 1, 'swap_ab': False, 'shift_tail': False}
_skinny_large_BLOCK_M = 128
_skinny_large_BLOCK_N = 128
_skinny_large_BLOCK_K = 128
_skinny_large_EPILOGUE_SPLIT = 1
_skinny_large_GROUP_M = 1
_skinny_large_NUM_WARPS = 8
_skinny_large_NUM_STAGES = 3
_skinny_large_NUM_CTAS = 1
_skinny_large_SPLIT_K = 1
_skinny_large_PERSISTENT = 0
_skinny_large_USE_TMA = True
_skinny_large_SHIFT_TAIL = False
_skinny_large_SKINNY_ROWS = 0
_skinny_large_SKINNY_TILES = ((32, 64, 'skinny_narrow', 'one'), (32, 128, 'skinny_narrow_wide', 'one'), (64, 64, 'skinny', 'tile'), (64, 64, 'skinny_pointer', 'any'), (64, 128, 'skinny_wide', 'any'), (64, 256, 'skinny_wider', 'any'), (128, 128, 'skinny_large', 'any'))
_skinny_large_DECODE_BLOCK_N = (32, 64, 128)
_skinny_large_DECODE_ROWS = 16
_skinny_large_ODD_TILED = False
_skinny_large_SINGLE_WAVE_TILED = False
_skinny_large_A_TRANSPOSED = False
_skinny_large_B_TRANSPOSED = True
_skinny_large_MAX_SHARED_BYTES = 227 * 1024

@triton.jit
def _skinny_large__relu(x):
    return tl.where(x < 0.0, 0.0, x)

@triton.jit
def _skinny_large__leaky_relu(x, slope):
    return tl.where(x > 0.0, x, x * slope)

@triton.jit
def _skinny_large__expm1(x):
    series = x * (1.0 + x * (0.5 + x * (1.0 / 6.0 + x * (1.0 / 24.0 + x * (1.0 / 120.0)))))
    return tl.where(tl.abs(x) < 0.03125, series, tl.exp(x) - 1.0)

@triton.jit
def _skinny_large__elu(x, alpha):
    return tl.where(x > 0.0, x, alpha * _skinny_large__expm1(x))

@triton.jit
def _skinny_large__sigmoid(x):
    return 1.0 / (1.0 + tl.exp(-x))

@triton.jit
def _skinny_large__silu(x):
    return x / (1.0 + tl.exp(-x))

@triton.jit
def _skinny_large__tanh(x):
    ax = tl.abs(x)
    t = tl.exp(-2.0 * ax)
    far = (1.0 - t) / (1.0 + t)
    x2 = ax * ax
    near = ax * (1.0 + x2 * (-1.0 / 3.0 + x2 * (2.0 / 15.0 + x2 * (-17.0 / 315.0))))
    r = tl.where(ax < 0.0625, near, far)
    return tl.where(x < 0.0, -r, r)

@triton.jit
def _skinny_large__gelu_erf(x):
    return 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))

@triton.jit
def _skinny_large__gelu_tanh(x):
    u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    return x / (1.0 + tl.exp(-2.0 * u))

@triton.jit
def _skinny_large__log1p_unit(e):
    series = e * (1.0 - e * (0.5 - e * (1.0 / 3.0 - e * (0.25 - e * 0.2))))
    return tl.where(e < 0.03125, series, tl.log(1.0 + e))

@triton.jit
def _skinny_large__softplus(x, beta, threshold):
    z = x * beta
    sp = tl.where(z > 0.0, z, 0.0) + _skinny_large__log1p_unit(tl.exp(-tl.abs(z)))
    return tl.where(z > threshold, x, sp / beta)

@triton.jit
def _skinny_large__mish(x):
    e = tl.exp(tl.where(x < 20.0, x, 20.0))
    n = e * (e + 2.0)
    return tl.where(x > 20.0, x, x * (n / (n + 2.0)))

@triton.jit
def _skinny_large__clamp_min(x, lo):
    return tl.where(x < lo, lo, x)

@triton.jit
def _skinny_large__clamp_max(x, hi):
    return tl.where(x > hi, hi, x)

@triton.jit
def _skinny_large__clamp(x, lo, hi):
    return _skinny_large__clamp_max(_skinny_large__clamp_min(x, lo), hi)

@triton.jit
def _skinny_large__hardsigmoid(x):
    return _skinny_large__clamp(x + 3.0, 0.0, 6.0) / 6.0

@triton.jit
def _skinny_large__hardswish(x):
    return x * _skinny_large__clamp(x + 3.0, 0.0, 6.0) / 6.0

@triton.jit
def _skinny_large__maximum(a, b):
    return tl.where((a > b) | (a != a), a, b)

@triton.jit
def _skinny_large__minimum(a, b):
    return tl.where((a < b) | (a != a), a, b)

@triton.jit
def _skinny_large__tile_coords(tile_id, tiles_m, tiles_n, GROUP_M: tl.constexpr):
    per_batch = tiles_m * tiles_n
    batch = tile_id // per_batch
    t = tile_id % per_batch
    in_group = GROUP_M * tiles_n
    first_m = t // in_group * GROUP_M
    group_rows = tl.minimum(tiles_m - first_m, GROUP_M)
    pid_m = first_m + t % in_group % group_rows
    pid_n = t % in_group // group_rows
    return (batch, pid_m, pid_n)

@triton.jit
def _skinny_large__gemm_kernel(a_ptr, b_ptr, c_ptr, w_ptr, lock_ptr, in0, M, N, K, n_batch, k_per_split, w_slot, stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn, stride_cb, stride_cm, s0_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, SPLIT_K: tl.constexpr, EVEN_M: tl.constexpr, EVEN_N: tl.constexpr, EVEN_K: tl.constexpr, STAGES: tl.constexpr, C_UNIT: tl.constexpr, IS_FP32: tl.constexpr, UPCAST_BF16: tl.constexpr, ON_GPU: tl.constexpr, INDEX_64: tl.constexpr):
    N = N * C_UNIT
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    tile_id = pid
    pid_k = tl.program_id(1)
    batch, pid_m, pid_n = _skinny_large__tile_coords(tile_id, tiles_m, tiles_n, GROUP_M)
    batch64 = batch.to(tl.int64)
    off_m = pid_m * BLOCK_M
    offs_m = off_m + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    if INDEX_64:
        offs_m = offs_m.to(tl.int64)
        offs_n = offs_n.to(tl.int64)
        offs_k = offs_k.to(tl.int64)
    k_start = pid_k * k_per_split
    k_end = tl.minimum(K, k_start + k_per_split)
    a_ptrs = a_ptr + batch64 * stride_ab + offs_m[:, None] * stride_am + (k_start + offs_k)[None, :] * stride_ak
    b_ptrs = b_ptr + batch64 * stride_bb + (k_start + offs_k)[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    k_full = k_start + (k_end - k_start) // BLOCK_K * BLOCK_K
    for k in tl.range(k_start, k_full, BLOCK_K, num_stages=STAGES):
        if EVEN_M:
            a = tl.load(a_ptrs)
        else:
            a = tl.load(a_ptrs, mask=offs_m[:, None] < M, other=0.0)
        if EVEN_N:
            b = tl.load(b_ptrs)
        else:
            b = tl.load(b_ptrs, mask=offs_n[None, :] < N, other=0.0)
        if IS_FP32:
            part = tl.dot(a, b, input_precision='ieee')
            if ON_GPU:
                acc = tl.inline_asm_elementwise('add.rn.f32 $0, $1, $2;', '=r,r,r', [acc, part], dtype=tl.float32, is_pure=True, pack=1)
            else:
                acc = acc + part
        elif UPCAST_BF16:
            acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision='ieee')
        else:
            acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    if not EVEN_K:
        if k_full < k_end:
            a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & ((k_full + offs_k)[None, :] < k_end), other=0.0)
            b = tl.load(b_ptrs, mask=((k_full + offs_k)[:, None] < k_end) & (offs_n[None, :] < N), other=0.0)
            if IS_FP32:
                part = tl.dot(a, b, input_precision='ieee')
                if ON_GPU:
                    acc = tl.inline_asm_elementwise('add.rn.f32 $0, $1, $2;', '=r,r,r', [acc, part], dtype=tl.float32, is_pure=True, pack=1)
                else:
                    acc = acc + part
            elif UPCAST_BF16:
                acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision='ieee')
            else:
                acc = tl.dot(a, b, acc)
    if SPLIT_K > 1:
        w_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
        w_tile = w_ptr + (batch64 * M + offs_m[:, None]) * N + offs_n[None, :]
        tl.store(w_tile + pid_k.to(tl.int64) * w_slot, acc, mask=w_mask)
        tl.debug_barrier()
        arrived = tl.atomic_add(lock_ptr + tile_id, 1, sem='acq_rel')
        if arrived == SPLIT_K - 1:
            acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
            for s in tl.static_range(SPLIT_K):
                acc += tl.load(w_tile, mask=w_mask, other=0.0, cache_modifier='.cg')
                w_tile += w_slot
            c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
            x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
            t0 = acc + x0
            t1 = _skinny_large__gelu_erf(t0)
            if C_UNIT > 1:
                c_cols = tl.max_contiguous(offs_n, C_UNIT)
            else:
                c_cols = offs_n
            c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
            tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)
    else:
        c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
        x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
        t0 = acc + x0
        t1 = _skinny_large__gelu_erf(t0)
        if C_UNIT > 1:
            c_cols = tl.max_contiguous(offs_n, C_UNIT)
        else:
            c_cols = offs_n
        c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
        tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)

@triton.jit
def _skinny_large__gemm_tma_kernel(a_desc, b_desc, c_ptr, in0, M, N, K, stride_cb, stride_cm, s0_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, A_T: tl.constexpr, B_T: tl.constexpr, STAGES: tl.constexpr, C_UNIT: tl.constexpr, IS_FP32: tl.constexpr, UPCAST_BF16: tl.constexpr, ON_GPU: tl.constexpr):
    N = N * C_UNIT
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    tile_id = pid
    batch, pid_m, pid_n = _skinny_large__tile_coords(tile_id, tiles_m, tiles_n, GROUP_M)
    batch64 = batch.to(tl.int64)
    off_m = pid_m * BLOCK_M
    off_n = pid_n * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, K, BLOCK_K, num_stages=STAGES):
        if A_T:
            a = a_desc.load([k, off_m]).T
        else:
            a = a_desc.load([off_m, k])
        if B_T:
            b = b_desc.load([off_n, k]).T
        else:
            b = b_desc.load([k, off_n])
        if IS_FP32:
            part = tl.dot(a, b, input_precision='ieee')
            if ON_GPU:
                acc = tl.inline_asm_elementwise('add.rn.f32 $0, $1, $2;', '=r,r,r', [acc, part], dtype=tl.float32, is_pure=True, pack=1)
            else:
                acc = acc + part
        elif UPCAST_BF16:
            acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision='ieee')
        else:
            acc = tl.dot(a, b, acc)
    offs_m = off_m + tl.arange(0, BLOCK_M)
    offs_n = off_n + tl.arange(0, BLOCK_N)
    c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
    t0 = acc + x0
    t1 = _skinny_large__gelu_erf(t0)
    if C_UNIT > 1:
        c_cols = tl.max_contiguous(offs_n, C_UNIT)
    else:
        c_cols = offs_n
    c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
    tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)

@functools.lru_cache(maxsize=None)
def _skinny_large__sm_count(device_index: int) -> int:
    if not torch.cuda.is_available():
        return 4
    return torch.cuda.get_device_properties(device_index).multi_processor_count

def _skinny_large__as_3d(a, b):
    """(A as (batch, M, K), B as (batch, K, N), the output's shape); views where strides allow."""
    if a.dim() < 2 or b.dim() < 2:
        raise ValueError(f'launch_linear_bias_gelu: operands must have 2 or more dims, got {tuple(a.shape)} and {tuple(b.shape)}')
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f'launch_linear_bias_gelu: inner dims differ: {tuple(a.shape)} @ {tuple(b.shape)}')
    m, k, n = (a.shape[-2], a.shape[-1], b.shape[-1])
    if b.dim() == 2:
        out_shape = (*a.shape[:-1], n)
        return (a.reshape(1, -1, k), b.unsqueeze(0), out_shape)
    if a.dim() == 2:
        b3 = b.reshape(-1, k, n)
        return (a.unsqueeze(0).expand(b3.shape[0], m, k), b3, (*b.shape[:-2], m, n))
    if a.shape[:-2] != b.shape[:-2]:
        raise ValueError(f'launch_linear_bias_gelu: batch dims differ ({tuple(a.shape[:-2])} vs {tuple(b.shape[:-2])}); broadcast batch dims are not covered')
    return (a.reshape(-1, m, k), b.reshape(-1, k, n), (*a.shape[:-2], m, n))

@triton.jit
def _skinny_large__pad_copy_kernel(src, dst, R, C, s_b, s_r, s_c, d_b, d_r, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    pid_b = tl.program_id(2).to(tl.int64)
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (rows[:, None] < R) & (cols[None, :] < C)
    rows64 = rows.to(tl.int64)
    x = tl.load(src + pid_b * s_b + rows64[:, None] * s_r + cols[None, :] * s_c, mask=mask)
    tl.store(dst + pid_b * d_b + rows64[:, None] * d_r + cols[None, :], x, mask=mask)

def _skinny_large__unaligned(t3) -> bool:
    """Whether the pointer kernel would read t3 (batch, R, C) through a padded copy (_aligned):
    a unit-stride dim whose rows (or, with batches, batch stride) are not a multiple of 16
    elements, or a base that is not 16-byte aligned. Neither dim contiguous: read as it is."""
    if t3.stride(2) == 1 or t3.shape[2] == 1:
        lead_dim = 1
    elif t3.stride(1) == 1 or t3.shape[1] == 1:
        return _skinny_large__unaligned(t3.transpose(1, 2))
    else:
        return False
    strides_ok = t3.stride(lead_dim) % 16 == 0 and (t3.shape[0] == 1 or t3.stride(0) % 16 == 0)
    return not (strides_ok and t3.data_ptr() % 16 == 0)

def _skinny_large__aligned(t3):
    """t3 (batch, R, C) read by the GEMM; when its row stride is not a multiple of 16 elements
    (a width of 4097, or of 1000), a copy into rows padded to 16 elements, viewed at the original
    width. Triton vectorizes a tile load only along rows whose stride it can prove to be a
    multiple of 16 elements; scalar loads cost the GEMM several times the copy (on an H100,
    4095x4097x4093 took 5.9 ms, bench/results/runs/tune-h100-gemm-attention.json; gelu(linear) at
    4099 x 3073 x 1000 took 0.99 ms with rows of 1000 and 0.09 ms with rows of 1024,
    bench/results/gemm-odd-h100.json). Where descriptor loads are available the launcher takes
    them for such operands instead (tma_plan), and this copy is the fallback."""
    if not _skinny_large__unaligned(t3):
        return t3
    if not (t3.stride(2) == 1 or t3.shape[2] == 1):
        return _skinny_large__aligned(t3.transpose(1, 2)).transpose(1, 2)
    elem = 16
    batch, rows, cols = t3.shape
    padded = _skinny_large__cdiv(cols, elem) * elem
    out = torch.empty((batch, rows, padded), dtype=t3.dtype, device=t3.device)
    grid = (_skinny_large__cdiv(rows, 32), _skinny_large__cdiv(cols, 128), batch)
    _skinny_large__pad_copy_kernel[grid](t3, out, rows, cols, t3.stride(0), t3.stride(1), t3.stride(2), out.stride(0), out.stride(1), BLOCK_R=32, BLOCK_C=128, num_warps=4)
    return out[:, :, :cols]
_skinny_large_TMA_AVAILABLE = hasattr(tl, 'tensor_descriptor') and hasattr(TensorDescriptor, 'from_tensor')

@functools.lru_cache(maxsize=None)
def _skinny_large__capability(device_index: int) -> tuple[int, int]:
    return torch.cuda.get_device_capability(device_index)

def _skinny_large__tma_refused(t: torch.Tensor, wanted: bool=_skinny_large_USE_TMA) -> str | None:
    """Why no call on `t`'s device takes descriptor loads under this config, or None."""
    if not wanted:
        return 'config: use_tma is off'
    if not _skinny_large_TMA_AVAILABLE:
        return 'the installed Triton has no tensor descriptors'
    if not t.is_cuda:
        return "not a CUDA device (Triton's interpreter runs the pointer kernel)"
    if _skinny_large__capability(t.get_device())[0] < 9:
        return 'TMA needs compute capability 9.0 or newer'
    return None

def _skinny_large_tma_plan(a3, b3) -> str:
    """"tma" when this call takes the TMA kernel, else why it takes the pointer kernel.

    With use_tma off, a call whose A or B rows would need a padded copy for the pointer kernel
    (rows of 1000 or 3073 elements, say: 16-byte aligned, not 16-element aligned) takes the
    descriptor kernel where it can: it reads such rows in place at full speed, where the copy
    costs a kernel and a buffer (at 4099 x 1000 -> 3073 on an H100, 0.098 ms against 0.376 ms
    padded, bench/results/gemm-odd-h100.json). Not under split-K, which the TMA kernel lacks,
    and for 16-bit operands only: float32 through descriptors at the default 128x256x64 tiles
    needs 256 KB of shared memory and does not compile (runs/probe-fp32-tma-h100.txt)."""
    odd_rows = not _skinny_large_USE_TMA and _skinny_large_SPLIT_K == 1 and (a3.element_size() == 2) and (_skinny_large__unaligned(a3) or _skinny_large__unaligned(b3))
    refused = _skinny_large__tma_refused(a3, _skinny_large_USE_TMA or odd_rows)
    if refused:
        return refused
    if a3.shape[0] != 1:
        return 'batched operands (the TMA kernel is 2-D)'
    for name, t in (('A', a3[0]), ('B', b3[0])):
        if t.stride(-1) != 1 and t.stride(-2) != 1:
            return f'{name} has no unit stride'
        outer = t.stride(-2) if t.stride(-1) == 1 else t.stride(-1)
        if t.data_ptr() % 16 or outer * t.element_size() % 16:
            return f"{name}'s base or row stride is not 16-byte aligned"
    return 'tma'

class _skinny_large__RecordedDescriptor(TensorDescriptor):
    """A descriptor of a recorded launch (_gemm's recipe), built without TensorDescriptor's
    checks: the recipe's key (the caller's shapes, strides, dtypes and 16-byte alignment) fixes
    all those checks read, and the recording call's descriptors passed them. Building the two
    descriptors with the checks took 6 us of an H100 host's time a call
    (bench/results/probe-host-parts-h100.json)."""

    def __init__(self, base, shape, strides, block_shape):
        self.base, self.shape, self.strides, self.block_shape = (base, shape, strides, block_shape)

def _skinny_large__descriptor(t, rows_block: int, cols_block: int):
    """A descriptor over 2-D `t` and whether the kernel must transpose what it loads."""
    if t.stride(-1) == 1:
        return (TensorDescriptor(t, list(t.shape), [t.stride(0), 1], [rows_block, cols_block]), False)
    return (TensorDescriptor(t, [t.shape[1], t.shape[0]], [t.stride(1), 1], [cols_block, rows_block]), True)

def _skinny_large__epilogue_args(extras, out_shape, c_shape, like):
    """The epilogue's operands, checked, and their strides, in the kernels' argument order."""
    args, strides, flags = ([], [], {})
    n = c_shape[2]
    t = extras[0]
    if t.dim() != 1 or t.shape[0] != n or t.dtype != like.dtype:
        raise ValueError(f'launch_linear_bias_gelu: epilogue input 0 is {tuple(t.shape)} {t.dtype}; expected ({n},) {like.dtype}, broadcast along N')
    strides.append(t.stride(0))
    args.append(t)
    return (args, strides, flags)

def _skinny_large_fp32_stages(stages: int=_skinny_large_NUM_STAGES) -> int:
    """Pipeline stages of an fp32 launch: NUM_STAGES, lowered until 4-byte tiles fit. A loop
    pipelined in n stages keeps n - 1 tiles of A and B in shared memory (Triton 3.6 asked for
    8 x 48 KB at 9 stages of 128x64x64 fp32 tiles, runs/gpu-tests-h100-round17.txt)."""
    per_stage = (_skinny_large_BLOCK_M * _skinny_large_BLOCK_K + _skinny_large_BLOCK_K * _skinny_large_BLOCK_N) * 4
    return max(1, min(stages, _skinny_large_MAX_SHARED_BYTES // per_stage + 1))
_skinny_large__RECIPES = {}
_skinny_large__MAX_RECIPES = 256

def _skinny_large__signature(a, b, extras, use_tma):
    return (a.shape, a.stride(), b.shape, b.stride(), a.dtype, b.dtype, a.device, a.data_ptr() % 16, b.data_ptr() % 16, use_tma, tuple(((t.shape, t.stride(), t.dtype, t.data_ptr() % 16) if isinstance(t, torch.Tensor) else type(t) for t in extras)))

def _skinny_large__output_unit(c3, cols: int) -> int:
    """C_UNIT of a launch that writes c3 (batch, M, N), a new contiguous tensor, in stores
    `cols` columns wide: the widest vector (elements, at most 16 bytes) that N and c3's base align
    to, and so its strides (M * N, N), but not one that makes exactly 32 vectors of a store's row.
    Triton lays such a store out one row per warp, every warp on rows of its own, and on an H100
    that store was the slow one at every tile and slice width timed: TILED's 128x256 tiles at
    1000x1024->3000 took 23.0 us a call in 16-byte vectors and 18.9 in 8-byte ones (2-byte: 19.5),
    128x128 tiles 20.4 in 8-byte vectors against 18.3-18.5 in 4- or 16-byte ones
    (bench/results/runs/probe-gemm-store-h100-round171.json); at 1000x1024->4096, where Triton
    took 16 bytes by itself, TILED took 23.6 us and TILED in two epilogue slices 19.7
    (bench/results/probe-gemm-parts-h100.json). The kernels take N and those strides divided by
    the unit (unit_width) and store vectors of at most a unit (store_cols)."""
    unit = _skinny_large__unit((c3.shape[2],), c3.data_ptr(), c3.element_size())
    if unit > 1 and cols // unit == 32:
        unit //= 2
    return unit

def _skinny_large__split_buffers(ws_shape, tiles: int, like):
    """Split-K's fp32 partials (SPLIT_K, batch, M, N) and one zeroed arrival counter per output
    tile, new for every call (so two launches on two streams never share them); without split-K,
    placeholders the kernel never touches."""
    if ws_shape is None:
        return (like, like)
    return (torch.empty(ws_shape, dtype=torch.float32, device=like.device), torch.zeros(tiles, dtype=torch.int32, device=like.device))

def _skinny_large__gemm(a, b, extras, use_tma=None, key=None):
    """epilogue(a @ b) for a (..., M, K), b (..., K, N) of one dtype; `use_tma` None: tma_plan.
    `key`: the call's _signature, where the caller has it."""
    if key is None:
        key = _skinny_large__signature(a, b, extras, use_tma)
    recipe = _skinny_large__RECIPES.get(key)
    if recipe is None:
        return _skinny_large__gemm_first(a, b, extras, use_tma, key)
    epi = [t if isinstance(t, torch.Tensor) else float(t) for t in extras]
    if recipe[0] == 'tma':
        _, out_shape, grid, (a_box, b_box), args, kwargs, direct = recipe
        out = torch.empty(out_shape, dtype=a.dtype, device=a.device)
        _skinny_large__run(_skinny_large__gemm_tma_kernel, grid, direct, (_skinny_large__RecordedDescriptor(a, *a_box), _skinny_large__RecordedDescriptor(b, *b_box), out, *epi, *args), kwargs)
        return out
    _, out_shape, grid, args, kwargs, ws_shape, tiles, direct = recipe
    out = torch.empty(out_shape, dtype=a.dtype, device=a.device)
    workspace, locks = _skinny_large__split_buffers(ws_shape, tiles, out)
    _skinny_large__run(_skinny_large__gemm_kernel, grid, direct, (a, b, out, workspace, locks, *epi, *args), kwargs)
    return out

def _skinny_large__direct(compiled, kernel, grid, n_args: int, kwargs):
    """A recorded launch through the compiled kernel's own launcher: (the launcher over `grid`,
    the values of the kernel's parameters after its first `n_args`, all passed as keywords), or
    None in Triton's interpreter or where a parameter was left to its default.
    `kernel[grid](...)` binds and specializes every argument again on each call; a recipe's key
    (shapes, strides, dtypes, device, 16-byte alignment) already fixes all that specialization
    depends on, and its sizes and strides are the first call's. The verifier counts these
    launches as it counts `kernel[grid](...)` (verifier/runtime.py)."""
    if compiled is None:
        return None
    rest = kernel.arg_names[n_args:]
    if any((name not in kwargs for name in rest)):
        return None
    return (compiled[(*grid, 1, 1)[:3]], tuple((kwargs[name] for name in rest)))

def _skinny_large__run(kernel, grid, direct, args, kwargs):
    """kernel[grid](*args, **kwargs), through `direct` (from _direct) where there is one."""
    if direct is None:
        kernel[grid](*args, **kwargs)
    else:
        run, consts = direct
        run(*args, *consts)

def _skinny_large__box(desc):
    return (list(desc.shape), list(desc.strides), list(desc.block_shape))

def _skinny_large__record(key, recipe):
    if len(_skinny_large__RECIPES) >= _skinny_large__MAX_RECIPES:
        _skinny_large__RECIPES.clear()
    _skinny_large__RECIPES[key] = recipe

def _skinny_large__same_tensors(pairs) -> bool:
    """Whether every view the launch took starts at its caller tensor's first element."""
    return all((not isinstance(v, torch.Tensor) or v.data_ptr() == t.data_ptr() for v, t in pairs))

def _skinny_large__gemm_first(a, b, extras, use_tma, key):
    """_gemm for a call signature not seen yet: checks, views, the launch, and its recipe."""
    if a.dtype not in (torch.float32, torch.float16, torch.bfloat16) or b.dtype != a.dtype:
        raise TypeError(f'launch_linear_bias_gelu: unsupported dtypes {a.dtype} @ {b.dtype}')
    a3, b3, out_shape = _skinny_large__as_3d(a, b)
    if use_tma is None:
        use_tma = _skinny_large_tma_plan(a3, b3) == 'tma'
    if not use_tma:
        a3, b3 = (_skinny_large__aligned(a3), _skinny_large__aligned(b3))
    n_batch, m, k = a3.shape
    n = b3.shape[2]
    out = torch.empty(out_shape, dtype=a.dtype, device=a.device)
    if out.numel() == 0:
        return out
    c3 = out.reshape(n_batch, m, n)
    c_unit = _skinny_large__output_unit(c3, _skinny_large_BLOCK_N // _skinny_large_EPILOGUE_SPLIT)
    epi, epi_strides, flags = _skinny_large__epilogue_args(extras, out_shape, c3.shape, a)
    is_fp32 = a.dtype == torch.float32
    on_gpu = a.is_cuda
    upcast = a.dtype == torch.bfloat16 and (not on_gpu)
    stages = _skinny_large_fp32_stages() if is_fp32 else _skinny_large_NUM_STAGES
    tiles_m, tiles_n = (_skinny_large__cdiv(m, _skinny_large_BLOCK_M), _skinny_large__cdiv(n, _skinny_large_BLOCK_N))
    tiles = n_batch * tiles_m * tiles_n
    programs = tiles
    if _skinny_large_PERSISTENT:
        programs = min(tiles, _skinny_large__sm_count(max(a.get_device(), 0)) * _skinny_large_PERSISTENT)
    if use_tma:
        a_desc, a_t = _skinny_large__descriptor(a3[0], _skinny_large_BLOCK_M, _skinny_large_BLOCK_K)
        b_desc, b_t = _skinny_large__descriptor(b3[0], _skinny_large_BLOCK_K, _skinny_large_BLOCK_N)
        args = (m, n // c_unit, k, c3.stride(0) // c_unit, c3.stride(1) // c_unit, *epi_strides)
        kwargs = dict(BLOCK_M=_skinny_large_BLOCK_M, BLOCK_N=_skinny_large_BLOCK_N, BLOCK_K=_skinny_large_BLOCK_K, GROUP_M=_skinny_large_GROUP_M, A_T=a_t, B_T=b_t, STAGES=stages, C_UNIT=c_unit, IS_FP32=is_fp32, UPCAST_BF16=upcast, ON_GPU=on_gpu, num_warps=_skinny_large_NUM_WARPS, num_stages=stages, **flags, num_ctas=1 if b_t else _skinny_large_NUM_CTAS)
        launch = (a_desc, b_desc, c3, *epi, *args)
        kwargs, compiled = _skinny_large__launch_fitting(_skinny_large__gemm_tma_kernel, (programs,), launch, kwargs, c3)
        if _skinny_large__same_tensors([(a_desc.base, a), (b_desc.base, b), *zip(epi, extras)]):
            _skinny_large__record(key, ('tma', out_shape, (programs,), (_skinny_large__box(a_desc), _skinny_large__box(b_desc)), args, kwargs, _skinny_large__direct(compiled, _skinny_large__gemm_tma_kernel, (programs,), len(launch), kwargs)))
        return out
    k_tiles = _skinny_large__cdiv(k, _skinny_large_BLOCK_K)
    split = 1 if _skinny_large_PERSISTENT else max(1, min(_skinny_large_SPLIT_K, k_tiles))
    k_per_split = _skinny_large__cdiv(k_tiles, split) * _skinny_large_BLOCK_K
    split = max(1, _skinny_large__cdiv(k, k_per_split))
    ws_shape = (split, n_batch, m, n) if split > 1 else None
    workspace, locks = _skinny_large__split_buffers(ws_shape, tiles, c3)
    biggest = max(a3.numel(), b3.numel(), c3.numel(), workspace.numel(), max((t.numel() for t in epi if isinstance(t, torch.Tensor)), default=0))
    grid = (programs,) if _skinny_large_PERSISTENT else (tiles, split)
    args = (m, n // c_unit, k, n_batch, k_per_split, n_batch * m * n, a3.stride(0), a3.stride(1), a3.stride(2), b3.stride(0), b3.stride(1), b3.stride(2), c3.stride(0) // c_unit, c3.stride(1) // c_unit, *epi_strides)
    kwargs = dict(BLOCK_M=_skinny_large_BLOCK_M, BLOCK_N=_skinny_large_BLOCK_N, BLOCK_K=_skinny_large_BLOCK_K, GROUP_M=_skinny_large_GROUP_M, SPLIT_K=split, EVEN_M=m % _skinny_large_BLOCK_M == 0 or (_skinny_large_SHIFT_TAIL and m >= _skinny_large_BLOCK_M), EVEN_N=n % _skinny_large_BLOCK_N == 0, EVEN_K=k % _skinny_large_BLOCK_K == 0, IS_FP32=is_fp32, UPCAST_BF16=upcast, ON_GPU=on_gpu, INDEX_64=biggest >= 2 ** 31, STAGES=stages, C_UNIT=c_unit, num_warps=_skinny_large_NUM_WARPS, num_stages=stages, **flags)
    launch = (a3, b3, c3, workspace, locks, *epi, *args)
    kwargs, compiled = _skinny_large__launch_fitting(_skinny_large__gemm_kernel, grid, launch, kwargs, c3)
    if _skinny_large__same_tensors([(a3, a), (b3, b), *zip(epi, extras)]):
        _skinny_large__record(key, ('pointer', out_shape, grid, args, kwargs, ws_shape, tiles, _skinny_large__direct(compiled, _skinny_large__gemm_kernel, grid, len(launch), kwargs)))
    return out

def _skinny_large__fit_stages(kernel, grid, args, kwargs, limit: int):
    """`kwargs` with the pipeline's stages lowered, one at a time, until the compiled kernel's
    shared memory fits `limit` (compiled, not launched: `warmup`); at one stage, as it is. float32
    tiles under a flattened tile loop or a sliced epilogue asked for 256-288 KB at the stages
    fp32_stages() allows, against 227 KB (H100, GPU round 46, bench/probe_gemm_default_gpu.py)."""
    while kwargs['num_stages'] > 1:
        if kernel.warmup(*args, grid=grid, **kwargs).metadata.shared <= limit:
            break
        stages = kwargs['num_stages'] - 1
        kwargs = {**kwargs, 'STAGES': stages, 'num_stages': stages}
    return kwargs

@functools.lru_cache(maxsize=None)
def _skinny_large__shared_limit(device_index: int) -> int:
    return torch.cuda.get_device_properties(device_index).shared_memory_per_block_optin

def _skinny_large__launch_fitting(kernel, grid, args, kwargs, out):
    """kernel[grid](*args, **kwargs), on a GPU with stages that fit its shared memory (_fit_stages);
    returns the keywords it ran with, which a recipe keeps, and the compiled kernel (None in the
    interpreter). `out`: the output, on the device."""
    if out.is_cuda:
        kwargs = _skinny_large__fit_stages(kernel, grid, args, kwargs, _skinny_large__shared_limit(out.get_device()))
    return (kwargs, kernel[grid](*args, **kwargs))

def _skinny_large__operand(t, transposed: bool):
    return t.transpose(-2, -1) if transposed else t

def _skinny_large_launch_linear_bias_gelu(a, b, in0):
    """linear_bias_gelu: epilogue(a @ b^T), one kernel launch."""
    return _skinny_large__gemm(_skinny_large__operand(a, _skinny_large_A_TRANSPOSED), _skinny_large__operand(b, _skinny_large_B_TRANSPOSED), (in0,))

class _skinny_large_ModelNew(torch.nn.Module):
    """Drop-in for the task's Model: the matmul and its epilogue in one kernel."""

    def __init__(self, *args, **kwargs):
        super().__init__()
        self.fc = torch.nn.Module()
        self.fc.weight = torch.nn.UninitializedParameter()
        self.fc.bias = torch.nn.UninitializedParameter()

    def forward(self, *args):
        return _skinny_large_launch_linear_bias_gelu(args[0], self.fc.weight, self.fc.bias)

# skinny_rows: the kernels and launcher of the calls it routes (_decode_)

def _decode__cdiv(a: int, b: int) -> int:
    """ceil(a / b) for non-negative ints, on the host."""
    return -(-a // b)

def _decode__next_pow2(n: int) -> int:
    """The smallest power of two >= n, 0 for 0 (as triton.next_power_of_2), on the host."""
    return 1 << (n - 1).bit_length() if n > 0 else 0

def _decode__unit(values, data_ptr: int, itemsize: int) -> int:
    """The widest vector (elements, at most 16 bytes) that every offset and the base align to.
    A kernel takes its widths and strides divided by it and multiplies them back by the
    constexpr: Triton marks an int argument only when it is divisible by 16, so a 1000-wide
    bf16 row (2000 bytes, 16-byte aligned) would otherwise get 2-byte loads and stores."""
    unit = 16 // itemsize
    while unit > 1 and (any((v % unit for v in values)) or data_ptr % (unit * itemsize)):
        unit //= 2
    return unit
_decode_PARAMS = {'BLOCK_M': 16, 'BLOCK_N': 32, 'BLOCK_K': 128, 'GROUP_M': 1, 'num_warps': 4, 'num_stages': 6, 'SPLIT_K': 1, 'persistent': 0, 'use_tma': False, 'EPILOGUE_SPLIT': 1, 'flatten': False, 'gelu_erf_fit': False, 'skinny_rows': 0, 'odd_tiled': False, 'single_wave_tiled': False, 'fuse_norm': False, 'ws_pingpong': False, 'ws_coop': False, 'num_ctas': 1, 'swap_ab': False, 'shift_tail': False}
_decode_BLOCK_M = 16
_decode_BLOCK_N = 32
_decode_BLOCK_K = 128
_decode_EPILOGUE_SPLIT = 1
_decode_GROUP_M = 1
_decode_NUM_WARPS = 4
_decode_NUM_STAGES = 6
_decode_NUM_CTAS = 1
_decode_SPLIT_K = 1
_decode_PERSISTENT = 0
_decode_USE_TMA = False
_decode_SHIFT_TAIL = False
_decode_SKINNY_ROWS = 0
_decode_SKINNY_TILES = ((32, 64, 'skinny_narrow', 'one'), (32, 128, 'skinny_narrow_wide', 'one'), (64, 64, 'skinny', 'tile'), (64, 64, 'skinny_pointer', 'any'), (64, 128, 'skinny_wide', 'any'), (64, 256, 'skinny_wider', 'any'), (128, 128, 'skinny_large', 'any'))
_decode_DECODE_BLOCK_N = (32, 64, 128)
_decode_DECODE_ROWS = 16
_decode_ODD_TILED = False
_decode_SINGLE_WAVE_TILED = False
_decode_A_TRANSPOSED = False
_decode_B_TRANSPOSED = True
_decode_MAX_SHARED_BYTES = 227 * 1024

@triton.jit
def _decode__relu(x):
    return tl.where(x < 0.0, 0.0, x)

@triton.jit
def _decode__leaky_relu(x, slope):
    return tl.where(x > 0.0, x, x * slope)

@triton.jit
def _decode__expm1(x):
    series = x * (1.0 + x * (0.5 + x * (1.0 / 6.0 + x * (1.0 / 24.0 + x * (1.0 / 120.0)))))
    return tl.where(tl.abs(x) < 0.03125, series, tl.exp(x) - 1.0)

@triton.jit
def _decode__elu(x, alpha):
    return tl.where(x > 0.0, x, alpha * _decode__expm1(x))

@triton.jit
def _decode__sigmoid(x):
    return 1.0 / (1.0 + tl.exp(-x))

@triton.jit
def _decode__silu(x):
    return x / (1.0 + tl.exp(-x))

@triton.jit
def _decode__tanh(x):
    ax = tl.abs(x)
    t = tl.exp(-2.0 * ax)
    far = (1.0 - t) / (1.0 + t)
    x2 = ax * ax
    near = ax * (1.0 + x2 * (-1.0 / 3.0 + x2 * (2.0 / 15.0 + x2 * (-17.0 / 315.0))))
    r = tl.where(ax < 0.0625, near, far)
    return tl.where(x < 0.0, -r, r)

@triton.jit
def _decode__gelu_erf(x):
    return 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))

@triton.jit
def _decode__gelu_tanh(x):
    u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    return x / (1.0 + tl.exp(-2.0 * u))

@triton.jit
def _decode__log1p_unit(e):
    series = e * (1.0 - e * (0.5 - e * (1.0 / 3.0 - e * (0.25 - e * 0.2))))
    return tl.where(e < 0.03125, series, tl.log(1.0 + e))

@triton.jit
def _decode__softplus(x, beta, threshold):
    z = x * beta
    sp = tl.where(z > 0.0, z, 0.0) + _decode__log1p_unit(tl.exp(-tl.abs(z)))
    return tl.where(z > threshold, x, sp / beta)

@triton.jit
def _decode__mish(x):
    e = tl.exp(tl.where(x < 20.0, x, 20.0))
    n = e * (e + 2.0)
    return tl.where(x > 20.0, x, x * (n / (n + 2.0)))

@triton.jit
def _decode__clamp_min(x, lo):
    return tl.where(x < lo, lo, x)

@triton.jit
def _decode__clamp_max(x, hi):
    return tl.where(x > hi, hi, x)

@triton.jit
def _decode__clamp(x, lo, hi):
    return _decode__clamp_max(_decode__clamp_min(x, lo), hi)

@triton.jit
def _decode__hardsigmoid(x):
    return _decode__clamp(x + 3.0, 0.0, 6.0) / 6.0

@triton.jit
def _decode__hardswish(x):
    return x * _decode__clamp(x + 3.0, 0.0, 6.0) / 6.0

@triton.jit
def _decode__maximum(a, b):
    return tl.where((a > b) | (a != a), a, b)

@triton.jit
def _decode__minimum(a, b):
    return tl.where((a < b) | (a != a), a, b)

@triton.jit
def _decode__tile_coords(tile_id, tiles_m, tiles_n, GROUP_M: tl.constexpr):
    per_batch = tiles_m * tiles_n
    batch = tile_id // per_batch
    t = tile_id % per_batch
    in_group = GROUP_M * tiles_n
    first_m = t // in_group * GROUP_M
    group_rows = tl.minimum(tiles_m - first_m, GROUP_M)
    pid_m = first_m + t % in_group % group_rows
    pid_n = t % in_group // group_rows
    return (batch, pid_m, pid_n)

@triton.jit
def _decode__gemm_kernel(a_ptr, b_ptr, c_ptr, w_ptr, lock_ptr, in0, M, N, K, n_batch, k_per_split, w_slot, stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn, stride_cb, stride_cm, s0_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, SPLIT_K: tl.constexpr, EVEN_M: tl.constexpr, EVEN_N: tl.constexpr, EVEN_K: tl.constexpr, STAGES: tl.constexpr, C_UNIT: tl.constexpr, IS_FP32: tl.constexpr, UPCAST_BF16: tl.constexpr, ON_GPU: tl.constexpr, INDEX_64: tl.constexpr):
    N = N * C_UNIT
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    tile_id = pid
    pid_k = tl.program_id(1)
    batch, pid_m, pid_n = _decode__tile_coords(tile_id, tiles_m, tiles_n, GROUP_M)
    batch64 = batch.to(tl.int64)
    off_m = pid_m * BLOCK_M
    offs_m = off_m + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    if INDEX_64:
        offs_m = offs_m.to(tl.int64)
        offs_n = offs_n.to(tl.int64)
        offs_k = offs_k.to(tl.int64)
    k_start = pid_k * k_per_split
    k_end = tl.minimum(K, k_start + k_per_split)
    a_ptrs = a_ptr + batch64 * stride_ab + offs_m[:, None] * stride_am + (k_start + offs_k)[None, :] * stride_ak
    b_ptrs = b_ptr + batch64 * stride_bb + (k_start + offs_k)[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    k_full = k_start + (k_end - k_start) // BLOCK_K * BLOCK_K
    for k in tl.range(k_start, k_full, BLOCK_K, num_stages=STAGES):
        if EVEN_M:
            a = tl.load(a_ptrs)
        else:
            a = tl.load(a_ptrs, mask=offs_m[:, None] < M, other=0.0)
        if EVEN_N:
            b = tl.load(b_ptrs)
        else:
            b = tl.load(b_ptrs, mask=offs_n[None, :] < N, other=0.0)
        if IS_FP32:
            part = tl.dot(a, b, input_precision='ieee')
            if ON_GPU:
                acc = tl.inline_asm_elementwise('add.rn.f32 $0, $1, $2;', '=r,r,r', [acc, part], dtype=tl.float32, is_pure=True, pack=1)
            else:
                acc = acc + part
        elif UPCAST_BF16:
            acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision='ieee')
        else:
            acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    if not EVEN_K:
        if k_full < k_end:
            a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & ((k_full + offs_k)[None, :] < k_end), other=0.0)
            b = tl.load(b_ptrs, mask=((k_full + offs_k)[:, None] < k_end) & (offs_n[None, :] < N), other=0.0)
            if IS_FP32:
                part = tl.dot(a, b, input_precision='ieee')
                if ON_GPU:
                    acc = tl.inline_asm_elementwise('add.rn.f32 $0, $1, $2;', '=r,r,r', [acc, part], dtype=tl.float32, is_pure=True, pack=1)
                else:
                    acc = acc + part
            elif UPCAST_BF16:
                acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision='ieee')
            else:
                acc = tl.dot(a, b, acc)
    if SPLIT_K > 1:
        w_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
        w_tile = w_ptr + (batch64 * M + offs_m[:, None]) * N + offs_n[None, :]
        tl.store(w_tile + pid_k.to(tl.int64) * w_slot, acc, mask=w_mask)
        tl.debug_barrier()
        arrived = tl.atomic_add(lock_ptr + tile_id, 1, sem='acq_rel')
        if arrived == SPLIT_K - 1:
            acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
            for s in tl.static_range(SPLIT_K):
                acc += tl.load(w_tile, mask=w_mask, other=0.0, cache_modifier='.cg')
                w_tile += w_slot
            c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
            x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
            t0 = acc + x0
            t1 = _decode__gelu_erf(t0)
            if C_UNIT > 1:
                c_cols = tl.max_contiguous(offs_n, C_UNIT)
            else:
                c_cols = offs_n
            c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
            tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)
    else:
        c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
        x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
        t0 = acc + x0
        t1 = _decode__gelu_erf(t0)
        if C_UNIT > 1:
            c_cols = tl.max_contiguous(offs_n, C_UNIT)
        else:
            c_cols = offs_n
        c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
        tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)

@triton.jit
def _decode__gemm_tma_kernel(a_desc, b_desc, c_ptr, in0, M, N, K, stride_cb, stride_cm, s0_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, A_T: tl.constexpr, B_T: tl.constexpr, STAGES: tl.constexpr, C_UNIT: tl.constexpr, IS_FP32: tl.constexpr, UPCAST_BF16: tl.constexpr, ON_GPU: tl.constexpr):
    N = N * C_UNIT
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    tile_id = pid
    batch, pid_m, pid_n = _decode__tile_coords(tile_id, tiles_m, tiles_n, GROUP_M)
    batch64 = batch.to(tl.int64)
    off_m = pid_m * BLOCK_M
    off_n = pid_n * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, K, BLOCK_K, num_stages=STAGES):
        if A_T:
            a = a_desc.load([k, off_m]).T
        else:
            a = a_desc.load([off_m, k])
        if B_T:
            b = b_desc.load([off_n, k]).T
        else:
            b = b_desc.load([k, off_n])
        if IS_FP32:
            part = tl.dot(a, b, input_precision='ieee')
            if ON_GPU:
                acc = tl.inline_asm_elementwise('add.rn.f32 $0, $1, $2;', '=r,r,r', [acc, part], dtype=tl.float32, is_pure=True, pack=1)
            else:
                acc = acc + part
        elif UPCAST_BF16:
            acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision='ieee')
        else:
            acc = tl.dot(a, b, acc)
    offs_m = off_m + tl.arange(0, BLOCK_M)
    offs_n = off_n + tl.arange(0, BLOCK_N)
    c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
    t0 = acc + x0
    t1 = _decode__gelu_erf(t0)
    if C_UNIT > 1:
        c_cols = tl.max_contiguous(offs_n, C_UNIT)
    else:
        c_cols = offs_n
    c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
    tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)

@functools.lru_cache(maxsize=None)
def _decode__sm_count(device_index: int) -> int:
    if not torch.cuda.is_available():
        return 4
    return torch.cuda.get_device_properties(device_index).multi_processor_count

def _decode__as_3d(a, b):
    """(A as (batch, M, K), B as (batch, K, N), the output's shape); views where strides allow."""
    if a.dim() < 2 or b.dim() < 2:
        raise ValueError(f'launch_linear_bias_gelu: operands must have 2 or more dims, got {tuple(a.shape)} and {tuple(b.shape)}')
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f'launch_linear_bias_gelu: inner dims differ: {tuple(a.shape)} @ {tuple(b.shape)}')
    m, k, n = (a.shape[-2], a.shape[-1], b.shape[-1])
    if b.dim() == 2:
        out_shape = (*a.shape[:-1], n)
        return (a.reshape(1, -1, k), b.unsqueeze(0), out_shape)
    if a.dim() == 2:
        b3 = b.reshape(-1, k, n)
        return (a.unsqueeze(0).expand(b3.shape[0], m, k), b3, (*b.shape[:-2], m, n))
    if a.shape[:-2] != b.shape[:-2]:
        raise ValueError(f'launch_linear_bias_gelu: batch dims differ ({tuple(a.shape[:-2])} vs {tuple(b.shape[:-2])}); broadcast batch dims are not covered')
    return (a.reshape(-1, m, k), b.reshape(-1, k, n), (*a.shape[:-2], m, n))

@triton.jit
def _decode__pad_copy_kernel(src, dst, R, C, s_b, s_r, s_c, d_b, d_r, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    pid_b = tl.program_id(2).to(tl.int64)
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (rows[:, None] < R) & (cols[None, :] < C)
    rows64 = rows.to(tl.int64)
    x = tl.load(src + pid_b * s_b + rows64[:, None] * s_r + cols[None, :] * s_c, mask=mask)
    tl.store(dst + pid_b * d_b + rows64[:, None] * d_r + cols[None, :], x, mask=mask)

def _decode__unaligned(t3) -> bool:
    """Whether the pointer kernel would read t3 (batch, R, C) through a padded copy (_aligned):
    a unit-stride dim whose rows (or, with batches, batch stride) are not a multiple of 16
    elements, or a base that is not 16-byte aligned. Neither dim contiguous: read as it is."""
    if t3.stride(2) == 1 or t3.shape[2] == 1:
        lead_dim = 1
    elif t3.stride(1) == 1 or t3.shape[1] == 1:
        return _decode__unaligned(t3.transpose(1, 2))
    else:
        return False
    strides_ok = t3.stride(lead_dim) % 16 == 0 and (t3.shape[0] == 1 or t3.stride(0) % 16 == 0)
    return not (strides_ok and t3.data_ptr() % 16 == 0)

def _decode__aligned(t3):
    """t3 (batch, R, C) read by the GEMM; when its row stride is not a multiple of 16 elements
    (a width of 4097, or of 1000), a copy into rows padded to 16 elements, viewed at the original
    width. Triton vectorizes a tile load only along rows whose stride it can prove to be a
    multiple of 16 elements; scalar loads cost the GEMM several times the copy (on an H100,
    4095x4097x4093 took 5.9 ms, bench/results/runs/tune-h100-gemm-attention.json; gelu(linear) at
    4099 x 3073 x 1000 took 0.99 ms with rows of 1000 and 0.09 ms with rows of 1024,
    bench/results/gemm-odd-h100.json). Where descriptor loads are available the launcher takes
    them for such operands instead (tma_plan), and this copy is the fallback."""
    if not _decode__unaligned(t3):
        return t3
    if not (t3.stride(2) == 1 or t3.shape[2] == 1):
        return _decode__aligned(t3.transpose(1, 2)).transpose(1, 2)
    elem = 16
    batch, rows, cols = t3.shape
    padded = _decode__cdiv(cols, elem) * elem
    out = torch.empty((batch, rows, padded), dtype=t3.dtype, device=t3.device)
    grid = (_decode__cdiv(rows, 32), _decode__cdiv(cols, 128), batch)
    _decode__pad_copy_kernel[grid](t3, out, rows, cols, t3.stride(0), t3.stride(1), t3.stride(2), out.stride(0), out.stride(1), BLOCK_R=32, BLOCK_C=128, num_warps=4)
    return out[:, :, :cols]
_decode_TMA_AVAILABLE = hasattr(tl, 'tensor_descriptor') and hasattr(TensorDescriptor, 'from_tensor')

@functools.lru_cache(maxsize=None)
def _decode__capability(device_index: int) -> tuple[int, int]:
    return torch.cuda.get_device_capability(device_index)

def _decode__tma_refused(t: torch.Tensor, wanted: bool=_decode_USE_TMA) -> str | None:
    """Why no call on `t`'s device takes descriptor loads under this config, or None."""
    if not wanted:
        return 'config: use_tma is off'
    if not _decode_TMA_AVAILABLE:
        return 'the installed Triton has no tensor descriptors'
    if not t.is_cuda:
        return "not a CUDA device (Triton's interpreter runs the pointer kernel)"
    if _decode__capability(t.get_device())[0] < 9:
        return 'TMA needs compute capability 9.0 or newer'
    return None

def _decode_tma_plan(a3, b3) -> str:
    """"tma" when this call takes the TMA kernel, else why it takes the pointer kernel.

    With use_tma off, a call whose A or B rows would need a padded copy for the pointer kernel
    (rows of 1000 or 3073 elements, say: 16-byte aligned, not 16-element aligned) takes the
    descriptor kernel where it can: it reads such rows in place at full speed, where the copy
    costs a kernel and a buffer (at 4099 x 1000 -> 3073 on an H100, 0.098 ms against 0.376 ms
    padded, bench/results/gemm-odd-h100.json). Not under split-K, which the TMA kernel lacks,
    and for 16-bit operands only: float32 through descriptors at the default 128x256x64 tiles
    needs 256 KB of shared memory and does not compile (runs/probe-fp32-tma-h100.txt)."""
    odd_rows = not _decode_USE_TMA and _decode_SPLIT_K == 1 and (a3.element_size() == 2) and (_decode__unaligned(a3) or _decode__unaligned(b3))
    refused = _decode__tma_refused(a3, _decode_USE_TMA or odd_rows)
    if refused:
        return refused
    if a3.shape[0] != 1:
        return 'batched operands (the TMA kernel is 2-D)'
    for name, t in (('A', a3[0]), ('B', b3[0])):
        if t.stride(-1) != 1 and t.stride(-2) != 1:
            return f'{name} has no unit stride'
        outer = t.stride(-2) if t.stride(-1) == 1 else t.stride(-1)
        if t.data_ptr() % 16 or outer * t.element_size() % 16:
            return f"{name}'s base or row stride is not 16-byte aligned"
    return 'tma'

class _decode__RecordedDescriptor(TensorDescriptor):
    """A descriptor of a recorded launch (_gemm's recipe), built without TensorDescriptor's
    checks: the recipe's key (the caller's shapes, strides, dtypes and 16-byte alignment) fixes
    all those checks read, and the recording call's descriptors passed them. Building the two
    descriptors with the checks took 6 us of an H100 host's time a call
    (bench/results/probe-host-parts-h100.json)."""

    def __init__(self, base, shape, strides, block_shape):
        self.base, self.shape, self.strides, self.block_shape = (base, shape, strides, block_shape)

def _decode__descriptor(t, rows_block: int, cols_block: int):
    """A descriptor over 2-D `t` and whether the kernel must transpose what it loads."""
    if t.stride(-1) == 1:
        return (TensorDescriptor(t, list(t.shape), [t.stride(0), 1], [rows_block, cols_block]), False)
    return (TensorDescriptor(t, [t.shape[1], t.shape[0]], [t.stride(1), 1], [cols_block, rows_block]), True)

def _decode__epilogue_args(extras, out_shape, c_shape, like):
    """The epilogue's operands, checked, and their strides, in the kernels' argument order."""
    args, strides, flags = ([], [], {})
    n = c_shape[2]
    t = extras[0]
    if t.dim() != 1 or t.shape[0] != n or t.dtype != like.dtype:
        raise ValueError(f'launch_linear_bias_gelu: epilogue input 0 is {tuple(t.shape)} {t.dtype}; expected ({n},) {like.dtype}, broadcast along N')
    strides.append(t.stride(0))
    args.append(t)
    return (args, strides, flags)

def _decode_fp32_stages(stages: int=_decode_NUM_STAGES) -> int:
    """Pipeline stages of an fp32 launch: NUM_STAGES, lowered until 4-byte tiles fit. A loop
    pipelined in n stages keeps n - 1 tiles of A and B in shared memory (Triton 3.6 asked for
    8 x 48 KB at 9 stages of 128x64x64 fp32 tiles, runs/gpu-tests-h100-round17.txt)."""
    per_stage = (_decode_BLOCK_M * _decode_BLOCK_K + _decode_BLOCK_K * _decode_BLOCK_N) * 4
    return max(1, min(stages, _decode_MAX_SHARED_BYTES // per_stage + 1))
_decode__RECIPES = {}
_decode__MAX_RECIPES = 256

def _decode__signature(a, b, extras, use_tma):
    return (a.shape, a.stride(), b.shape, b.stride(), a.dtype, b.dtype, a.device, a.data_ptr() % 16, b.data_ptr() % 16, use_tma, tuple(((t.shape, t.stride(), t.dtype, t.data_ptr() % 16) if isinstance(t, torch.Tensor) else type(t) for t in extras)))

def _decode__output_unit(c3, cols: int) -> int:
    """C_UNIT of a launch that writes c3 (batch, M, N), a new contiguous tensor, in stores
    `cols` columns wide: the widest vector (elements, at most 16 bytes) that N and c3's base align
    to, and so its strides (M * N, N), but not one that makes exactly 32 vectors of a store's row.
    Triton lays such a store out one row per warp, every warp on rows of its own, and on an H100
    that store was the slow one at every tile and slice width timed: TILED's 128x256 tiles at
    1000x1024->3000 took 23.0 us a call in 16-byte vectors and 18.9 in 8-byte ones (2-byte: 19.5),
    128x128 tiles 20.4 in 8-byte vectors against 18.3-18.5 in 4- or 16-byte ones
    (bench/results/runs/probe-gemm-store-h100-round171.json); at 1000x1024->4096, where Triton
    took 16 bytes by itself, TILED took 23.6 us and TILED in two epilogue slices 19.7
    (bench/results/probe-gemm-parts-h100.json). The kernels take N and those strides divided by
    the unit (unit_width) and store vectors of at most a unit (store_cols)."""
    unit = _decode__unit((c3.shape[2],), c3.data_ptr(), c3.element_size())
    if unit > 1 and cols // unit == 32:
        unit //= 2
    return unit

def _decode__split_buffers(ws_shape, tiles: int, like):
    """Split-K's fp32 partials (SPLIT_K, batch, M, N) and one zeroed arrival counter per output
    tile, new for every call (so two launches on two streams never share them); without split-K,
    placeholders the kernel never touches."""
    if ws_shape is None:
        return (like, like)
    return (torch.empty(ws_shape, dtype=torch.float32, device=like.device), torch.zeros(tiles, dtype=torch.int32, device=like.device))

def _decode__gemm(a, b, extras, use_tma=None, key=None):
    """epilogue(a @ b) for a (..., M, K), b (..., K, N) of one dtype; `use_tma` None: tma_plan.
    `key`: the call's _signature, where the caller has it."""
    if key is None:
        key = _decode__signature(a, b, extras, use_tma)
    recipe = _decode__RECIPES.get(key)
    if recipe is None:
        return _decode__gemm_first(a, b, extras, use_tma, key)
    epi = [t if isinstance(t, torch.Tensor) else float(t) for t in extras]
    if recipe[0] == 'tma':
        _, out_shape, grid, (a_box, b_box), args, kwargs, direct = recipe
        out = torch.empty(out_shape, dtype=a.dtype, device=a.device)
        _decode__run(_decode__gemm_tma_kernel, grid, direct, (_decode__RecordedDescriptor(a, *a_box), _decode__RecordedDescriptor(b, *b_box), out, *epi, *args), kwargs)
        return out
    _, out_shape, grid, args, kwargs, ws_shape, tiles, direct = recipe
    out = torch.empty(out_shape, dtype=a.dtype, device=a.device)
    workspace, locks = _decode__split_buffers(ws_shape, tiles, out)
    _decode__run(_decode__gemm_kernel, grid, direct, (a, b, out, workspace, locks, *epi, *args), kwargs)
    return out

def _decode__direct(compiled, kernel, grid, n_args: int, kwargs):
    """A recorded launch through the compiled kernel's own launcher: (the launcher over `grid`,
    the values of the kernel's parameters after its first `n_args`, all passed as keywords), or
    None in Triton's interpreter or where a parameter was left to its default.
    `kernel[grid](...)` binds and specializes every argument again on each call; a recipe's key
    (shapes, strides, dtypes, device, 16-byte alignment) already fixes all that specialization
    depends on, and its sizes and strides are the first call's. The verifier counts these
    launches as it counts `kernel[grid](...)` (verifier/runtime.py)."""
    if compiled is None:
        return None
    rest = kernel.arg_names[n_args:]
    if any((name not in kwargs for name in rest)):
        return None
    return (compiled[(*grid, 1, 1)[:3]], tuple((kwargs[name] for name in rest)))

def _decode__run(kernel, grid, direct, args, kwargs):
    """kernel[grid](*args, **kwargs), through `direct` (from _direct) where there is one."""
    if direct is None:
        kernel[grid](*args, **kwargs)
    else:
        run, consts = direct
        run(*args, *consts)

def _decode__box(desc):
    return (list(desc.shape), list(desc.strides), list(desc.block_shape))

def _decode__record(key, recipe):
    if len(_decode__RECIPES) >= _decode__MAX_RECIPES:
        _decode__RECIPES.clear()
    _decode__RECIPES[key] = recipe

def _decode__same_tensors(pairs) -> bool:
    """Whether every view the launch took starts at its caller tensor's first element."""
    return all((not isinstance(v, torch.Tensor) or v.data_ptr() == t.data_ptr() for v, t in pairs))

def _decode__gemm_first(a, b, extras, use_tma, key):
    """_gemm for a call signature not seen yet: checks, views, the launch, and its recipe."""
    if a.dtype not in (torch.float32, torch.float16, torch.bfloat16) or b.dtype != a.dtype:
        raise TypeError(f'launch_linear_bias_gelu: unsupported dtypes {a.dtype} @ {b.dtype}')
    a3, b3, out_shape = _decode__as_3d(a, b)
    if use_tma is None:
        use_tma = _decode_tma_plan(a3, b3) == 'tma'
    if not use_tma:
        a3, b3 = (_decode__aligned(a3), _decode__aligned(b3))
    n_batch, m, k = a3.shape
    n = b3.shape[2]
    out = torch.empty(out_shape, dtype=a.dtype, device=a.device)
    if out.numel() == 0:
        return out
    c3 = out.reshape(n_batch, m, n)
    c_unit = _decode__output_unit(c3, _decode_BLOCK_N // _decode_EPILOGUE_SPLIT)
    epi, epi_strides, flags = _decode__epilogue_args(extras, out_shape, c3.shape, a)
    is_fp32 = a.dtype == torch.float32
    on_gpu = a.is_cuda
    upcast = a.dtype == torch.bfloat16 and (not on_gpu)
    stages = _decode_fp32_stages() if is_fp32 else _decode_NUM_STAGES
    tiles_m, tiles_n = (_decode__cdiv(m, _decode_BLOCK_M), _decode__cdiv(n, _decode_BLOCK_N))
    tiles = n_batch * tiles_m * tiles_n
    programs = tiles
    if _decode_PERSISTENT:
        programs = min(tiles, _decode__sm_count(max(a.get_device(), 0)) * _decode_PERSISTENT)
    if use_tma:
        a_desc, a_t = _decode__descriptor(a3[0], _decode_BLOCK_M, _decode_BLOCK_K)
        b_desc, b_t = _decode__descriptor(b3[0], _decode_BLOCK_K, _decode_BLOCK_N)
        args = (m, n // c_unit, k, c3.stride(0) // c_unit, c3.stride(1) // c_unit, *epi_strides)
        kwargs = dict(BLOCK_M=_decode_BLOCK_M, BLOCK_N=_decode_BLOCK_N, BLOCK_K=_decode_BLOCK_K, GROUP_M=_decode_GROUP_M, A_T=a_t, B_T=b_t, STAGES=stages, C_UNIT=c_unit, IS_FP32=is_fp32, UPCAST_BF16=upcast, ON_GPU=on_gpu, num_warps=_decode_NUM_WARPS, num_stages=stages, **flags, num_ctas=1 if b_t else _decode_NUM_CTAS)
        launch = (a_desc, b_desc, c3, *epi, *args)
        kwargs, compiled = _decode__launch_fitting(_decode__gemm_tma_kernel, (programs,), launch, kwargs, c3)
        if _decode__same_tensors([(a_desc.base, a), (b_desc.base, b), *zip(epi, extras)]):
            _decode__record(key, ('tma', out_shape, (programs,), (_decode__box(a_desc), _decode__box(b_desc)), args, kwargs, _decode__direct(compiled, _decode__gemm_tma_kernel, (programs,), len(launch), kwargs)))
        return out
    k_tiles = _decode__cdiv(k, _decode_BLOCK_K)
    split = 1 if _decode_PERSISTENT else max(1, min(_decode_SPLIT_K, k_tiles))
    k_per_split = _decode__cdiv(k_tiles, split) * _decode_BLOCK_K
    split = max(1, _decode__cdiv(k, k_per_split))
    ws_shape = (split, n_batch, m, n) if split > 1 else None
    workspace, locks = _decode__split_buffers(ws_shape, tiles, c3)
    biggest = max(a3.numel(), b3.numel(), c3.numel(), workspace.numel(), max((t.numel() for t in epi if isinstance(t, torch.Tensor)), default=0))
    grid = (programs,) if _decode_PERSISTENT else (tiles, split)
    args = (m, n // c_unit, k, n_batch, k_per_split, n_batch * m * n, a3.stride(0), a3.stride(1), a3.stride(2), b3.stride(0), b3.stride(1), b3.stride(2), c3.stride(0) // c_unit, c3.stride(1) // c_unit, *epi_strides)
    kwargs = dict(BLOCK_M=_decode_BLOCK_M, BLOCK_N=_decode_BLOCK_N, BLOCK_K=_decode_BLOCK_K, GROUP_M=_decode_GROUP_M, SPLIT_K=split, EVEN_M=m % _decode_BLOCK_M == 0 or (_decode_SHIFT_TAIL and m >= _decode_BLOCK_M), EVEN_N=n % _decode_BLOCK_N == 0, EVEN_K=k % _decode_BLOCK_K == 0, IS_FP32=is_fp32, UPCAST_BF16=upcast, ON_GPU=on_gpu, INDEX_64=biggest >= 2 ** 31, STAGES=stages, C_UNIT=c_unit, num_warps=_decode_NUM_WARPS, num_stages=stages, **flags)
    launch = (a3, b3, c3, workspace, locks, *epi, *args)
    kwargs, compiled = _decode__launch_fitting(_decode__gemm_kernel, grid, launch, kwargs, c3)
    if _decode__same_tensors([(a3, a), (b3, b), *zip(epi, extras)]):
        _decode__record(key, ('pointer', out_shape, grid, args, kwargs, ws_shape, tiles, _decode__direct(compiled, _decode__gemm_kernel, grid, len(launch), kwargs)))
    return out

def _decode__fit_stages(kernel, grid, args, kwargs, limit: int):
    """`kwargs` with the pipeline's stages lowered, one at a time, until the compiled kernel's
    shared memory fits `limit` (compiled, not launched: `warmup`); at one stage, as it is. float32
    tiles under a flattened tile loop or a sliced epilogue asked for 256-288 KB at the stages
    fp32_stages() allows, against 227 KB (H100, GPU round 46, bench/probe_gemm_default_gpu.py)."""
    while kwargs['num_stages'] > 1:
        if kernel.warmup(*args, grid=grid, **kwargs).metadata.shared <= limit:
            break
        stages = kwargs['num_stages'] - 1
        kwargs = {**kwargs, 'STAGES': stages, 'num_stages': stages}
    return kwargs

@functools.lru_cache(maxsize=None)
def _decode__shared_limit(device_index: int) -> int:
    return torch.cuda.get_device_properties(device_index).shared_memory_per_block_optin

def _decode__launch_fitting(kernel, grid, args, kwargs, out):
    """kernel[grid](*args, **kwargs), on a GPU with stages that fit its shared memory (_fit_stages);
    returns the keywords it ran with, which a recipe keeps, and the compiled kernel (None in the
    interpreter). `out`: the output, on the device."""
    if out.is_cuda:
        kwargs = _decode__fit_stages(kernel, grid, args, kwargs, _decode__shared_limit(out.get_device()))
    return (kwargs, kernel[grid](*args, **kwargs))

def _decode__operand(t, transposed: bool):
    return t.transpose(-2, -1) if transposed else t

def _decode_launch_linear_bias_gelu(a, b, in0):
    """linear_bias_gelu: epilogue(a @ b^T), one kernel launch."""
    return _decode__gemm(_decode__operand(a, _decode_A_TRANSPOSED), _decode__operand(b, _decode_B_TRANSPOSED), (in0,))

class _decode_ModelNew(torch.nn.Module):
    """Drop-in for the task's Model: the matmul and its epilogue in one kernel."""

    def __init__(self, *args, **kwargs):
        super().__init__()
        self.fc = torch.nn.Module()
        self.fc.weight = torch.nn.UninitializedParameter()
        self.fc.bias = torch.nn.UninitializedParameter()

    def forward(self, *args):
        return _decode_launch_linear_bias_gelu(args[0], self.fc.weight, self.fc.bias)

# skinny_rows: the kernels and launcher of the calls it routes (_decode_wide_)

def _decode_wide__cdiv(a: int, b: int) -> int:
    """ceil(a / b) for non-negative ints, on the host."""
    return -(-a // b)

def _decode_wide__next_pow2(n: int) -> int:
    """The smallest power of two >= n, 0 for 0 (as triton.next_power_of_2), on the host."""
    return 1 << (n - 1).bit_length() if n > 0 else 0

def _decode_wide__unit(values, data_ptr: int, itemsize: int) -> int:
    """The widest vector (elements, at most 16 bytes) that every offset and the base align to.
    A kernel takes its widths and strides divided by it and multiplies them back by the
    constexpr: Triton marks an int argument only when it is divisible by 16, so a 1000-wide
    bf16 row (2000 bytes, 16-byte aligned) would otherwise get 2-byte loads and stores."""
    unit = 16 // itemsize
    while unit > 1 and (any((v % unit for v in values)) or data_ptr % (unit * itemsize)):
        unit //= 2
    return unit
_decode_wide_PARAMS = {'BLOCK_M': 16, 'BLOCK_N': 64, 'BLOCK_K': 256, 'GROUP_M': 1, 'num_warps': 4, 'num_stages': 4, 'SPLIT_K': 1, 'persistent': 0, 'use_tma': True, 'EPILOGUE_SPLIT': 1, 'flatten': False, 'gelu_erf_fit': False, 'skinny_rows': 0, 'odd_tiled': False, 'single_wave_tiled': False, 'fuse_norm': False, 'ws_pingpong': False, 'ws_coop': False, 'num_ctas': 1, 'swap_ab': True, 'shift_tail': False}
_decode_wide_BLOCK_M = 16
_decode_wide_BLOCK_N = 64
_decode_wide_BLOCK_K = 256
_decode_wide_EPILOGUE_SPLIT = 1
_decode_wide_GROUP_M = 1
_decode_wide_NUM_WARPS = 4
_decode_wide_NUM_STAGES = 4
_decode_wide_NUM_CTAS = 1
_decode_wide_SPLIT_K = 1
_decode_wide_PERSISTENT = 0
_decode_wide_USE_TMA = True
_decode_wide_SHIFT_TAIL = False
_decode_wide_SKINNY_ROWS = 0
_decode_wide_SKINNY_TILES = ((32, 64, 'skinny_narrow', 'one'), (32, 128, 'skinny_narrow_wide', 'one'), (64, 64, 'skinny', 'tile'), (64, 64, 'skinny_pointer', 'any'), (64, 128, 'skinny_wide', 'any'), (64, 256, 'skinny_wider', 'any'), (128, 128, 'skinny_large', 'any'))
_decode_wide_DECODE_BLOCK_N = (32, 64, 128)
_decode_wide_DECODE_ROWS = 16
_decode_wide_ODD_TILED = False
_decode_wide_SINGLE_WAVE_TILED = False
_decode_wide_A_TRANSPOSED = False
_decode_wide_B_TRANSPOSED = True
_decode_wide_MAX_SHARED_BYTES = 227 * 1024

@triton.jit
def _decode_wide__relu(x):
    return tl.where(x < 0.0, 0.0, x)

@triton.jit
def _decode_wide__leaky_relu(x, slope):
    return tl.where(x > 0.0, x, x * slope)

@triton.jit
def _decode_wide__expm1(x):
    series = x * (1.0 + x * (0.5 + x * (1.0 / 6.0 + x * (1.0 / 24.0 + x * (1.0 / 120.0)))))
    return tl.where(tl.abs(x) < 0.03125, series, tl.exp(x) - 1.0)

@triton.jit
def _decode_wide__elu(x, alpha):
    return tl.where(x > 0.0, x, alpha * _decode_wide__expm1(x))

@triton.jit
def _decode_wide__sigmoid(x):
    return 1.0 / (1.0 + tl.exp(-x))

@triton.jit
def _decode_wide__silu(x):
    return x / (1.0 + tl.exp(-x))

@triton.jit
def _decode_wide__tanh(x):
    ax = tl.abs(x)
    t = tl.exp(-2.0 * ax)
    far = (1.0 - t) / (1.0 + t)
    x2 = ax * ax
    near = ax * (1.0 + x2 * (-1.0 / 3.0 + x2 * (2.0 / 15.0 + x2 * (-17.0 / 315.0))))
    r = tl.where(ax < 0.0625, near, far)
    return tl.where(x < 0.0, -r, r)

@triton.jit
def _decode_wide__gelu_erf(x):
    return 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))

@triton.jit
def _decode_wide__gelu_tanh(x):
    u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    return x / (1.0 + tl.exp(-2.0 * u))

@triton.jit
def _decode_wide__log1p_unit(e):
    series = e * (1.0 - e * (0.5 - e * (1.0 / 3.0 - e * (0.25 - e * 0.2))))
    return tl.where(e < 0.03125, series, tl.log(1.0 + e))

@triton.jit
def _decode_wide__softplus(x, beta, threshold):
    z = x * beta
    sp = tl.where(z > 0.0, z, 0.0) + _decode_wide__log1p_unit(tl.exp(-tl.abs(z)))
    return tl.where(z > threshold, x, sp / beta)

@triton.jit
def _decode_wide__mish(x):
    e = tl.exp(tl.where(x < 20.0, x, 20.0))
    n = e * (e + 2.0)
    return tl.where(x > 20.0, x, x * (n / (n + 2.0)))

@triton.jit
def _decode_wide__clamp_min(x, lo):
    return tl.where(x < lo, lo, x)

@triton.jit
def _decode_wide__clamp_max(x, hi):
    return tl.where(x > hi, hi, x)

@triton.jit
def _decode_wide__clamp(x, lo, hi):
    return _decode_wide__clamp_max(_decode_wide__clamp_min(x, lo), hi)

@triton.jit
def _decode_wide__hardsigmoid(x):
    return _decode_wide__clamp(x + 3.0, 0.0, 6.0) / 6.0

@triton.jit
def _decode_wide__hardswish(x):
    return x * _decode_wide__clamp(x + 3.0, 0.0, 6.0) / 6.0

@triton.jit
def _decode_wide__maximum(a, b):
    return tl.where((a > b) | (a != a), a, b)

@triton.jit
def _decode_wide__minimum(a, b):
    return tl.where((a < b) | (a != a), a, b)

@triton.jit
def _decode_wide__tile_coords(tile_id, tiles_m, tiles_n, GROUP_M: tl.constexpr):
    per_batch = tiles_m * tiles_n
    batch = tile_id // per_batch
    t = tile_id % per_batch
    in_group = GROUP_M * tiles_n
    first_m = t // in_group * GROUP_M
    group_rows = tl.minimum(tiles_m - first_m, GROUP_M)
    pid_m = first_m + t % in_group % group_rows
    pid_n = t % in_group // group_rows
    return (batch, pid_m, pid_n)

@triton.jit
def _decode_wide__gemm_kernel(a_ptr, b_ptr, c_ptr, w_ptr, lock_ptr, in0, M, N, K, n_batch, k_per_split, w_slot, stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn, stride_cb, stride_cm, s0_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, SPLIT_K: tl.constexpr, EVEN_M: tl.constexpr, EVEN_N: tl.constexpr, EVEN_K: tl.constexpr, STAGES: tl.constexpr, C_UNIT: tl.constexpr, IS_FP32: tl.constexpr, UPCAST_BF16: tl.constexpr, ON_GPU: tl.constexpr, INDEX_64: tl.constexpr):
    N = N * C_UNIT
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    tile_id = pid
    pid_k = tl.program_id(1)
    batch, pid_m, pid_n = _decode_wide__tile_coords(tile_id, tiles_m, tiles_n, GROUP_M)
    batch64 = batch.to(tl.int64)
    off_m = pid_m * BLOCK_M
    offs_m = off_m + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    if INDEX_64:
        offs_m = offs_m.to(tl.int64)
        offs_n = offs_n.to(tl.int64)
        offs_k = offs_k.to(tl.int64)
    k_start = pid_k * k_per_split
    k_end = tl.minimum(K, k_start + k_per_split)
    a_ptrs = a_ptr + batch64 * stride_ab + offs_m[:, None] * stride_am + (k_start + offs_k)[None, :] * stride_ak
    b_ptrs = b_ptr + batch64 * stride_bb + (k_start + offs_k)[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_N, BLOCK_M), dtype=tl.float32)
    k_full = k_start + (k_end - k_start) // BLOCK_K * BLOCK_K
    for k in tl.range(k_start, k_full, BLOCK_K, num_stages=STAGES):
        if EVEN_M:
            a = tl.load(a_ptrs)
        else:
            a = tl.load(a_ptrs, mask=offs_m[:, None] < M, other=0.0)
        if EVEN_N:
            b = tl.load(b_ptrs)
        else:
            b = tl.load(b_ptrs, mask=offs_n[None, :] < N, other=0.0)
        a, b = (tl.trans(b), tl.trans(a))
        if IS_FP32:
            part = tl.dot(a, b, input_precision='ieee')
            if ON_GPU:
                acc = tl.inline_asm_elementwise('add.rn.f32 $0, $1, $2;', '=r,r,r', [acc, part], dtype=tl.float32, is_pure=True, pack=1)
            else:
                acc = acc + part
        elif UPCAST_BF16:
            acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision='ieee')
        else:
            acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    if not EVEN_K:
        if k_full < k_end:
            a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & ((k_full + offs_k)[None, :] < k_end), other=0.0)
            b = tl.load(b_ptrs, mask=((k_full + offs_k)[:, None] < k_end) & (offs_n[None, :] < N), other=0.0)
            a, b = (tl.trans(b), tl.trans(a))
            if IS_FP32:
                part = tl.dot(a, b, input_precision='ieee')
                if ON_GPU:
                    acc = tl.inline_asm_elementwise('add.rn.f32 $0, $1, $2;', '=r,r,r', [acc, part], dtype=tl.float32, is_pure=True, pack=1)
                else:
                    acc = acc + part
            elif UPCAST_BF16:
                acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision='ieee')
            else:
                acc = tl.dot(a, b, acc)
    acc = tl.trans(acc)
    if SPLIT_K > 1:
        w_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
        w_tile = w_ptr + (batch64 * M + offs_m[:, None]) * N + offs_n[None, :]
        tl.store(w_tile + pid_k.to(tl.int64) * w_slot, acc, mask=w_mask)
        tl.debug_barrier()
        arrived = tl.atomic_add(lock_ptr + tile_id, 1, sem='acq_rel')
        if arrived == SPLIT_K - 1:
            acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
            for s in tl.static_range(SPLIT_K):
                acc += tl.load(w_tile, mask=w_mask, other=0.0, cache_modifier='.cg')
                w_tile += w_slot
            c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
            x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
            t0 = acc + x0
            t1 = _decode_wide__gelu_erf(t0)
            if C_UNIT > 1:
                c_cols = tl.max_contiguous(offs_n, C_UNIT)
            else:
                c_cols = offs_n
            c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
            tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)
    else:
        c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
        x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
        t0 = acc + x0
        t1 = _decode_wide__gelu_erf(t0)
        if C_UNIT > 1:
            c_cols = tl.max_contiguous(offs_n, C_UNIT)
        else:
            c_cols = offs_n
        c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
        tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)

@triton.jit
def _decode_wide__gemm_tma_kernel(a_desc, b_desc, c_ptr, in0, M, N, K, stride_cb, stride_cm, s0_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, A_T: tl.constexpr, B_T: tl.constexpr, STAGES: tl.constexpr, C_UNIT: tl.constexpr, IS_FP32: tl.constexpr, UPCAST_BF16: tl.constexpr, ON_GPU: tl.constexpr):
    N = N * C_UNIT
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    tile_id = pid
    batch, pid_m, pid_n = _decode_wide__tile_coords(tile_id, tiles_m, tiles_n, GROUP_M)
    batch64 = batch.to(tl.int64)
    off_m = pid_m * BLOCK_M
    off_n = pid_n * BLOCK_N
    acc = tl.zeros((BLOCK_N, BLOCK_M), dtype=tl.float32)
    for k in tl.range(0, K, BLOCK_K, num_stages=STAGES):
        if A_T:
            a = a_desc.load([k, off_m]).T
        else:
            a = a_desc.load([off_m, k])
        if B_T:
            b = b_desc.load([off_n, k]).T
        else:
            b = b_desc.load([k, off_n])
        a, b = (tl.trans(b), tl.trans(a))
        if IS_FP32:
            part = tl.dot(a, b, input_precision='ieee')
            if ON_GPU:
                acc = tl.inline_asm_elementwise('add.rn.f32 $0, $1, $2;', '=r,r,r', [acc, part], dtype=tl.float32, is_pure=True, pack=1)
            else:
                acc = acc + part
        elif UPCAST_BF16:
            acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision='ieee')
        else:
            acc = tl.dot(a, b, acc)
    acc = tl.trans(acc)
    offs_m = off_m + tl.arange(0, BLOCK_M)
    offs_n = off_n + tl.arange(0, BLOCK_N)
    c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
    t0 = acc + x0
    t1 = _decode_wide__gelu_erf(t0)
    if C_UNIT > 1:
        c_cols = tl.max_contiguous(offs_n, C_UNIT)
    else:
        c_cols = offs_n
    c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
    tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)

@functools.lru_cache(maxsize=None)
def _decode_wide__sm_count(device_index: int) -> int:
    if not torch.cuda.is_available():
        return 4
    return torch.cuda.get_device_properties(device_index).multi_processor_count

def _decode_wide__as_3d(a, b):
    """(A as (batch, M, K), B as (batch, K, N), the output's shape); views where strides allow."""
    if a.dim() < 2 or b.dim() < 2:
        raise ValueError(f'launch_linear_bias_gelu: operands must have 2 or more dims, got {tuple(a.shape)} and {tuple(b.shape)}')
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f'launch_linear_bias_gelu: inner dims differ: {tuple(a.shape)} @ {tuple(b.shape)}')
    m, k, n = (a.shape[-2], a.shape[-1], b.shape[-1])
    if b.dim() == 2:
        out_shape = (*a.shape[:-1], n)
        return (a.reshape(1, -1, k), b.unsqueeze(0), out_shape)
    if a.dim() == 2:
        b3 = b.reshape(-1, k, n)
        return (a.unsqueeze(0).expand(b3.shape[0], m, k), b3, (*b.shape[:-2], m, n))
    if a.shape[:-2] != b.shape[:-2]:
        raise ValueError(f'launch_linear_bias_gelu: batch dims differ ({tuple(a.shape[:-2])} vs {tuple(b.shape[:-2])}); broadcast batch dims are not covered')
    return (a.reshape(-1, m, k), b.reshape(-1, k, n), (*a.shape[:-2], m, n))

@triton.jit
def _decode_wide__pad_copy_kernel(src, dst, R, C, s_b, s_r, s_c, d_b, d_r, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    pid_b = tl.program_id(2).to(tl.int64)
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (rows[:, None] < R) & (cols[None, :] < C)
    rows64 = rows.to(tl.int64)
    x = tl.load(src + pid_b * s_b + rows64[:, None] * s_r + cols[None, :] * s_c, mask=mask)
    tl.store(dst + pid_b * d_b + rows64[:, None] * d_r + cols[None, :], x, mask=mask)

def _decode_wide__unaligned(t3) -> bool:
    """Whether the pointer kernel would read t3 (batch, R, C) through a padded copy (_aligned):
    a unit-stride dim whose rows (or, with batches, batch stride) are not a multiple of 16
    elements, or a base that is not 16-byte aligned. Neither dim contiguous: read as it is."""
    if t3.stride(2) == 1 or t3.shape[2] == 1:
        lead_dim = 1
    elif t3.stride(1) == 1 or t3.shape[1] == 1:
        return _decode_wide__unaligned(t3.transpose(1, 2))
    else:
        return False
    strides_ok = t3.stride(lead_dim) % 16 == 0 and (t3.shape[0] == 1 or t3.stride(0) % 16 == 0)
    return not (strides_ok and t3.data_ptr() % 16 == 0)

def _decode_wide__aligned(t3):
    """t3 (batch, R, C) read by the GEMM; when its row stride is not a multiple of 16 elements
    (a width of 4097, or of 1000), a copy into rows padded to 16 elements, viewed at the original
    width. Triton vectorizes a tile load only along rows whose stride it can prove to be a
    multiple of 16 elements; scalar loads cost the GEMM several times the copy (on an H100,
    4095x4097x4093 took 5.9 ms, bench/results/runs/tune-h100-gemm-attention.json; gelu(linear) at
    4099 x 3073 x 1000 took 0.99 ms with rows of 1000 and 0.09 ms with rows of 1024,
    bench/results/gemm-odd-h100.json). Where descriptor loads are available the launcher takes
    them for such operands instead (tma_plan), and this copy is the fallback."""
    if not _decode_wide__unaligned(t3):
        return t3
    if not (t3.stride(2) == 1 or t3.shape[2] == 1):
        return _decode_wide__aligned(t3.transpose(1, 2)).transpose(1, 2)
    elem = 16
    batch, rows, cols = t3.shape
    padded = _decode_wide__cdiv(cols, elem) * elem
    out = torch.empty((batch, rows, padded), dtype=t3.dtype, device=t3.device)
    grid = (_decode_wide__cdiv(rows, 32), _decode_wide__cdiv(cols, 128), batch)
    _decode_wide__pad_copy_kernel[grid](t3, out, rows, cols, t3.stride(0), t3.stride(1), t3.stride(2), out.stride(0), out.stride(1), BLOCK_R=32, BLOCK_C=128, num_warps=4)
    return out[:, :, :cols]
_decode_wide_TMA_AVAILABLE = hasattr(tl, 'tensor_descriptor') and hasattr(TensorDescriptor, 'from_tensor')

@functools.lru_cache(maxsize=None)
def _decode_wide__capability(device_index: int) -> tuple[int, int]:
    return torch.cuda.get_device_capability(device_index)

def _decode_wide__tma_refused(t: torch.Tensor, wanted: bool=_decode_wide_USE_TMA) -> str | None:
    """Why no call on `t`'s device takes descriptor loads under this config, or None."""
    if not wanted:
        return 'config: use_tma is off'
    if not _decode_wide_TMA_AVAILABLE:
        return 'the installed Triton has no tensor descriptors'
    if not t.is_cuda:
        return "not a CUDA device (Triton's interpreter runs the pointer kernel)"
    if _decode_wide__capability(t.get_device())[0] < 9:
        return 'TMA needs compute capability 9.0 or newer'
    return None

def _decode_wide_tma_plan(a3, b3) -> str:
    """"tma" when this call takes the TMA kernel, else why it takes the pointer kernel.

    With use_tma off, a call whose A or B rows would need a padded copy for the pointer kernel
    (rows of 1000 or 3073 elements, say: 16-byte aligned, not 16-element aligned) takes the
    descriptor kernel where it can: it reads such rows in place at full speed, where the copy
    costs a kernel and a buffer (at 4099 x 1000 -> 3073 on an H100, 0.098 ms against 0.376 ms
    padded, bench/results/gemm-odd-h100.json). Not under split-K, which the TMA kernel lacks,
    and for 16-bit operands only: float32 through descriptors at the default 128x256x64 tiles
    needs 256 KB of shared memory and does not compile (runs/probe-fp32-tma-h100.txt)."""
    odd_rows = not _decode_wide_USE_TMA and _decode_wide_SPLIT_K == 1 and (a3.element_size() == 2) and (_decode_wide__unaligned(a3) or _decode_wide__unaligned(b3))
    refused = _decode_wide__tma_refused(a3, _decode_wide_USE_TMA or odd_rows)
    if refused:
        return refused
    if a3.shape[0] != 1:
        return 'batched operands (the TMA kernel is 2-D)'
    for name, t in (('A', a3[0]), ('B', b3[0])):
        if t.stride(-1) != 1 and t.stride(-2) != 1:
            return f'{name} has no unit stride'
        outer = t.stride(-2) if t.stride(-1) == 1 else t.stride(-1)
        if t.data_ptr() % 16 or outer * t.element_size() % 16:
            return f"{name}'s base or row stride is not 16-byte aligned"
    return 'tma'

class _decode_wide__RecordedDescriptor(TensorDescriptor):
    """A descriptor of a recorded launch (_gemm's recipe), built without TensorDescriptor's
    checks: the recipe's key (the caller's shapes, strides, dtypes and 16-byte alignment) fixes
    all those checks read, and the recording call's descriptors passed them. Building the two
    descriptors with the checks took 6 us of an H100 host's time a call
    (bench/results/probe-host-parts-h100.json)."""

    def __init__(self, base, shape, strides, block_shape):
        self.base, self.shape, self.strides, self.block_shape = (base, shape, strides, block_shape)

def _decode_wide__descriptor(t, rows_block: int, cols_block: int):
    """A descriptor over 2-D `t` and whether the kernel must transpose what it loads."""
    if t.stride(-1) == 1:
        return (TensorDescriptor(t, list(t.shape), [t.stride(0), 1], [rows_block, cols_block]), False)
    return (TensorDescriptor(t, [t.shape[1], t.shape[0]], [t.stride(1), 1], [cols_block, rows_block]), True)

def _decode_wide__epilogue_args(extras, out_shape, c_shape, like):
    """The epilogue's operands, checked, and their strides, in the kernels' argument order."""
    args, strides, flags = ([], [], {})
    n = c_shape[2]
    t = extras[0]
    if t.dim() != 1 or t.shape[0] != n or t.dtype != like.dtype:
        raise ValueError(f'launch_linear_bias_gelu: epilogue input 0 is {tuple(t.shape)} {t.dtype}; expected ({n},) {like.dtype}, broadcast along N')
    strides.append(t.stride(0))
    args.append(t)
    return (args, strides, flags)

def _decode_wide_fp32_stages(stages: int=_decode_wide_NUM_STAGES) -> int:
    """Pipeline stages of an fp32 launch: NUM_STAGES, lowered until 4-byte tiles fit. A loop
    pipelined in n stages keeps n - 1 tiles of A and B in shared memory (Triton 3.6 asked for
    8 x 48 KB at 9 stages of 128x64x64 fp32 tiles, runs/gpu-tests-h100-round17.txt)."""
    per_stage = (_decode_wide_BLOCK_M * _decode_wide_BLOCK_K + _decode_wide_BLOCK_K * _decode_wide_BLOCK_N) * 4
    return max(1, min(stages, _decode_wide_MAX_SHARED_BYTES // per_stage + 1))
_decode_wide__RECIPES = {}
_decode_wide__MAX_RECIPES = 256

def _decode_wide__signature(a, b, extras, use_tma):
    return (a.shape, a.stride(), b.shape, b.stride(), a.dtype, b.dtype, a.device, a.data_ptr() % 16, b.data_ptr() % 16, use_tma, tuple(((t.shape, t.stride(), t.dtype, t.data_ptr() % 16) if isinstance(t, torch.Tensor) else type(t) for t in extras)))

def _decode_wide__output_unit(c3, cols: int) -> int:
    """C_UNIT of a launch that writes c3 (batch, M, N), a new contiguous tensor, in stores
    `cols` columns wide: the widest vector (elements, at most 16 bytes) that N and c3's base align
    to, and so its strides (M * N, N), but not one that makes exactly 32 vectors of a store's row.
    Triton lays such a store out one row per warp, every warp on rows of its own, and on an H100
    that store was the slow one at every tile and slice width timed: TILED's 128x256 tiles at
    1000x1024->3000 took 23.0 us a call in 16-byte vectors and 18.9 in 8-byte ones (2-byte: 19.5),
    128x128 tiles 20.4 in 8-byte vectors against 18.3-18.5 in 4- or 16-byte ones
    (bench/results/runs/probe-gemm-store-h100-round171.json); at 1000x1024->4096, where Triton
    took 16 bytes by itself, TILED took 23.6 us and TILED in two epilogue slices 19.7
    (bench/results/probe-gemm-parts-h100.json). The kernels take N and those strides divided by
    the unit (unit_width) and store vectors of at most a unit (store_cols)."""
    unit = _decode_wide__unit((c3.shape[2],), c3.data_ptr(), c3.element_size())
    if unit > 1 and cols // unit == 32:
        unit //= 2
    return unit

def _decode_wide__split_buffers(ws_shape, tiles: int, like):
    """Split-K's fp32 partials (SPLIT_K, batch, M, N) and one zeroed arrival counter per output
    tile, new for every call (so two launches on two streams never share them); without split-K,
    placeholders the kernel never touches."""
    if ws_shape is None:
        return (like, like)
    return (torch.empty(ws_shape, dtype=torch.float32, device=like.device), torch.zeros(tiles, dtype=torch.int32, device=like.device))

def _decode_wide__gemm(a, b, extras, use_tma=None, key=None):
    """epilogue(a @ b) for a (..., M, K), b (..., K, N) of one dtype; `use_tma` None: tma_plan.
    `key`: the call's _signature, where the caller has it."""
    if key is None:
        key = _decode_wide__signature(a, b, extras, use_tma)
    recipe = _decode_wide__RECIPES.get(key)
    if recipe is None:
        return _decode_wide__gemm_first(a, b, extras, use_tma, key)
    epi = [t if isinstance(t, torch.Tensor) else float(t) for t in extras]
    if recipe[0] == 'tma':
        _, out_shape, grid, (a_box, b_box), args, kwargs, direct = recipe
        out = torch.empty(out_shape, dtype=a.dtype, device=a.device)
        _decode_wide__run(_decode_wide__gemm_tma_kernel, grid, direct, (_decode_wide__RecordedDescriptor(a, *a_box), _decode_wide__RecordedDescriptor(b, *b_box), out, *epi, *args), kwargs)
        return out
    _, out_shape, grid, args, kwargs, ws_shape, tiles, direct = recipe
    out = torch.empty(out_shape, dtype=a.dtype, device=a.device)
    workspace, locks = _decode_wide__split_buffers(ws_shape, tiles, out)
    _decode_wide__run(_decode_wide__gemm_kernel, grid, direct, (a, b, out, workspace, locks, *epi, *args), kwargs)
    return out

def _decode_wide__direct(compiled, kernel, grid, n_args: int, kwargs):
    """A recorded launch through the compiled kernel's own launcher: (the launcher over `grid`,
    the values of the kernel's parameters after its first `n_args`, all passed as keywords), or
    None in Triton's interpreter or where a parameter was left to its default.
    `kernel[grid](...)` binds and specializes every argument again on each call; a recipe's key
    (shapes, strides, dtypes, device, 16-byte alignment) already fixes all that specialization
    depends on, and its sizes and strides are the first call's. The verifier counts these
    launches as it counts `kernel[grid](...)` (verifier/runtime.py)."""
    if compiled is None:
        return None
    rest = kernel.arg_names[n_args:]
    if any((name not in kwargs for name in rest)):
        return None
    return (compiled[(*grid, 1, 1)[:3]], tuple((kwargs[name] for name in rest)))

def _decode_wide__run(kernel, grid, direct, args, kwargs):
    """kernel[grid](*args, **kwargs), through `direct` (from _direct) where there is one."""
    if direct is None:
        kernel[grid](*args, **kwargs)
    else:
        run, consts = direct
        run(*args, *consts)

def _decode_wide__box(desc):
    return (list(desc.shape), list(desc.strides), list(desc.block_shape))

def _decode_wide__record(key, recipe):
    if len(_decode_wide__RECIPES) >= _decode_wide__MAX_RECIPES:
        _decode_wide__RECIPES.clear()
    _decode_wide__RECIPES[key] = recipe

def _decode_wide__same_tensors(pairs) -> bool:
    """Whether every view the launch took starts at its caller tensor's first element."""
    return all((not isinstance(v, torch.Tensor) or v.data_ptr() == t.data_ptr() for v, t in pairs))

def _decode_wide__gemm_first(a, b, extras, use_tma, key):
    """_gemm for a call signature not seen yet: checks, views, the launch, and its recipe."""
    if a.dtype not in (torch.float32, torch.float16, torch.bfloat16) or b.dtype != a.dtype:
        raise TypeError(f'launch_linear_bias_gelu: unsupported dtypes {a.dtype} @ {b.dtype}')
    a3, b3, out_shape = _decode_wide__as_3d(a, b)
    if use_tma is None:
        use_tma = _decode_wide_tma_plan(a3, b3) == 'tma'
    if not use_tma:
        a3, b3 = (_decode_wide__aligned(a3), _decode_wide__aligned(b3))
    n_batch, m, k = a3.shape
    n = b3.shape[2]
    out = torch.empty(out_shape, dtype=a.dtype, device=a.device)
    if out.numel() == 0:
        return out
    c3 = out.reshape(n_batch, m, n)
    c_unit = _decode_wide__output_unit(c3, _decode_wide_BLOCK_N // _decode_wide_EPILOGUE_SPLIT)
    epi, epi_strides, flags = _decode_wide__epilogue_args(extras, out_shape, c3.shape, a)
    is_fp32 = a.dtype == torch.float32
    on_gpu = a.is_cuda
    upcast = a.dtype == torch.bfloat16 and (not on_gpu)
    stages = _decode_wide_fp32_stages() if is_fp32 else _decode_wide_NUM_STAGES
    tiles_m, tiles_n = (_decode_wide__cdiv(m, _decode_wide_BLOCK_M), _decode_wide__cdiv(n, _decode_wide_BLOCK_N))
    tiles = n_batch * tiles_m * tiles_n
    programs = tiles
    if _decode_wide_PERSISTENT:
        programs = min(tiles, _decode_wide__sm_count(max(a.get_device(), 0)) * _decode_wide_PERSISTENT)
    if use_tma:
        a_desc, a_t = _decode_wide__descriptor(a3[0], _decode_wide_BLOCK_M, _decode_wide_BLOCK_K)
        b_desc, b_t = _decode_wide__descriptor(b3[0], _decode_wide_BLOCK_K, _decode_wide_BLOCK_N)
        args = (m, n // c_unit, k, c3.stride(0) // c_unit, c3.stride(1) // c_unit, *epi_strides)
        kwargs = dict(BLOCK_M=_decode_wide_BLOCK_M, BLOCK_N=_decode_wide_BLOCK_N, BLOCK_K=_decode_wide_BLOCK_K, GROUP_M=_decode_wide_GROUP_M, A_T=a_t, B_T=b_t, STAGES=stages, C_UNIT=c_unit, IS_FP32=is_fp32, UPCAST_BF16=upcast, ON_GPU=on_gpu, num_warps=_decode_wide_NUM_WARPS, num_stages=stages, **flags, num_ctas=1 if b_t else _decode_wide_NUM_CTAS)
        launch = (a_desc, b_desc, c3, *epi, *args)
        kwargs, compiled = _decode_wide__launch_fitting(_decode_wide__gemm_tma_kernel, (programs,), launch, kwargs, c3)
        if _decode_wide__same_tensors([(a_desc.base, a), (b_desc.base, b), *zip(epi, extras)]):
            _decode_wide__record(key, ('tma', out_shape, (programs,), (_decode_wide__box(a_desc), _decode_wide__box(b_desc)), args, kwargs, _decode_wide__direct(compiled, _decode_wide__gemm_tma_kernel, (programs,), len(launch), kwargs)))
        return out
    k_tiles = _decode_wide__cdiv(k, _decode_wide_BLOCK_K)
    split = 1 if _decode_wide_PERSISTENT else max(1, min(_decode_wide_SPLIT_K, k_tiles))
    k_per_split = _decode_wide__cdiv(k_tiles, split) * _decode_wide_BLOCK_K
    split = max(1, _decode_wide__cdiv(k, k_per_split))
    ws_shape = (split, n_batch, m, n) if split > 1 else None
    workspace, locks = _decode_wide__split_buffers(ws_shape, tiles, c3)
    biggest = max(a3.numel(), b3.numel(), c3.numel(), workspace.numel(), max((t.numel() for t in epi if isinstance(t, torch.Tensor)), default=0))
    grid = (programs,) if _decode_wide_PERSISTENT else (tiles, split)
    args = (m, n // c_unit, k, n_batch, k_per_split, n_batch * m * n, a3.stride(0), a3.stride(1), a3.stride(2), b3.stride(0), b3.stride(1), b3.stride(2), c3.stride(0) // c_unit, c3.stride(1) // c_unit, *epi_strides)
    kwargs = dict(BLOCK_M=_decode_wide_BLOCK_M, BLOCK_N=_decode_wide_BLOCK_N, BLOCK_K=_decode_wide_BLOCK_K, GROUP_M=_decode_wide_GROUP_M, SPLIT_K=split, EVEN_M=m % _decode_wide_BLOCK_M == 0 or (_decode_wide_SHIFT_TAIL and m >= _decode_wide_BLOCK_M), EVEN_N=n % _decode_wide_BLOCK_N == 0, EVEN_K=k % _decode_wide_BLOCK_K == 0, IS_FP32=is_fp32, UPCAST_BF16=upcast, ON_GPU=on_gpu, INDEX_64=biggest >= 2 ** 31, STAGES=stages, C_UNIT=c_unit, num_warps=_decode_wide_NUM_WARPS, num_stages=stages, **flags)
    launch = (a3, b3, c3, workspace, locks, *epi, *args)
    kwargs, compiled = _decode_wide__launch_fitting(_decode_wide__gemm_kernel, grid, launch, kwargs, c3)
    if _decode_wide__same_tensors([(a3, a), (b3, b), *zip(epi, extras)]):
        _decode_wide__record(key, ('pointer', out_shape, grid, args, kwargs, ws_shape, tiles, _decode_wide__direct(compiled, _decode_wide__gemm_kernel, grid, len(launch), kwargs)))
    return out

def _decode_wide__fit_stages(kernel, grid, args, kwargs, limit: int):
    """`kwargs` with the pipeline's stages lowered, one at a time, until the compiled kernel's
    shared memory fits `limit` (compiled, not launched: `warmup`); at one stage, as it is. float32
    tiles under a flattened tile loop or a sliced epilogue asked for 256-288 KB at the stages
    fp32_stages() allows, against 227 KB (H100, GPU round 46, bench/probe_gemm_default_gpu.py)."""
    while kwargs['num_stages'] > 1:
        if kernel.warmup(*args, grid=grid, **kwargs).metadata.shared <= limit:
            break
        stages = kwargs['num_stages'] - 1
        kwargs = {**kwargs, 'STAGES': stages, 'num_stages': stages}
    return kwargs

@functools.lru_cache(maxsize=None)
def _decode_wide__shared_limit(device_index: int) -> int:
    return torch.cuda.get_device_properties(device_index).shared_memory_per_block_optin

def _decode_wide__launch_fitting(kernel, grid, args, kwargs, out):
    """kernel[grid](*args, **kwargs), on a GPU with stages that fit its shared memory (_fit_stages);
    returns the keywords it ran with, which a recipe keeps, and the compiled kernel (None in the
    interpreter). `out`: the output, on the device."""
    if out.is_cuda:
        kwargs = _decode_wide__fit_stages(kernel, grid, args, kwargs, _decode_wide__shared_limit(out.get_device()))
    return (kwargs, kernel[grid](*args, **kwargs))

def _decode_wide__operand(t, transposed: bool):
    return t.transpose(-2, -1) if transposed else t

def _decode_wide_launch_linear_bias_gelu(a, b, in0):
    """linear_bias_gelu: epilogue(a @ b^T), one kernel launch."""
    return _decode_wide__gemm(_decode_wide__operand(a, _decode_wide_A_TRANSPOSED), _decode_wide__operand(b, _decode_wide_B_TRANSPOSED), (in0,))

class _decode_wide_ModelNew(torch.nn.Module):
    """Drop-in for the task's Model: the matmul and its epilogue in one kernel."""

    def __init__(self, *args, **kwargs):
        super().__init__()
        self.fc = torch.nn.Module()
        self.fc.weight = torch.nn.UninitializedParameter()
        self.fc.bias = torch.nn.UninitializedParameter()

    def forward(self, *args):
        return _decode_wide_launch_linear_bias_gelu(args[0], self.fc.weight, self.fc.bias)

# skinny_rows: the kernels and launcher of the calls it routes (_decode_wider_)

def _decode_wider__cdiv(a: int, b: int) -> int:
    """ceil(a / b) for non-negative ints, on the host."""
    return -(-a // b)

def _decode_wider__next_pow2(n: int) -> int:
    """The smallest power of two >= n, 0 for 0 (as triton.next_power_of_2), on the host."""
    return 1 << (n - 1).bit_length() if n > 0 else 0

def _decode_wider__unit(values, data_ptr: int, itemsize: int) -> int:
    """The widest vector (elements, at most 16 bytes) that every offset and the base align to.
    A kernel takes its widths and strides divided by it and multiplies them back by the
    constexpr: Triton marks an int argument only when it is divisible by 16, so a 1000-wide
    bf16 row (2000 bytes, 16-byte aligned) would otherwise get 2-byte loads and stores."""
    unit = 16 // itemsize
    while unit > 1 and (any((v % unit for v in values)) or data_ptr % (unit * itemsize)):
        unit //= 2
    return unit
_decode_wider_PARAMS = {'BLOCK_M': 16, 'BLOCK_N': 128, 'BLOCK_K': 128, 'GROUP_M': 1, 'num_warps': 4, 'num_stages': 4, 'SPLIT_K': 1, 'persistent': 0, 'use_tma': True, 'EPILOGUE_SPLIT': 1, 'flatten': False, 'gelu_erf_fit': False, 'skinny_rows': 0, 'odd_tiled': False, 'single_wave_tiled': False, 'fuse_norm': False, 'ws_pingpong': False, 'ws_coop': False, 'num_ctas': 1, 'swap_ab': True, 'shift_tail': False}
_decode_wider_BLOCK_M = 16
_decode_wider_BLOCK_N = 128
_decode_wider_BLOCK_K = 128
_decode_wider_EPILOGUE_SPLIT = 1
_decode_wider_GROUP_M = 1
_decode_wider_NUM_WARPS = 4
_decode_wider_NUM_STAGES = 4
_decode_wider_NUM_CTAS = 1
_decode_wider_SPLIT_K = 1
_decode_wider_PERSISTENT = 0
_decode_wider_USE_TMA = True
_decode_wider_SHIFT_TAIL = False
_decode_wider_SKINNY_ROWS = 0
_decode_wider_SKINNY_TILES = ((32, 64, 'skinny_narrow', 'one'), (32, 128, 'skinny_narrow_wide', 'one'), (64, 64, 'skinny', 'tile'), (64, 64, 'skinny_pointer', 'any'), (64, 128, 'skinny_wide', 'any'), (64, 256, 'skinny_wider', 'any'), (128, 128, 'skinny_large', 'any'))
_decode_wider_DECODE_BLOCK_N = (32, 64, 128)
_decode_wider_DECODE_ROWS = 16
_decode_wider_ODD_TILED = False
_decode_wider_SINGLE_WAVE_TILED = False
_decode_wider_A_TRANSPOSED = False
_decode_wider_B_TRANSPOSED = True
_decode_wider_MAX_SHARED_BYTES = 227 * 1024

@triton.jit
def _decode_wider__relu(x):
    return tl.where(x < 0.0, 0.0, x)

@triton.jit
def _decode_wider__leaky_relu(x, slope):
    return tl.where(x > 0.0, x, x * slope)

@triton.jit
def _decode_wider__expm1(x):
    series = x * (1.0 + x * (0.5 + x * (1.0 / 6.0 + x * (1.0 / 24.0 + x * (1.0 / 120.0)))))
    return tl.where(tl.abs(x) < 0.03125, series, tl.exp(x) - 1.0)

@triton.jit
def _decode_wider__elu(x, alpha):
    return tl.where(x > 0.0, x, alpha * _decode_wider__expm1(x))

@triton.jit
def _decode_wider__sigmoid(x):
    return 1.0 / (1.0 + tl.exp(-x))

@triton.jit
def _decode_wider__silu(x):
    return x / (1.0 + tl.exp(-x))

@triton.jit
def _decode_wider__tanh(x):
    ax = tl.abs(x)
    t = tl.exp(-2.0 * ax)
    far = (1.0 - t) / (1.0 + t)
    x2 = ax * ax
    near = ax * (1.0 + x2 * (-1.0 / 3.0 + x2 * (2.0 / 15.0 + x2 * (-17.0 / 315.0))))
    r = tl.where(ax < 0.0625, near, far)
    return tl.where(x < 0.0, -r, r)

@triton.jit
def _decode_wider__gelu_erf(x):
    return 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))

@triton.jit
def _decode_wider__gelu_tanh(x):
    u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    return x / (1.0 + tl.exp(-2.0 * u))

@triton.jit
def _decode_wider__log1p_unit(e):
    series = e * (1.0 - e * (0.5 - e * (1.0 / 3.0 - e * (0.25 - e * 0.2))))
    return tl.where(e < 0.03125, series, tl.log(1.0 + e))

@triton.jit
def _decode_wider__softplus(x, beta, threshold):
    z = x * beta
    sp = tl.where(z > 0.0, z, 0.0) + _decode_wider__log1p_unit(tl.exp(-tl.abs(z)))
    return tl.where(z > threshold, x, sp / beta)

@triton.jit
def _decode_wider__mish(x):
    e = tl.exp(tl.where(x < 20.0, x, 20.0))
    n = e * (e + 2.0)
    return tl.where(x > 20.0, x, x * (n / (n + 2.0)))

@triton.jit
def _decode_wider__clamp_min(x, lo):
    return tl.where(x < lo, lo, x)

@triton.jit
def _decode_wider__clamp_max(x, hi):
    return tl.where(x > hi, hi, x)

@triton.jit
def _decode_wider__clamp(x, lo, hi):
    return _decode_wider__clamp_max(_decode_wider__clamp_min(x, lo), hi)

@triton.jit
def _decode_wider__hardsigmoid(x):
    return _decode_wider__clamp(x + 3.0, 0.0, 6.0) / 6.0

@triton.jit
def _decode_wider__hardswish(x):
    return x * _decode_wider__clamp(x + 3.0, 0.0, 6.0) / 6.0

@triton.jit
def _decode_wider__maximum(a, b):
    return tl.where((a > b) | (a != a), a, b)

@triton.jit
def _decode_wider__minimum(a, b):
    return tl.where((a < b) | (a != a), a, b)

@triton.jit
def _decode_wider__tile_coords(tile_id, tiles_m, tiles_n, GROUP_M: tl.constexpr):
    per_batch = tiles_m * tiles_n
    batch = tile_id // per_batch
    t = tile_id % per_batch
    in_group = GROUP_M * tiles_n
    first_m = t // in_group * GROUP_M
    group_rows = tl.minimum(tiles_m - first_m, GROUP_M)
    pid_m = first_m + t % in_group % group_rows
    pid_n = t % in_group // group_rows
    return (batch, pid_m, pid_n)

@triton.jit
def _decode_wider__gemm_kernel(a_ptr, b_ptr, c_ptr, w_ptr, lock_ptr, in0, M, N, K, n_batch, k_per_split, w_slot, stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn, stride_cb, stride_cm, s0_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, SPLIT_K: tl.constexpr, EVEN_M: tl.constexpr, EVEN_N: tl.constexpr, EVEN_K: tl.constexpr, STAGES: tl.constexpr, C_UNIT: tl.constexpr, IS_FP32: tl.constexpr, UPCAST_BF16: tl.constexpr, ON_GPU: tl.constexpr, INDEX_64: tl.constexpr):
    N = N * C_UNIT
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    tile_id = pid
    pid_k = tl.program_id(1)
    batch, pid_m, pid_n = _decode_wider__tile_coords(tile_id, tiles_m, tiles_n, GROUP_M)
    batch64 = batch.to(tl.int64)
    off_m = pid_m * BLOCK_M
    offs_m = off_m + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    if INDEX_64:
        offs_m = offs_m.to(tl.int64)
        offs_n = offs_n.to(tl.int64)
        offs_k = offs_k.to(tl.int64)
    k_start = pid_k * k_per_split
    k_end = tl.minimum(K, k_start + k_per_split)
    a_ptrs = a_ptr + batch64 * stride_ab + offs_m[:, None] * stride_am + (k_start + offs_k)[None, :] * stride_ak
    b_ptrs = b_ptr + batch64 * stride_bb + (k_start + offs_k)[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_N, BLOCK_M), dtype=tl.float32)
    k_full = k_start + (k_end - k_start) // BLOCK_K * BLOCK_K
    for k in tl.range(k_start, k_full, BLOCK_K, num_stages=STAGES):
        if EVEN_M:
            a = tl.load(a_ptrs)
        else:
            a = tl.load(a_ptrs, mask=offs_m[:, None] < M, other=0.0)
        if EVEN_N:
            b = tl.load(b_ptrs)
        else:
            b = tl.load(b_ptrs, mask=offs_n[None, :] < N, other=0.0)
        a, b = (tl.trans(b), tl.trans(a))
        if IS_FP32:
            part = tl.dot(a, b, input_precision='ieee')
            if ON_GPU:
                acc = tl.inline_asm_elementwise('add.rn.f32 $0, $1, $2;', '=r,r,r', [acc, part], dtype=tl.float32, is_pure=True, pack=1)
            else:
                acc = acc + part
        elif UPCAST_BF16:
            acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision='ieee')
        else:
            acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    if not EVEN_K:
        if k_full < k_end:
            a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & ((k_full + offs_k)[None, :] < k_end), other=0.0)
            b = tl.load(b_ptrs, mask=((k_full + offs_k)[:, None] < k_end) & (offs_n[None, :] < N), other=0.0)
            a, b = (tl.trans(b), tl.trans(a))
            if IS_FP32:
                part = tl.dot(a, b, input_precision='ieee')
                if ON_GPU:
                    acc = tl.inline_asm_elementwise('add.rn.f32 $0, $1, $2;', '=r,r,r', [acc, part], dtype=tl.float32, is_pure=True, pack=1)
                else:
                    acc = acc + part
            elif UPCAST_BF16:
                acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision='ieee')
            else:
                acc = tl.dot(a, b, acc)
    acc = tl.trans(acc)
    if SPLIT_K > 1:
        w_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
        w_tile = w_ptr + (batch64 * M + offs_m[:, None]) * N + offs_n[None, :]
        tl.store(w_tile + pid_k.to(tl.int64) * w_slot, acc, mask=w_mask)
        tl.debug_barrier()
        arrived = tl.atomic_add(lock_ptr + tile_id, 1, sem='acq_rel')
        if arrived == SPLIT_K - 1:
            acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
            for s in tl.static_range(SPLIT_K):
                acc += tl.load(w_tile, mask=w_mask, other=0.0, cache_modifier='.cg')
                w_tile += w_slot
            c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
            x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
            t0 = acc + x0
            t1 = _decode_wider__gelu_erf(t0)
            if C_UNIT > 1:
                c_cols = tl.max_contiguous(offs_n, C_UNIT)
            else:
                c_cols = offs_n
            c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
            tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)
    else:
        c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
        x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
        t0 = acc + x0
        t1 = _decode_wider__gelu_erf(t0)
        if C_UNIT > 1:
            c_cols = tl.max_contiguous(offs_n, C_UNIT)
        else:
            c_cols = offs_n
        c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
        tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)

@triton.jit
def _decode_wider__gemm_tma_kernel(a_desc, b_desc, c_ptr, in0, M, N, K, stride_cb, stride_cm, s0_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, A_T: tl.constexpr, B_T: tl.constexpr, STAGES: tl.constexpr, C_UNIT: tl.constexpr, IS_FP32: tl.constexpr, UPCAST_BF16: tl.constexpr, ON_GPU: tl.constexpr):
    N = N * C_UNIT
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    tile_id = pid
    batch, pid_m, pid_n = _decode_wider__tile_coords(tile_id, tiles_m, tiles_n, GROUP_M)
    batch64 = batch.to(tl.int64)
    off_m = pid_m * BLOCK_M
    off_n = pid_n * BLOCK_N
    acc = tl.zeros((BLOCK_N, BLOCK_M), dtype=tl.float32)
    for k in tl.range(0, K, BLOCK_K, num_stages=STAGES):
        if A_T:
            a = a_desc.load([k, off_m]).T
        else:
            a = a_desc.load([off_m, k])
        if B_T:
            b = b_desc.load([off_n, k]).T
        else:
            b = b_desc.load([k, off_n])
        a, b = (tl.trans(b), tl.trans(a))
        if IS_FP32:
            part = tl.dot(a, b, input_precision='ieee')
            if ON_GPU:
                acc = tl.inline_asm_elementwise('add.rn.f32 $0, $1, $2;', '=r,r,r', [acc, part], dtype=tl.float32, is_pure=True, pack=1)
            else:
                acc = acc + part
        elif UPCAST_BF16:
            acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision='ieee')
        else:
            acc = tl.dot(a, b, acc)
    acc = tl.trans(acc)
    offs_m = off_m + tl.arange(0, BLOCK_M)
    offs_n = off_n + tl.arange(0, BLOCK_N)
    c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
    t0 = acc + x0
    t1 = _decode_wider__gelu_erf(t0)
    if C_UNIT > 1:
        c_cols = tl.max_contiguous(offs_n, C_UNIT)
    else:
        c_cols = offs_n
    c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
    tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)

@functools.lru_cache(maxsize=None)
def _decode_wider__sm_count(device_index: int) -> int:
    if not torch.cuda.is_available():
        return 4
    return torch.cuda.get_device_properties(device_index).multi_processor_count

def _decode_wider__as_3d(a, b):
    """(A as (batch, M, K), B as (batch, K, N), the output's shape); views where strides allow."""
    if a.dim() < 2 or b.dim() < 2:
        raise ValueError(f'launch_linear_bias_gelu: operands must have 2 or more dims, got {tuple(a.shape)} and {tuple(b.shape)}')
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f'launch_linear_bias_gelu: inner dims differ: {tuple(a.shape)} @ {tuple(b.shape)}')
    m, k, n = (a.shape[-2], a.shape[-1], b.shape[-1])
    if b.dim() == 2:
        out_shape = (*a.shape[:-1], n)
        return (a.reshape(1, -1, k), b.unsqueeze(0), out_shape)
    if a.dim() == 2:
        b3 = b.reshape(-1, k, n)
        return (a.unsqueeze(0).expand(b3.shape[0], m, k), b3, (*b.shape[:-2], m, n))
    if a.shape[:-2] != b.shape[:-2]:
        raise ValueError(f'launch_linear_bias_gelu: batch dims differ ({tuple(a.shape[:-2])} vs {tuple(b.shape[:-2])}); broadcast batch dims are not covered')
    return (a.reshape(-1, m, k), b.reshape(-1, k, n), (*a.shape[:-2], m, n))

@triton.jit
def _decode_wider__pad_copy_kernel(src, dst, R, C, s_b, s_r, s_c, d_b, d_r, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    pid_b = tl.program_id(2).to(tl.int64)
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (rows[:, None] < R) & (cols[None, :] < C)
    rows64 = rows.to(tl.int64)
    x = tl.load(src + pid_b * s_b + rows64[:, None] * s_r + cols[None, :] * s_c, mask=mask)
    tl.store(dst + pid_b * d_b + rows64[:, None] * d_r + cols[None, :], x, mask=mask)

def _decode_wider__unaligned(t3) -> bool:
    """Whether the pointer kernel would read t3 (batch, R, C) through a padded copy (_aligned):
    a unit-stride dim whose rows (or, with batches, batch stride) are not a multiple of 16
    elements, or a base that is not 16-byte aligned. Neither dim contiguous: read as it is."""
    if t3.stride(2) == 1 or t3.shape[2] == 1:
        lead_dim = 1
    elif t3.stride(1) == 1 or t3.shape[1] == 1:
        return _decode_wider__unaligned(t3.transpose(1, 2))
    else:
        return False
    strides_ok = t3.stride(lead_dim) % 16 == 0 and (t3.shape[0] == 1 or t3.stride(0) % 16 == 0)
    return not (strides_ok and t3.data_ptr() % 16 == 0)

def _decode_wider__aligned(t3):
    """t3 (batch, R, C) read by the GEMM; when its row stride is not a multiple of 16 elements
    (a width of 4097, or of 1000), a copy into rows padded to 16 elements, viewed at the original
    width. Triton vectorizes a tile load only along rows whose stride it can prove to be a
    multiple of 16 elements; scalar loads cost the GEMM several times the copy (on an H100,
    4095x4097x4093 took 5.9 ms, bench/results/runs/tune-h100-gemm-attention.json; gelu(linear) at
    4099 x 3073 x 1000 took 0.99 ms with rows of 1000 and 0.09 ms with rows of 1024,
    bench/results/gemm-odd-h100.json). Where descriptor loads are available the launcher takes
    them for such operands instead (tma_plan), and this copy is the fallback."""
    if not _decode_wider__unaligned(t3):
        return t3
    if not (t3.stride(2) == 1 or t3.shape[2] == 1):
        return _decode_wider__aligned(t3.transpose(1, 2)).transpose(1, 2)
    elem = 16
    batch, rows, cols = t3.shape
    padded = _decode_wider__cdiv(cols, elem) * elem
    out = torch.empty((batch, rows, padded), dtype=t3.dtype, device=t3.device)
    grid = (_decode_wider__cdiv(rows, 32), _decode_wider__cdiv(cols, 128), batch)
    _decode_wider__pad_copy_kernel[grid](t3, out, rows, cols, t3.stride(0), t3.stride(1), t3.stride(2), out.stride(0), out.stride(1), BLOCK_R=32, BLOCK_C=128, num_warps=4)
    return out[:, :, :cols]
_decode_wider_TMA_AVAILABLE = hasattr(tl, 'tensor_descriptor') and hasattr(TensorDescriptor, 'from_tensor')

@functools.lru_cache(maxsize=None)
def _decode_wider__capability(device_index: int) -> tuple[int, int]:
    return torch.cuda.get_device_capability(device_index)

def _decode_wider__tma_refused(t: torch.Tensor, wanted: bool=_decode_wider_USE_TMA) -> str | None:
    """Why no call on `t`'s device takes descriptor loads under this config, or None."""
    if not wanted:
        return 'config: use_tma is off'
    if not _decode_wider_TMA_AVAILABLE:
        return 'the installed Triton has no tensor descriptors'
    if not t.is_cuda:
        return "not a CUDA device (Triton's interpreter runs the pointer kernel)"
    if _decode_wider__capability(t.get_device())[0] < 9:
        return 'TMA needs compute capability 9.0 or newer'
    return None

def _decode_wider_tma_plan(a3, b3) -> str:
    """"tma" when this call takes the TMA kernel, else why it takes the pointer kernel.

    With use_tma off, a call whose A or B rows would need a padded copy for the pointer kernel
    (rows of 1000 or 3073 elements, say: 16-byte aligned, not 16-element aligned) takes the
    descriptor kernel where it can: it reads such rows in place at full speed, where the copy
    costs a kernel and a buffer (at 4099 x 1000 -> 3073 on an H100, 0.098 ms against 0.376 ms
    padded, bench/results/gemm-odd-h100.json). Not under split-K, which the TMA kernel lacks,
    and for 16-bit operands only: float32 through descriptors at the default 128x256x64 tiles
    needs 256 KB of shared memory and does not compile (runs/probe-fp32-tma-h100.txt)."""
    odd_rows = not _decode_wider_USE_TMA and _decode_wider_SPLIT_K == 1 and (a3.element_size() == 2) and (_decode_wider__unaligned(a3) or _decode_wider__unaligned(b3))
    refused = _decode_wider__tma_refused(a3, _decode_wider_USE_TMA or odd_rows)
    if refused:
        return refused
    if a3.shape[0] != 1:
        return 'batched operands (the TMA kernel is 2-D)'
    for name, t in (('A', a3[0]), ('B', b3[0])):
        if t.stride(-1) != 1 and t.stride(-2) != 1:
            return f'{name} has no unit stride'
        outer = t.stride(-2) if t.stride(-1) == 1 else t.stride(-1)
        if t.data_ptr() % 16 or outer * t.element_size() % 16:
            return f"{name}'s base or row stride is not 16-byte aligned"
    return 'tma'

class _decode_wider__RecordedDescriptor(TensorDescriptor):
    """A descriptor of a recorded launch (_gemm's recipe), built without TensorDescriptor's
    checks: the recipe's key (the caller's shapes, strides, dtypes and 16-byte alignment) fixes
    all those checks read, and the recording call's descriptors passed them. Building the two
    descriptors with the checks took 6 us of an H100 host's time a call
    (bench/results/probe-host-parts-h100.json)."""

    def __init__(self, base, shape, strides, block_shape):
        self.base, self.shape, self.strides, self.block_shape = (base, shape, strides, block_shape)

def _decode_wider__descriptor(t, rows_block: int, cols_block: int):
    """A descriptor over 2-D `t` and whether the kernel must transpose what it loads."""
    if t.stride(-1) == 1:
        return (TensorDescriptor(t, list(t.shape), [t.stride(0), 1], [rows_block, cols_block]), False)
    return (TensorDescriptor(t, [t.shape[1], t.shape[0]], [t.stride(1), 1], [cols_block, rows_block]), True)

def _decode_wider__epilogue_args(extras, out_shape, c_shape, like):
    """The epilogue's operands, checked, and their strides, in the kernels' argument order."""
    args, strides, flags = ([], [], {})
    n = c_shape[2]
    t = extras[0]
    if t.dim() != 1 or t.shape[0] != n or t.dtype != like.dtype:
        raise ValueError(f'launch_linear_bias_gelu: epilogue input 0 is {tuple(t.shape)} {t.dtype}; expected ({n},) {like.dtype}, broadcast along N')
    strides.append(t.stride(0))
    args.append(t)
    return (args, strides, flags)

def _decode_wider_fp32_stages(stages: int=_decode_wider_NUM_STAGES) -> int:
    """Pipeline stages of an fp32 launch: NUM_STAGES, lowered until 4-byte tiles fit. A loop
    pipelined in n stages keeps n - 1 tiles of A and B in shared memory (Triton 3.6 asked for
    8 x 48 KB at 9 stages of 128x64x64 fp32 tiles, runs/gpu-tests-h100-round17.txt)."""
    per_stage = (_decode_wider_BLOCK_M * _decode_wider_BLOCK_K + _decode_wider_BLOCK_K * _decode_wider_BLOCK_N) * 4
    return max(1, min(stages, _decode_wider_MAX_SHARED_BYTES // per_stage + 1))
_decode_wider__RECIPES = {}
_decode_wider__MAX_RECIPES = 256

def _decode_wider__signature(a, b, extras, use_tma):
    return (a.shape, a.stride(), b.shape, b.stride(), a.dtype, b.dtype, a.device, a.data_ptr() % 16, b.data_ptr() % 16, use_tma, tuple(((t.shape, t.stride(), t.dtype, t.data_ptr() % 16) if isinstance(t, torch.Tensor) else type(t) for t in extras)))

def _decode_wider__output_unit(c3, cols: int) -> int:
    """C_UNIT of a launch that writes c3 (batch, M, N), a new contiguous tensor, in stores
    `cols` columns wide: the widest vector (elements, at most 16 bytes) that N and c3's base align
    to, and so its strides (M * N, N), but not one that makes exactly 32 vectors of a store's row.
    Triton lays such a store out one row per warp, every warp on rows of its own, and on an H100
    that store was the slow one at every tile and slice width timed: TILED's 128x256 tiles at
    1000x1024->3000 took 23.0 us a call in 16-byte vectors and 18.9 in 8-byte ones (2-byte: 19.5),
    128x128 tiles 20.4 in 8-byte vectors against 18.3-18.5 in 4- or 16-byte ones
    (bench/results/runs/probe-gemm-store-h100-round171.json); at 1000x1024->4096, where Triton
    took 16 bytes by itself, TILED took 23.6 us and TILED in two epilogue slices 19.7
    (bench/results/probe-gemm-parts-h100.json). The kernels take N and those strides divided by
    the unit (unit_width) and store vectors of at most a unit (store_cols)."""
    unit = _decode_wider__unit((c3.shape[2],), c3.data_ptr(), c3.element_size())
    if unit > 1 and cols // unit == 32:
        unit //= 2
    return unit

def _decode_wider__split_buffers(ws_shape, tiles: int, like):
    """Split-K's fp32 partials (SPLIT_K, batch, M, N) and one zeroed arrival counter per output
    tile, new for every call (so two launches on two streams never share them); without split-K,
    placeholders the kernel never touches."""
    if ws_shape is None:
        return (like, like)
    return (torch.empty(ws_shape, dtype=torch.float32, device=like.device), torch.zeros(tiles, dtype=torch.int32, device=like.device))

def _decode_wider__gemm(a, b, extras, use_tma=None, key=None):
    """epilogue(a @ b) for a (..., M, K), b (..., K, N) of one dtype; `use_tma` None: tma_plan.
    `key`: the call's _signature, where the caller has it."""
    if key is None:
        key = _decode_wider__signature(a, b, extras, use_tma)
    recipe = _decode_wider__RECIPES.get(key)
    if recipe is None:
        return _decode_wider__gemm_first(a, b, extras, use_tma, key)
    epi = [t if isinstance(t, torch.Tensor) else float(t) for t in extras]
    if recipe[0] == 'tma':
        _, out_shape, grid, (a_box, b_box), args, kwargs, direct = recipe
        out = torch.empty(out_shape, dtype=a.dtype, device=a.device)
        _decode_wider__run(_decode_wider__gemm_tma_kernel, grid, direct, (_decode_wider__RecordedDescriptor(a, *a_box), _decode_wider__RecordedDescriptor(b, *b_box), out, *epi, *args), kwargs)
        return out
    _, out_shape, grid, args, kwargs, ws_shape, tiles, direct = recipe
    out = torch.empty(out_shape, dtype=a.dtype, device=a.device)
    workspace, locks = _decode_wider__split_buffers(ws_shape, tiles, out)
    _decode_wider__run(_decode_wider__gemm_kernel, grid, direct, (a, b, out, workspace, locks, *epi, *args), kwargs)
    return out

def _decode_wider__direct(compiled, kernel, grid, n_args: int, kwargs):
    """A recorded launch through the compiled kernel's own launcher: (the launcher over `grid`,
    the values of the kernel's parameters after its first `n_args`, all passed as keywords), or
    None in Triton's interpreter or where a parameter was left to its default.
    `kernel[grid](...)` binds and specializes every argument again on each call; a recipe's key
    (shapes, strides, dtypes, device, 16-byte alignment) already fixes all that specialization
    depends on, and its sizes and strides are the first call's. The verifier counts these
    launches as it counts `kernel[grid](...)` (verifier/runtime.py)."""
    if compiled is None:
        return None
    rest = kernel.arg_names[n_args:]
    if any((name not in kwargs for name in rest)):
        return None
    return (compiled[(*grid, 1, 1)[:3]], tuple((kwargs[name] for name in rest)))

def _decode_wider__run(kernel, grid, direct, args, kwargs):
    """kernel[grid](*args, **kwargs), through `direct` (from _direct) where there is one."""
    if direct is None:
        kernel[grid](*args, **kwargs)
    else:
        run, consts = direct
        run(*args, *consts)

def _decode_wider__box(desc):
    return (list(desc.shape), list(desc.strides), list(desc.block_shape))

def _decode_wider__record(key, recipe):
    if len(_decode_wider__RECIPES) >= _decode_wider__MAX_RECIPES:
        _decode_wider__RECIPES.clear()
    _decode_wider__RECIPES[key] = recipe

def _decode_wider__same_tensors(pairs) -> bool:
    """Whether every view the launch took starts at its caller tensor's first element."""
    return all((not isinstance(v, torch.Tensor) or v.data_ptr() == t.data_ptr() for v, t in pairs))

def _decode_wider__gemm_first(a, b, extras, use_tma, key):
    """_gemm for a call signature not seen yet: checks, views, the launch, and its recipe."""
    if a.dtype not in (torch.float32, torch.float16, torch.bfloat16) or b.dtype != a.dtype:
        raise TypeError(f'launch_linear_bias_gelu: unsupported dtypes {a.dtype} @ {b.dtype}')
    a3, b3, out_shape = _decode_wider__as_3d(a, b)
    if use_tma is None:
        use_tma = _decode_wider_tma_plan(a3, b3) == 'tma'
    if not use_tma:
        a3, b3 = (_decode_wider__aligned(a3), _decode_wider__aligned(b3))
    n_batch, m, k = a3.shape
    n = b3.shape[2]
    out = torch.empty(out_shape, dtype=a.dtype, device=a.device)
    if out.numel() == 0:
        return out
    c3 = out.reshape(n_batch, m, n)
    c_unit = _decode_wider__output_unit(c3, _decode_wider_BLOCK_N // _decode_wider_EPILOGUE_SPLIT)
    epi, epi_strides, flags = _decode_wider__epilogue_args(extras, out_shape, c3.shape, a)
    is_fp32 = a.dtype == torch.float32
    on_gpu = a.is_cuda
    upcast = a.dtype == torch.bfloat16 and (not on_gpu)
    stages = _decode_wider_fp32_stages() if is_fp32 else _decode_wider_NUM_STAGES
    tiles_m, tiles_n = (_decode_wider__cdiv(m, _decode_wider_BLOCK_M), _decode_wider__cdiv(n, _decode_wider_BLOCK_N))
    tiles = n_batch * tiles_m * tiles_n
    programs = tiles
    if _decode_wider_PERSISTENT:
        programs = min(tiles, _decode_wider__sm_count(max(a.get_device(), 0)) * _decode_wider_PERSISTENT)
    if use_tma:
        a_desc, a_t = _decode_wider__descriptor(a3[0], _decode_wider_BLOCK_M, _decode_wider_BLOCK_K)
        b_desc, b_t = _decode_wider__descriptor(b3[0], _decode_wider_BLOCK_K, _decode_wider_BLOCK_N)
        args = (m, n // c_unit, k, c3.stride(0) // c_unit, c3.stride(1) // c_unit, *epi_strides)
        kwargs = dict(BLOCK_M=_decode_wider_BLOCK_M, BLOCK_N=_decode_wider_BLOCK_N, BLOCK_K=_decode_wider_BLOCK_K, GROUP_M=_decode_wider_GROUP_M, A_T=a_t, B_T=b_t, STAGES=stages, C_UNIT=c_unit, IS_FP32=is_fp32, UPCAST_BF16=upcast, ON_GPU=on_gpu, num_warps=_decode_wider_NUM_WARPS, num_stages=stages, **flags, num_ctas=1 if b_t else _decode_wider_NUM_CTAS)
        launch = (a_desc, b_desc, c3, *epi, *args)
        kwargs, compiled = _decode_wider__launch_fitting(_decode_wider__gemm_tma_kernel, (programs,), launch, kwargs, c3)
        if _decode_wider__same_tensors([(a_desc.base, a), (b_desc.base, b), *zip(epi, extras)]):
            _decode_wider__record(key, ('tma', out_shape, (programs,), (_decode_wider__box(a_desc), _decode_wider__box(b_desc)), args, kwargs, _decode_wider__direct(compiled, _decode_wider__gemm_tma_kernel, (programs,), len(launch), kwargs)))
        return out
    k_tiles = _decode_wider__cdiv(k, _decode_wider_BLOCK_K)
    split = 1 if _decode_wider_PERSISTENT else max(1, min(_decode_wider_SPLIT_K, k_tiles))
    k_per_split = _decode_wider__cdiv(k_tiles, split) * _decode_wider_BLOCK_K
    split = max(1, _decode_wider__cdiv(k, k_per_split))
    ws_shape = (split, n_batch, m, n) if split > 1 else None
    workspace, locks = _decode_wider__split_buffers(ws_shape, tiles, c3)
    biggest = max(a3.numel(), b3.numel(), c3.numel(), workspace.numel(), max((t.numel() for t in epi if isinstance(t, torch.Tensor)), default=0))
    grid = (programs,) if _decode_wider_PERSISTENT else (tiles, split)
    args = (m, n // c_unit, k, n_batch, k_per_split, n_batch * m * n, a3.stride(0), a3.stride(1), a3.stride(2), b3.stride(0), b3.stride(1), b3.stride(2), c3.stride(0) // c_unit, c3.stride(1) // c_unit, *epi_strides)
    kwargs = dict(BLOCK_M=_decode_wider_BLOCK_M, BLOCK_N=_decode_wider_BLOCK_N, BLOCK_K=_decode_wider_BLOCK_K, GROUP_M=_decode_wider_GROUP_M, SPLIT_K=split, EVEN_M=m % _decode_wider_BLOCK_M == 0 or (_decode_wider_SHIFT_TAIL and m >= _decode_wider_BLOCK_M), EVEN_N=n % _decode_wider_BLOCK_N == 0, EVEN_K=k % _decode_wider_BLOCK_K == 0, IS_FP32=is_fp32, UPCAST_BF16=upcast, ON_GPU=on_gpu, INDEX_64=biggest >= 2 ** 31, STAGES=stages, C_UNIT=c_unit, num_warps=_decode_wider_NUM_WARPS, num_stages=stages, **flags)
    launch = (a3, b3, c3, workspace, locks, *epi, *args)
    kwargs, compiled = _decode_wider__launch_fitting(_decode_wider__gemm_kernel, grid, launch, kwargs, c3)
    if _decode_wider__same_tensors([(a3, a), (b3, b), *zip(epi, extras)]):
        _decode_wider__record(key, ('pointer', out_shape, grid, args, kwargs, ws_shape, tiles, _decode_wider__direct(compiled, _decode_wider__gemm_kernel, grid, len(launch), kwargs)))
    return out

def _decode_wider__fit_stages(kernel, grid, args, kwargs, limit: int):
    """`kwargs` with the pipeline's stages lowered, one at a time, until the compiled kernel's
    shared memory fits `limit` (compiled, not launched: `warmup`); at one stage, as it is. float32
    tiles under a flattened tile loop or a sliced epilogue asked for 256-288 KB at the stages
    fp32_stages() allows, against 227 KB (H100, GPU round 46, bench/probe_gemm_default_gpu.py)."""
    while kwargs['num_stages'] > 1:
        if kernel.warmup(*args, grid=grid, **kwargs).metadata.shared <= limit:
            break
        stages = kwargs['num_stages'] - 1
        kwargs = {**kwargs, 'STAGES': stages, 'num_stages': stages}
    return kwargs

@functools.lru_cache(maxsize=None)
def _decode_wider__shared_limit(device_index: int) -> int:
    return torch.cuda.get_device_properties(device_index).shared_memory_per_block_optin

def _decode_wider__launch_fitting(kernel, grid, args, kwargs, out):
    """kernel[grid](*args, **kwargs), on a GPU with stages that fit its shared memory (_fit_stages);
    returns the keywords it ran with, which a recipe keeps, and the compiled kernel (None in the
    interpreter). `out`: the output, on the device."""
    if out.is_cuda:
        kwargs = _decode_wider__fit_stages(kernel, grid, args, kwargs, _decode_wider__shared_limit(out.get_device()))
    return (kwargs, kernel[grid](*args, **kwargs))

def _decode_wider__operand(t, transposed: bool):
    return t.transpose(-2, -1) if transposed else t

def _decode_wider_launch_linear_bias_gelu(a, b, in0):
    """linear_bias_gelu: epilogue(a @ b^T), one kernel launch."""
    return _decode_wider__gemm(_decode_wider__operand(a, _decode_wider_A_TRANSPOSED), _decode_wider__operand(b, _decode_wider_B_TRANSPOSED), (in0,))

class _decode_wider_ModelNew(torch.nn.Module):
    """Drop-in for the task's Model: the matmul and its epilogue in one kernel."""

    def __init__(self, *args, **kwargs):
        super().__init__()
        self.fc = torch.nn.Module()
        self.fc.weight = torch.nn.UninitializedParameter()
        self.fc.bias = torch.nn.UninitializedParameter()

    def forward(self, *args):
        return _decode_wider_launch_linear_bias_gelu(args[0], self.fc.weight, self.fc.bias)

# odd_tiled: the kernels and launcher of the calls it routes (_tiled_)

def _tiled__cdiv(a: int, b: int) -> int:
    """ceil(a / b) for non-negative ints, on the host."""
    return -(-a // b)

def _tiled__next_pow2(n: int) -> int:
    """The smallest power of two >= n, 0 for 0 (as triton.next_power_of_2), on the host."""
    return 1 << (n - 1).bit_length() if n > 0 else 0

def _tiled__unit(values, data_ptr: int, itemsize: int) -> int:
    """The widest vector (elements, at most 16 bytes) that every offset and the base align to.
    A kernel takes its widths and strides divided by it and multiplies them back by the
    constexpr: Triton marks an int argument only when it is divisible by 16, so a 1000-wide
    bf16 row (2000 bytes, 16-byte aligned) would otherwise get 2-byte loads and stores."""
    unit = 16 // itemsize
    while unit > 1 and (any((v % unit for v in values)) or data_ptr % (unit * itemsize)):
        unit //= 2
    return unit
_tiled_PARAMS = {'BLOCK_M': 128, 'BLOCK_N': 256, 'BLOCK_K': 64, 'GROUP_M': 8, 'num_warps': 8, 'num_stages': 3, 'SPLIT_K': 1, 'persistent': 0, 'use_tma': False, 'EPILOGUE_SPLIT': 1, 'flatten': False, 'gelu_erf_fit': False, 'skinny_rows': 0, 'odd_tiled': False, 'single_wave_tiled': False, 'fuse_norm': False, 'ws_pingpong': False, 'ws_coop': False, 'num_ctas': 1, 'swap_ab': False, 'shift_tail': False}
_tiled_BLOCK_M = 128
_tiled_BLOCK_N = 256
_tiled_BLOCK_K = 64
_tiled_EPILOGUE_SPLIT = 1
_tiled_GROUP_M = 8
_tiled_NUM_WARPS = 8
_tiled_NUM_STAGES = 3
_tiled_NUM_CTAS = 1
_tiled_SPLIT_K = 1
_tiled_PERSISTENT = 0
_tiled_USE_TMA = False
_tiled_SHIFT_TAIL = False
_tiled_SKINNY_ROWS = 0
_tiled_SKINNY_TILES = ((32, 64, 'skinny_narrow', 'one'), (32, 128, 'skinny_narrow_wide', 'one'), (64, 64, 'skinny', 'tile'), (64, 64, 'skinny_pointer', 'any'), (64, 128, 'skinny_wide', 'any'), (64, 256, 'skinny_wider', 'any'), (128, 128, 'skinny_large', 'any'))
_tiled_DECODE_BLOCK_N = (32, 64, 128)
_tiled_DECODE_ROWS = 16
_tiled_ODD_TILED = False
_tiled_SINGLE_WAVE_TILED = False
_tiled_A_TRANSPOSED = False
_tiled_B_TRANSPOSED = True
_tiled_MAX_SHARED_BYTES = 227 * 1024

@triton.jit
def _tiled__relu(x):
    return tl.where(x < 0.0, 0.0, x)

@triton.jit
def _tiled__leaky_relu(x, slope):
    return tl.where(x > 0.0, x, x * slope)

@triton.jit
def _tiled__expm1(x):
    series = x * (1.0 + x * (0.5 + x * (1.0 / 6.0 + x * (1.0 / 24.0 + x * (1.0 / 120.0)))))
    return tl.where(tl.abs(x) < 0.03125, series, tl.exp(x) - 1.0)

@triton.jit
def _tiled__elu(x, alpha):
    return tl.where(x > 0.0, x, alpha * _tiled__expm1(x))

@triton.jit
def _tiled__sigmoid(x):
    return 1.0 / (1.0 + tl.exp(-x))

@triton.jit
def _tiled__silu(x):
    return x / (1.0 + tl.exp(-x))

@triton.jit
def _tiled__tanh(x):
    ax = tl.abs(x)
    t = tl.exp(-2.0 * ax)
    far = (1.0 - t) / (1.0 + t)
    x2 = ax * ax
    near = ax * (1.0 + x2 * (-1.0 / 3.0 + x2 * (2.0 / 15.0 + x2 * (-17.0 / 315.0))))
    r = tl.where(ax < 0.0625, near, far)
    return tl.where(x < 0.0, -r, r)

@triton.jit
def _tiled__gelu_erf(x):
    return 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))

@triton.jit
def _tiled__gelu_tanh(x):
    u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    return x / (1.0 + tl.exp(-2.0 * u))

@triton.jit
def _tiled__log1p_unit(e):
    series = e * (1.0 - e * (0.5 - e * (1.0 / 3.0 - e * (0.25 - e * 0.2))))
    return tl.where(e < 0.03125, series, tl.log(1.0 + e))

@triton.jit
def _tiled__softplus(x, beta, threshold):
    z = x * beta
    sp = tl.where(z > 0.0, z, 0.0) + _tiled__log1p_unit(tl.exp(-tl.abs(z)))
    return tl.where(z > threshold, x, sp / beta)

@triton.jit
def _tiled__mish(x):
    e = tl.exp(tl.where(x < 20.0, x, 20.0))
    n = e * (e + 2.0)
    return tl.where(x > 20.0, x, x * (n / (n + 2.0)))

@triton.jit
def _tiled__clamp_min(x, lo):
    return tl.where(x < lo, lo, x)

@triton.jit
def _tiled__clamp_max(x, hi):
    return tl.where(x > hi, hi, x)

@triton.jit
def _tiled__clamp(x, lo, hi):
    return _tiled__clamp_max(_tiled__clamp_min(x, lo), hi)

@triton.jit
def _tiled__hardsigmoid(x):
    return _tiled__clamp(x + 3.0, 0.0, 6.0) / 6.0

@triton.jit
def _tiled__hardswish(x):
    return x * _tiled__clamp(x + 3.0, 0.0, 6.0) / 6.0

@triton.jit
def _tiled__maximum(a, b):
    return tl.where((a > b) | (a != a), a, b)

@triton.jit
def _tiled__minimum(a, b):
    return tl.where((a < b) | (a != a), a, b)

@triton.jit
def _tiled__tile_coords(tile_id, tiles_m, tiles_n, GROUP_M: tl.constexpr):
    per_batch = tiles_m * tiles_n
    batch = tile_id // per_batch
    t = tile_id % per_batch
    in_group = GROUP_M * tiles_n
    first_m = t // in_group * GROUP_M
    group_rows = tl.minimum(tiles_m - first_m, GROUP_M)
    pid_m = first_m + t % in_group % group_rows
    pid_n = t % in_group // group_rows
    return (batch, pid_m, pid_n)

@triton.jit
def _tiled__gemm_kernel(a_ptr, b_ptr, c_ptr, w_ptr, lock_ptr, in0, M, N, K, n_batch, k_per_split, w_slot, stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn, stride_cb, stride_cm, s0_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, SPLIT_K: tl.constexpr, EVEN_M: tl.constexpr, EVEN_N: tl.constexpr, EVEN_K: tl.constexpr, STAGES: tl.constexpr, C_UNIT: tl.constexpr, IS_FP32: tl.constexpr, UPCAST_BF16: tl.constexpr, ON_GPU: tl.constexpr, INDEX_64: tl.constexpr):
    N = N * C_UNIT
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    tile_id = pid
    pid_k = tl.program_id(1)
    batch, pid_m, pid_n = _tiled__tile_coords(tile_id, tiles_m, tiles_n, GROUP_M)
    batch64 = batch.to(tl.int64)
    off_m = pid_m * BLOCK_M
    offs_m = off_m + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    if INDEX_64:
        offs_m = offs_m.to(tl.int64)
        offs_n = offs_n.to(tl.int64)
        offs_k = offs_k.to(tl.int64)
    k_start = pid_k * k_per_split
    k_end = tl.minimum(K, k_start + k_per_split)
    a_ptrs = a_ptr + batch64 * stride_ab + offs_m[:, None] * stride_am + (k_start + offs_k)[None, :] * stride_ak
    b_ptrs = b_ptr + batch64 * stride_bb + (k_start + offs_k)[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    k_full = k_start + (k_end - k_start) // BLOCK_K * BLOCK_K
    for k in tl.range(k_start, k_full, BLOCK_K, num_stages=STAGES):
        if EVEN_M:
            a = tl.load(a_ptrs)
        else:
            a = tl.load(a_ptrs, mask=offs_m[:, None] < M, other=0.0)
        if EVEN_N:
            b = tl.load(b_ptrs)
        else:
            b = tl.load(b_ptrs, mask=offs_n[None, :] < N, other=0.0)
        if IS_FP32:
            part = tl.dot(a, b, input_precision='ieee')
            if ON_GPU:
                acc = tl.inline_asm_elementwise('add.rn.f32 $0, $1, $2;', '=r,r,r', [acc, part], dtype=tl.float32, is_pure=True, pack=1)
            else:
                acc = acc + part
        elif UPCAST_BF16:
            acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision='ieee')
        else:
            acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    if not EVEN_K:
        if k_full < k_end:
            a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & ((k_full + offs_k)[None, :] < k_end), other=0.0)
            b = tl.load(b_ptrs, mask=((k_full + offs_k)[:, None] < k_end) & (offs_n[None, :] < N), other=0.0)
            if IS_FP32:
                part = tl.dot(a, b, input_precision='ieee')
                if ON_GPU:
                    acc = tl.inline_asm_elementwise('add.rn.f32 $0, $1, $2;', '=r,r,r', [acc, part], dtype=tl.float32, is_pure=True, pack=1)
                else:
                    acc = acc + part
            elif UPCAST_BF16:
                acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision='ieee')
            else:
                acc = tl.dot(a, b, acc)
    if SPLIT_K > 1:
        w_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
        w_tile = w_ptr + (batch64 * M + offs_m[:, None]) * N + offs_n[None, :]
        tl.store(w_tile + pid_k.to(tl.int64) * w_slot, acc, mask=w_mask)
        tl.debug_barrier()
        arrived = tl.atomic_add(lock_ptr + tile_id, 1, sem='acq_rel')
        if arrived == SPLIT_K - 1:
            acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
            for s in tl.static_range(SPLIT_K):
                acc += tl.load(w_tile, mask=w_mask, other=0.0, cache_modifier='.cg')
                w_tile += w_slot
            c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
            x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
            t0 = acc + x0
            t1 = _tiled__gelu_erf(t0)
            if C_UNIT > 1:
                c_cols = tl.max_contiguous(offs_n, C_UNIT)
            else:
                c_cols = offs_n
            c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
            tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)
    else:
        c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
        x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
        t0 = acc + x0
        t1 = _tiled__gelu_erf(t0)
        if C_UNIT > 1:
            c_cols = tl.max_contiguous(offs_n, C_UNIT)
        else:
            c_cols = offs_n
        c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
        tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)

@triton.jit
def _tiled__gemm_tma_kernel(a_desc, b_desc, c_ptr, in0, M, N, K, stride_cb, stride_cm, s0_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, A_T: tl.constexpr, B_T: tl.constexpr, STAGES: tl.constexpr, C_UNIT: tl.constexpr, IS_FP32: tl.constexpr, UPCAST_BF16: tl.constexpr, ON_GPU: tl.constexpr):
    N = N * C_UNIT
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    tile_id = pid
    batch, pid_m, pid_n = _tiled__tile_coords(tile_id, tiles_m, tiles_n, GROUP_M)
    batch64 = batch.to(tl.int64)
    off_m = pid_m * BLOCK_M
    off_n = pid_n * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, K, BLOCK_K, num_stages=STAGES):
        if A_T:
            a = a_desc.load([k, off_m]).T
        else:
            a = a_desc.load([off_m, k])
        if B_T:
            b = b_desc.load([off_n, k]).T
        else:
            b = b_desc.load([k, off_n])
        if IS_FP32:
            part = tl.dot(a, b, input_precision='ieee')
            if ON_GPU:
                acc = tl.inline_asm_elementwise('add.rn.f32 $0, $1, $2;', '=r,r,r', [acc, part], dtype=tl.float32, is_pure=True, pack=1)
            else:
                acc = acc + part
        elif UPCAST_BF16:
            acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision='ieee')
        else:
            acc = tl.dot(a, b, acc)
    offs_m = off_m + tl.arange(0, BLOCK_M)
    offs_n = off_n + tl.arange(0, BLOCK_N)
    c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    x0 = tl.load(in0 + offs_n * s0_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
    t0 = acc + x0
    t1 = _tiled__gelu_erf(t0)
    if C_UNIT > 1:
        c_cols = tl.max_contiguous(offs_n, C_UNIT)
    else:
        c_cols = offs_n
    c_ptrs = c_ptr + batch64 * stride_cb * C_UNIT + offs_m[:, None] * (stride_cm * C_UNIT) + c_cols[None, :]
    tl.store(c_ptrs, t1.to(c_ptr.dtype.element_ty), mask=c_mask)

@functools.lru_cache(maxsize=None)
def _tiled__sm_count(device_index: int) -> int:
    if not torch.cuda.is_available():
        return 4
    return torch.cuda.get_device_properties(device_index).multi_processor_count

def _tiled__as_3d(a, b):
    """(A as (batch, M, K), B as (batch, K, N), the output's shape); views where strides allow."""
    if a.dim() < 2 or b.dim() < 2:
        raise ValueError(f'launch_linear_bias_gelu: operands must have 2 or more dims, got {tuple(a.shape)} and {tuple(b.shape)}')
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f'launch_linear_bias_gelu: inner dims differ: {tuple(a.shape)} @ {tuple(b.shape)}')
    m, k, n = (a.shape[-2], a.shape[-1], b.shape[-1])
    if b.dim() == 2:
        out_shape = (*a.shape[:-1], n)
        return (a.reshape(1, -1, k), b.unsqueeze(0), out_shape)
    if a.dim() == 2:
        b3 = b.reshape(-1, k, n)
        return (a.unsqueeze(0).expand(b3.shape[0], m, k), b3, (*b.shape[:-2], m, n))
    if a.shape[:-2] != b.shape[:-2]:
        raise ValueError(f'launch_linear_bias_gelu: batch dims differ ({tuple(a.shape[:-2])} vs {tuple(b.shape[:-2])}); broadcast batch dims are not covered')
    return (a.reshape(-1, m, k), b.reshape(-1, k, n), (*a.shape[:-2], m, n))

@triton.jit
def _tiled__pad_copy_kernel(src, dst, R, C, s_b, s_r, s_c, d_b, d_r, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    pid_b = tl.program_id(2).to(tl.int64)
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (rows[:, None] < R) & (cols[None, :] < C)
    rows64 = rows.to(tl.int64)
    x = tl.load(src + pid_b * s_b + rows64[:, None] * s_r + cols[None, :] * s_c, mask=mask)
    tl.store(dst + pid_b * d_b + rows64[:, None] * d_r + cols[None, :], x, mask=mask)

def _tiled__unaligned(t3) -> bool:
    """Whether the pointer kernel would read t3 (batch, R, C) through a padded copy (_aligned):
    a unit-stride dim whose rows (or, with batches, batch stride) are not a multiple of 16
    elements, or a base that is not 16-byte aligned. Neither dim contiguous: read as it is."""
    if t3.stride(2) == 1 or t3.shape[2] == 1:
        lead_dim = 1
    elif t3.stride(1) == 1 or t3.shape[1] == 1:
        return _tiled__unaligned(t3.transpose(1, 2))
    else:
        return False
    strides_ok = t3.stride(lead_dim) % 16 == 0 and (t3.shape[0] == 1 or t3.stride(0) % 16 == 0)
    return not (strides_ok and t3.data_ptr() % 16 == 0)

def _tiled__aligned(t3):
    """t3 (batch, R, C) read by the GEMM; when its row stride is not a multiple of 16 elements
    (a width of 4097, or of 1000), a copy into rows padded to 16 elements, viewed at the original
    width. Triton vectorizes a tile load only along rows whose stride it can prove to be a
    multiple of 16 elements; scalar loads cost the GEMM several times the copy (on an H100,
    4095x4097x4093 took 5.9 ms, bench/results/runs/tune-h100-gemm-attention.json; gelu(linear) at
    4099 x 3073 x 1000 took 0.99 ms with rows of 1000 and 0.09 ms with rows of 1024,
    bench/results/gemm-odd-h100.json). Where descriptor loads are available the launcher takes
    them for such operands instead (tma_plan), and this copy is the fallback."""
    if not _tiled__unaligned(t3):
        return t3
    if not (t3.stride(2) == 1 or t3.shape[2] == 1):
        return _tiled__aligned(t3.transpose(1, 2)).transpose(1, 2)
    elem = 16
    batch, rows, cols = t3.shape
    padded = _tiled__cdiv(cols, elem) * elem
    out = torch.empty((batch, rows, padded), dtype=t3.dtype, device=t3.device)
    grid = (_tiled__cdiv(rows, 32), _tiled__cdiv(cols, 128), batch)
    _tiled__pad_copy_kernel[grid](t3, out, rows, cols, t3.stride(0), t3.stride(1), t3.stride(2), out.stride(0), out.stride(1), BLOCK_R=32, BLOCK_C=128, num_warps=4)
    return out[:, :, :cols]
_tiled_TMA_AVAILABLE = hasattr(tl, 'tensor_descriptor') and hasattr(TensorDescriptor, 'from_tensor')

@functools.lru_cache(maxsize=None)
def _tiled__capability(device_index: int) -> tuple[int, int]:
    return torch.cuda.get_device_capability(device_index)

def _tiled__tma_refused(t: torch.Tensor, wanted: bool=_tiled_USE_TMA) -> str | None:
    """Why no call on `t`'s device takes descriptor loads under this config, or None."""
    if not wanted:
        return 'config: use_tma is off'
    if not _tiled_TMA_AVAILABLE:
        return 'the installed Triton has no tensor descriptors'
    if not t.is_cuda:
        return "not a CUDA device (Triton's interpreter runs the pointer kernel)"
    if _tiled__capability(t.get_device())[0] < 9:
        return 'TMA needs compute capability 9.0 or newer'
    return None

def _tiled_tma_plan(a3, b3) -> str:
    """"tma" when this call takes the TMA kernel, else why it takes the pointer kernel.

    With use_tma off, a call whose A or B rows would need a padded copy for the pointer kernel
    (rows of 1000 or 3073 elements, say: 16-byte aligned, not 16-element aligned) takes the
    descriptor kernel where it can: it reads such rows in place at full speed, where the copy
    costs a kernel and a buffer (at 4099 x 1000 -> 3073 on an H100, 0.098 ms against 0.376 ms
    padded, bench/results/gemm-odd-h100.json). Not under split-K, which the TMA kernel lacks,
    and for 16-bit operands only: float32 through descriptors at the default 128x256x64 tiles
    needs 256 KB of shared memory and does not compile (runs/probe-fp32-tma-h100.txt)."""
    odd_rows = not _tiled_USE_TMA and _tiled_SPLIT_K == 1 and (a3.element_size() == 2) and (_tiled__unaligned(a3) or _tiled__unaligned(b3))
    refused = _tiled__tma_refused(a3, _tiled_USE_TMA or odd_rows)
    if refused:
        return refused
    if a3.shape[0] != 1:
        return 'batched operands (the TMA kernel is 2-D)'
    for name, t in (('A', a3[0]), ('B', b3[0])):
        if t.stride(-1) != 1 and t.stride(-2) != 1:
            return f'{name} has no unit stride'
        outer = t.stride(-2) if t.stride(-1) == 1 else t.stride(-1)
        if t.data_ptr() % 16 or outer * t.element_size() % 16:
            return f"{name}'s base or row stride is not 16-byte aligned"
    return 'tma'

class _tiled__RecordedDescriptor(TensorDescriptor):
    """A descriptor of a recorded launch (_gemm's recipe), built without TensorDescriptor's
    checks: the recipe's key (the caller's shapes, strides, dtypes and 16-byte alignment) fixes
    all those checks read, and the recording call's descriptors passed them. Building the two
    descriptors with the checks took 6 us of an H100 host's time a call
    (bench/results/probe-host-parts-h100.json)."""

    def __init__(self, base, shape, strides, block_shape):
        self.base, self.shape, self.strides, self.block_shape = (base, shape, strides, block_shape)

def _tiled__descriptor(t, rows_block: int, cols_block: int):
    """A descriptor over 2-D `t` and whether the kernel must transpose what it loads."""
    if t.stride(-1) == 1:
        return (TensorDescriptor(t, list(t.shape), [t.stride(0), 1], [rows_block, cols_block]), False)
    return (TensorDescriptor(t, [t.shape[1], t.shape[0]], [t.stride(1), 1], [cols_block, rows_block]), True)

def _tiled__epilogue_args(extras, out_shape, c_shape, like):
    """The epilogue's operands, checked, and their strides, in the kernels' argument order."""
    args, strides, flags = ([], [], {})
    n = c_shape[2]
    t = extras[0]
    if t.dim() != 1 or t.shape[0] != n or t.dtype != like.dtype:
        raise ValueError(f'launch_linear_bias_gelu: epilogue input 0 is {tuple(t.shape)} {t.dtype}; expected ({n},) {like.dtype}, broadcast along N')
    strides.append(t.stride(0))
    args.append(t)
    return (args, strides, flags)

def _tiled_fp32_stages(stages: int=_tiled_NUM_STAGES) -> int:
    """Pipeline stages of an fp32 launch: NUM_STAGES, lowered until 4-byte tiles fit. A loop
    pipelined in n stages keeps n - 1 tiles of A and B in shared memory (Triton 3.6 asked for
    8 x 48 KB at 9 stages of 128x64x64 fp32 tiles, runs/gpu-tests-h100-round17.txt)."""
    per_stage = (_tiled_BLOCK_M * _tiled_BLOCK_K + _tiled_BLOCK_K * _tiled_BLOCK_N) * 4
    return max(1, min(stages, _tiled_MAX_SHARED_BYTES // per_stage + 1))
_tiled__RECIPES = {}
_tiled__MAX_RECIPES = 256

def _tiled__signature(a, b, extras, use_tma):
    return (a.shape, a.stride(), b.shape, b.stride(), a.dtype, b.dtype, a.device, a.data_ptr() % 16, b.data_ptr() % 16, use_tma, tuple(((t.shape, t.stride(), t.dtype, t.data_ptr() % 16) if isinstance(t, torch.Tensor) else type(t) for t in extras)))

def _tiled__output_unit(c3, cols: int) -> int:
    """C_UNIT of a launch that writes c3 (batch, M, N), a new contiguous tensor, in stores
    `cols` columns wide: the widest vector (elements, at most 16 bytes) that N and c3's base align
    to, and so its strides (M * N, N), but not one that makes exactly 32 vectors of a store's row.
    Triton lays such a store out one row per warp, every warp on rows of its own, and on an H100
    that store was the slow one at every tile and slice width timed: TILED's 128x256 tiles at
    1000x1024->3000 took 23.0 us a call in 16-byte vectors and 18.9 in 8-byte ones (2-byte: 19.5),
    128x128 tiles 20.4 in 8-byte vectors against 18.3-18.5 in 4- or 16-byte ones
    (bench/results/runs/probe-gemm-store-h100-round171.json); at 1000x1024->4096, where Triton
    took 16 bytes by itself, TILED took 23.6 us and TILED in two epilogue slices 19.7
    (bench/results/probe-gemm-parts-h100.json). The kernels take N and those strides divided by
    the unit (unit_width) and store vectors of at most a unit (store_cols)."""
    unit = _tiled__unit((c3.shape[2],), c3.data_ptr(), c3.element_size())
    if unit > 1 and cols // unit == 32:
        unit //= 2
    return unit

def _tiled__split_buffers(ws_shape, tiles: int, like):
    """Split-K's fp32 partials (SPLIT_K, batch, M, N) and one zeroed arrival counter per output
    tile, new for every call (so two launches on two streams never share them); without split-K,
    placeholders the kernel never touches."""
    if ws_shape is None:
        return (like, like)
    return (torch.empty(ws_shape, dtype=torch.float32, device=like.device), torch.zeros(tiles, dtype=torch.int32, device=like.device))

def _tiled__gemm(a, b, extras, use_tma=None, key=None):
    """epilogue(a @ b) for a (..., M, K), b (..., K, N) of one dtype; `use_tma` None: tma_plan.
    `key`: the call's _signature, where the caller has it."""
    if key is None:
        key = _tiled__signature(a, b, extras, use_tma)
    recipe = _tiled__RECIPES.get(key)
    if recipe is None:
        return _tiled__gemm_first(a, b, extras, use_tma, key)
    epi = [t if isinstance(t, torch.Tensor) else float(t) for t in extras]
    if recipe[0] == 'tma':
        _, out_shape, grid, (a_box, b_box), args, kwargs, direct = recipe
        out = torch.empty(out_shape, dtype=a.dtype, device=a.device)
        _tiled__run(_tiled__gemm_tma_kernel, grid, direct, (_tiled__RecordedDescriptor(a, *a_box), _tiled__RecordedDescriptor(b, *b_box), out, *epi, *args), kwargs)
        return out
    _, out_shape, grid, args, kwargs, ws_shape, tiles, direct = recipe
    out = torch.empty(out_shape, dtype=a.dtype, device=a.device)
    workspace, locks = _tiled__split_buffers(ws_shape, tiles, out)
    _tiled__run(_tiled__gemm_kernel, grid, direct, (a, b, out, workspace, locks, *epi, *args), kwargs)
    return out

def _tiled__direct(compiled, kernel, grid, n_args: int, kwargs):
    """A recorded launch through the compiled kernel's own launcher: (the launcher over `grid`,
    the values of the kernel's parameters after its first `n_args`, all passed as keywords), or
    None in Triton's interpreter or where a parameter was left to its default.
    `kernel[grid](...)` binds and specializes every argument again on each call; a recipe's key
    (shapes, strides, dtypes, device, 16-byte alignment) already fixes all that specialization
    depends on, and its sizes and strides are the first call's. The verifier counts these
    launches as it counts `kernel[grid](...)` (verifier/runtime.py)."""
    if compiled is None:
        return None
    rest = kernel.arg_names[n_args:]
    if any((name not in kwargs for name in rest)):
        return None
    return (compiled[(*grid, 1, 1)[:3]], tuple((kwargs[name] for name in rest)))

def _tiled__run(kernel, grid, direct, args, kwargs):
    """kernel[grid](*args, **kwargs), through `direct` (from _direct) where there is one."""
    if direct is None:
        kernel[grid](*args, **kwargs)
    else:
        run, consts = direct
        run(*args, *consts)

def _tiled__box(desc):
    return (list(desc.shape), list(desc.strides), list(desc.block_shape))

def _tiled__record(key, recipe):
    if len(_tiled__RECIPES) >= _tiled__MAX_RECIPES:
        _tiled__RECIPES.clear()
    _tiled__RECIPES[key] = recipe

def _tiled__same_tensors(pairs) -> bool:
    """Whether every view the launch took starts at its caller tensor's first element."""
    return all((not isinstance(v, torch.Tensor) or v.data_ptr() == t.data_ptr() for v, t in pairs))

def _tiled__gemm_first(a, b, extras, use_tma, key):
    """_gemm for a call signature not seen yet: checks, views, the launch, and its recipe."""
    if a.dtype not in (torch.float32, torch.float16, torch.bfloat16) or b.dtype != a.dtype:
        raise TypeError(f'launch_linear_bias_gelu: unsupported dtypes {a.dtype} @ {b.dtype}')
    a3, b3, out_shape = _tiled__as_3d(a, b)
    if use_tma is None:
        use_tma = _tiled_tma_plan(a3, b3) == 'tma'
    if not use_tma:
        a3, b3 = (_tiled__aligned(a3), _tiled__aligned(b3))
    n_batch, m, k = a3.shape
    n = b3.shape[2]
    out = torch.empty(out_shape, dtype=a.dtype, device=a.device)
    if out.numel() == 0:
        return out
    c3 = out.reshape(n_batch, m, n)
    c_unit = _tiled__output_unit(c3, _tiled_BLOCK_N // _tiled_EPILOGUE_SPLIT)
    epi, epi_strides, flags = _tiled__epilogue_args(extras, out_shape, c3.shape, a)
    is_fp32 = a.dtype == torch.float32
    on_gpu = a.is_cuda
    upcast = a.dtype == torch.bfloat16 and (not on_gpu)
    stages = _tiled_fp32_stages() if is_fp32 else _tiled_NUM_STAGES
    tiles_m, tiles_n = (_tiled__cdiv(m, _tiled_BLOCK_M), _tiled__cdiv(n, _tiled_BLOCK_N))
    tiles = n_batch * tiles_m * tiles_n
    programs = tiles
    if _tiled_PERSISTENT:
        programs = min(tiles, _tiled__sm_count(max(a.get_device(), 0)) * _tiled_PERSISTENT)
    if use_tma:
        a_desc, a_t = _tiled__descriptor(a3[0], _tiled_BLOCK_M, _tiled_BLOCK_K)
        b_desc, b_t = _tiled__descriptor(b3[0], _tiled_BLOCK_K, _tiled_BLOCK_N)
        args = (m, n // c_unit, k, c3.stride(0) // c_unit, c3.stride(1) // c_unit, *epi_strides)
        kwargs = dict(BLOCK_M=_tiled_BLOCK_M, BLOCK_N=_tiled_BLOCK_N, BLOCK_K=_tiled_BLOCK_K, GROUP_M=_tiled_GROUP_M, A_T=a_t, B_T=b_t, STAGES=stages, C_UNIT=c_unit, IS_FP32=is_fp32, UPCAST_BF16=upcast, ON_GPU=on_gpu, num_warps=_tiled_NUM_WARPS, num_stages=stages, **flags, num_ctas=1 if b_t else _tiled_NUM_CTAS)
        launch = (a_desc, b_desc, c3, *epi, *args)
        kwargs, compiled = _tiled__launch_fitting(_tiled__gemm_tma_kernel, (programs,), launch, kwargs, c3)
        if _tiled__same_tensors([(a_desc.base, a), (b_desc.base, b), *zip(epi, extras)]):
            _tiled__record(key, ('tma', out_shape, (programs,), (_tiled__box(a_desc), _tiled__box(b_desc)), args, kwargs, _tiled__direct(compiled, _tiled__gemm_tma_kernel, (programs,), len(launch), kwargs)))
        return out
    k_tiles = _tiled__cdiv(k, _tiled_BLOCK_K)
    split = 1 if _tiled_PERSISTENT else max(1, min(_tiled_SPLIT_K, k_tiles))
    k_per_split = _tiled__cdiv(k_tiles, split) * _tiled_BLOCK_K
    split = max(1, _tiled__cdiv(k, k_per_split))
    ws_shape = (split, n_batch, m, n) if split > 1 else None
    workspace, locks = _tiled__split_buffers(ws_shape, tiles, c3)
    biggest = max(a3.numel(), b3.numel(), c3.numel(), workspace.numel(), max((t.numel() for t in epi if isinstance(t, torch.Tensor)), default=0))
    grid = (programs,) if _tiled_PERSISTENT else (tiles, split)
    args = (m, n // c_unit, k, n_batch, k_per_split, n_batch * m * n, a3.stride(0), a3.stride(1), a3.stride(2), b3.stride(0), b3.stride(1), b3.stride(2), c3.stride(0) // c_unit, c3.stride(1) // c_unit, *epi_strides)
    kwargs = dict(BLOCK_M=_tiled_BLOCK_M, BLOCK_N=_tiled_BLOCK_N, BLOCK_K=_tiled_BLOCK_K, GROUP_M=_tiled_GROUP_M, SPLIT_K=split, EVEN_M=m % _tiled_BLOCK_M == 0 or (_tiled_SHIFT_TAIL and m >= _tiled_BLOCK_M), EVEN_N=n % _tiled_BLOCK_N == 0, EVEN_K=k % _tiled_BLOCK_K == 0, IS_FP32=is_fp32, UPCAST_BF16=upcast, ON_GPU=on_gpu, INDEX_64=biggest >= 2 ** 31, STAGES=stages, C_UNIT=c_unit, num_warps=_tiled_NUM_WARPS, num_stages=stages, **flags)
    launch = (a3, b3, c3, workspace, locks, *epi, *args)
    kwargs, compiled = _tiled__launch_fitting(_tiled__gemm_kernel, grid, launch, kwargs, c3)
    if _tiled__same_tensors([(a3, a), (b3, b), *zip(epi, extras)]):
        _tiled__record(key, ('pointer', out_shape, grid, args, kwargs, ws_shape, tiles, _tiled__direct(compiled, _tiled__gemm_kernel, grid, len(launch), kwargs)))
    return out

def _tiled__fit_stages(kernel, grid, args, kwargs, limit: int):
    """`kwargs` with the pipeline's stages lowered, one at a time, until the compiled kernel's
    shared memory fits `limit` (compiled, not launched: `warmup`); at one stage, as it is. float32
    tiles under a flattened tile loop or a sliced epilogue asked for 256-288 KB at the stages
    fp32_stages() allows, against 227 KB (H100, GPU round 46, bench/probe_gemm_default_gpu.py)."""
    while kwargs['num_stages'] > 1:
        if kernel.warmup(*args, grid=grid, **kwargs).metadata.shared <= limit:
            break
        stages = kwargs['num_stages'] - 1
        kwargs = {**kwargs, 'STAGES': stages, 'num_stages': stages}
    return kwargs

@functools.lru_cache(maxsize=None)
def _tiled__shared_limit(device_index: int) -> int:
    return torch.cuda.get_device_properties(device_index).shared_memory_per_block_optin

def _tiled__launch_fitting(kernel, grid, args, kwargs, out):
    """kernel[grid](*args, **kwargs), on a GPU with stages that fit its shared memory (_fit_stages);
    returns the keywords it ran with, which a recipe keeps, and the compiled kernel (None in the
    interpreter). `out`: the output, on the device."""
    if out.is_cuda:
        kwargs = _tiled__fit_stages(kernel, grid, args, kwargs, _tiled__shared_limit(out.get_device()))
    return (kwargs, kernel[grid](*args, **kwargs))

def _tiled__operand(t, transposed: bool):
    return t.transpose(-2, -1) if transposed else t

def _tiled_launch_linear_bias_gelu(a, b, in0):
    """linear_bias_gelu: epilogue(a @ b^T), one kernel launch."""
    return _tiled__gemm(_tiled__operand(a, _tiled_A_TRANSPOSED), _tiled__operand(b, _tiled_B_TRANSPOSED), (in0,))

class _tiled_ModelNew(torch.nn.Module):
    """Drop-in for the task's Model: the matmul and its epilogue in one kernel."""

    def __init__(self, *args, **kwargs):
        super().__init__()
        self.fc = torch.nn.Module()
        self.fc.weight = torch.nn.UninitializedParameter()
        self.fc.bias = torch.nn.UninitializedParameter()

    def forward(self, *args):
        return _tiled_launch_linear_bias_gelu(args[0], self.fc.weight, self.fc.bias)
