"""attention_relpos rendered by kernel-zoo from template `attention` (score modifier: relative_position).

Params: {"block_m": 128, "block_n": 128, "causal_split": true, "num_stages": 3, "num_warps": 8, "reverse_m": true, "split_tail": true, "tma": true, "ws": true, "ws_pingpong": true}
Flash-attention forward: each program owns BLOCK_M query rows of one (batch, head) and walks the
keys BLOCK_N at a time with an online softmax in base 2 (log2(e) folded into the scale), the
running max, sum and output accumulated in float32; the output is normalized once at the end.
"""
import functools

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor
# ws: the warp-specialized kernel of the calls ws_plan admits on Hopper, in Gluon
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


PARAMS = {'block_m': 128, 'block_n': 128, 'num_warps': 8, 'num_stages': 3, 'causal_split': True, 'split_tail': True, 'reverse_m': True, 'tma': True, 'ws': True, 'ws_pingpong': True}
SCORE_MOD = "relative_position"
SOFTCAP = None
WINDOW = None
BLOCK_M = 128
BLOCK_N = 128
NUM_WARPS = 8
NUM_STAGES = 3
USE_TMA = True
# Building four descriptors cost the host 131 us per call on an H100 against 36 us for pointer
# loads (Triton 3.6, 4x16x256x64; bench/results/runs/host-overhead-h100-before-threshold.txt);
# below this much work the pointer loads finish first.
TMA_MIN_FLOPS = 2 ** 36
TUNED_HEAD_DIM = 128
LOG2E = tl.constexpr(1.4426950408889634)  # a constexpr: the kernels read it


@triton.jit
def _attn_step(
    acc, l_i, m_i, q, k_base, v_base, start_n, offs_m, offs_n, offs_d,
    sk_n, sk_d, sv_n, sv_d, seq_k, qk_scale, slope_log2, k_desc, v_desc, b, kv_h,
    MASK_KV: tl.constexpr, MASK_CAUSAL: tl.constexpr, MASK_WINDOW: tl.constexpr,
    WINDOW_SIZE: tl.constexpr, CAP: tl.constexpr, DOT_PRECISION: tl.constexpr,
    UPCAST_DOT: tl.constexpr, TMA: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr,
):
    kv_idx = start_n + offs_n
    k_ptrs = k_base + offs_d[:, None] * sk_d + kv_idx[None, :] * sk_n
    v_ptrs = v_base + kv_idx[:, None] * sv_n + offs_d[None, :] * sv_d
    if TMA:
        # (1, 1, BLOCK_N, HEAD_DIM) boxes; rows past seq_k come back zero (and are masked below)
        k = k_desc.load([b, kv_h, start_n, 0]).reshape(BLOCK_N, HEAD_DIM).T
        v = v_desc.load([b, kv_h, start_n, 0]).reshape(BLOCK_N, HEAD_DIM)
    elif MASK_KV:
        k = tl.load(k_ptrs, mask=kv_idx[None, :] < seq_k, other=0.0)
        v = tl.load(v_ptrs, mask=kv_idx[:, None] < seq_k, other=0.0)
    else:
        k = tl.load(k_ptrs)
        v = tl.load(v_ptrs)
    if UPCAST_DOT:
        qk = tl.dot(q.to(tl.float32), k.to(tl.float32), input_precision="ieee")
    else:
        qk = tl.dot(q, k, input_precision=DOT_PRECISION)
    # s2 = mod(s) * log2(e) for the scaled score s: what exp2 takes
    if MASK_KV or MASK_CAUSAL or MASK_WINDOW:
        s2 = qk * qk_scale + (offs_m[:, None] - kv_idx[None, :]).to(tl.float32) * LOG2E

        keep = kv_idx[None, :] < seq_k
        if MASK_CAUSAL:
            keep = keep & (kv_idx[None, :] <= offs_m[:, None])
        if MASK_WINDOW:
            keep = keep & (kv_idx[None, :] > offs_m[:, None] - WINDOW_SIZE)
        s2 = tl.where(keep, s2, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s2, 1))
        # a row with no key yet (a sliding window that starts past this block) keeps m = -inf;
        # subtracting 0 there gives p = 0 and alpha = 0 instead of inf - inf
        m_use = tl.where(m_new == float("-inf"), 0.0, m_new)
        p = tl.math.exp2(s2 - m_use[:, None])
        alpha = tl.math.exp2(m_i - m_use)
    else:
        s2 = qk * qk_scale + (offs_m[:, None] - kv_idx[None, :]).to(tl.float32) * LOG2E

        m_new = tl.maximum(m_i, tl.max(s2, 1))
        p = tl.math.exp2(s2 - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
    l_i = l_i * alpha + tl.sum(p, 1)
    acc = acc * alpha[:, None]
    # round to nearest even, as the GPU converts anyway; Triton's interpreter would truncate
    p = p.to(v.dtype, fp_downcast_rounding="rtne")
    if UPCAST_DOT:
        acc = tl.dot(p.to(tl.float32), v.to(tl.float32), acc, input_precision="ieee")
    else:
        acc = tl.dot(p, v, acc, input_precision=DOT_PRECISION)
    return acc, l_i, m_new


@triton.jit
def _attn_fwd_kernel(
    q_ptr, k_ptr, v_ptr, o_ptr, q_desc, k_desc, v_desc, o_desc,
    sq_b, sq_h, sq_m, sq_d, sk_b, sk_h, sk_n, sk_d,
    sv_b, sv_h, sv_n, sv_d, so_b, so_h, so_m, so_d,
    n_heads, group, seq_q, seq_k, qk_scale,
    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
    CAUSAL: tl.constexpr, EVEN_M: tl.constexpr, EVEN_N: tl.constexpr,
    WINDOW_SIZE: tl.constexpr, CAP: tl.constexpr, DOT_PRECISION: tl.constexpr,
    UPCAST_DOT: tl.constexpr, TMA: tl.constexpr,
):
    start_m = tl.num_programs(0) - 1 - tl.program_id(0)
    bh = tl.program_id(1)
    b = bh // n_heads
    h = bh % n_heads
    kv_h = h // group
    q_base = q_ptr + b.to(tl.int64) * sq_b + h.to(tl.int64) * sq_h
    k_base = k_ptr + b.to(tl.int64) * sk_b + kv_h.to(tl.int64) * sk_h
    v_base = v_ptr + b.to(tl.int64) * sv_b + kv_h.to(tl.int64) * sv_h
    o_base = o_ptr + b.to(tl.int64) * so_b + h.to(tl.int64) * so_h
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q_ptrs = q_base + offs_m[:, None] * sq_m + offs_d[None, :] * sq_d
    if TMA:
        q = q_desc.load([b, h, start_m * BLOCK_M, 0]).reshape(BLOCK_M, HEAD_DIM)
    elif EVEN_M:
        q = tl.load(q_ptrs)
    else:
        q = tl.load(q_ptrs, mask=offs_m[:, None] < seq_q, other=0.0)
    slope_log2 = 0.0
    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    full_hi = (seq_k // BLOCK_N) * BLOCK_N  # keys before full_hi come in whole blocks
    if CAUSAL:
        # keys past the last row of this block are masked for every row: never loaded
        hi = tl.minimum((start_m + 1) * BLOCK_M, seq_k)
        # blocks wholly below the diagonal need no causal mask; BLOCK_M % BLOCK_N == 0
        band_lo = tl.minimum(start_m * BLOCK_M, full_hi)
        for start_n in range(0, band_lo, BLOCK_N):
            acc, l_i, m_i = _attn_step(
                acc, l_i, m_i, q, k_base, v_base, start_n, offs_m, offs_n, offs_d,
                sk_n, sk_d, sv_n, sv_d, seq_k, qk_scale, slope_log2, k_desc, v_desc, b, kv_h,
                False, False, False, WINDOW_SIZE, CAP, DOT_PRECISION, UPCAST_DOT,
                TMA, BLOCK_N, HEAD_DIM)
        for start_n in range(band_lo, hi, BLOCK_N):
            acc, l_i, m_i = _attn_step(
                acc, l_i, m_i, q, k_base, v_base, start_n, offs_m, offs_n, offs_d,
                sk_n, sk_d, sv_n, sv_d, seq_k, qk_scale, slope_log2, k_desc, v_desc, b, kv_h,
                not EVEN_N, True, False, WINDOW_SIZE, CAP, DOT_PRECISION, UPCAST_DOT,
                TMA, BLOCK_N, HEAD_DIM)
    else:
        for start_n in range(0, full_hi, BLOCK_N):
            acc, l_i, m_i = _attn_step(
                acc, l_i, m_i, q, k_base, v_base, start_n, offs_m, offs_n, offs_d,
                sk_n, sk_d, sv_n, sv_d, seq_k, qk_scale, slope_log2, k_desc, v_desc, b, kv_h,
                False, False, False, WINDOW_SIZE, CAP, DOT_PRECISION, UPCAST_DOT,
                TMA, BLOCK_N, HEAD_DIM)
        if not EVEN_N:
            acc, l_i, m_i = _attn_step(
                acc, l_i, m_i, q, k_base, v_base, full_hi, offs_m, offs_n, offs_d,
                sk_n, sk_d, sv_n, sv_d, seq_k, qk_scale, slope_log2, k_desc, v_desc, b, kv_h,
                True, False, False, WINDOW_SIZE, CAP, DOT_PRECISION, UPCAST_DOT,
                TMA, BLOCK_N, HEAD_DIM)
    out = (acc / l_i[:, None]).to(o_ptr.dtype.element_ty, fp_downcast_rounding="rtne")
    o_ptrs = o_base + offs_m[:, None] * so_m + offs_d[None, :] * so_d
    if TMA:
        # the box's rows past seq_q are not written
        o_desc.store([b, h, start_m * BLOCK_M, 0], out.reshape(1, 1, BLOCK_M, HEAD_DIM))
    elif EVEN_M:
        tl.store(o_ptrs, out)
    else:
        tl.store(o_ptrs, out, mask=offs_m[:, None] < seq_q)


def _blocks(head_dim: int, itemsize: int) -> tuple[int, int]:
    """The config's tiles, halved for rows wider than the 16-bit head dim its budgets were
    checked at (head dim 256, or float32 elements)."""
    block_m, block_n = BLOCK_M, BLOCK_N
    scale = max(head_dim * itemsize // (TUNED_HEAD_DIM * 2), 1)
    while scale > 1:
        if block_n > 16:
            block_n //= 2
        elif block_m > 32:
            block_m //= 2
        scale //= 2
    return block_m, block_n


# Host-side descriptors and in-kernel descriptor loads, where the installed Triton has both.
TMA_AVAILABLE = hasattr(tl, "tensor_descriptor") and hasattr(TensorDescriptor, "from_tensor")


@functools.lru_cache(maxsize=None)
def _capability(device_index: int) -> tuple[int, int]:
    return torch.cuda.get_device_capability(device_index)


def _tma_refused(t: torch.Tensor, wanted: bool = USE_TMA) -> str | None:
    """Why no call on `t`'s device takes descriptor loads under this config, or None."""
    if not wanted:
        return "config: tma is off"
    if not TMA_AVAILABLE:
        return "the installed Triton has no tensor descriptors"
    if not t.is_cuda:
        return "not a CUDA device (Triton's interpreter runs the pointer kernel)"
    if _capability(t.get_device())[0] < 9:
        return "TMA needs compute capability 9.0 or newer"
    return None


def tma_plan(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> str:
    """"tma" when this call loads its tiles through tensor descriptors, else why it does not."""
    refused = _tma_refused(q)
    if refused:
        return refused
    if q.dtype == torch.float32:
        return "float32 takes pointer loads (descriptor loads are measured in 16-bit only)"
    if 4 * q.shape[0] * q.shape[1] * q.shape[2] * k.shape[2] * q.shape[3] < TMA_MIN_FLOPS:
        return "too little work to hide the host time of four descriptors"
    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.stride(3) != 1:
            return f"{name}'s head dim is not contiguous"
        if t.data_ptr() % 16 or any((s * t.element_size()) % 16 for s in t.stride()[:3]):
            return f"{name}'s base or strides are not 16-byte aligned"
    return "tma"


def _descriptor(t: torch.Tensor, rows: int):
    """A (1, 1, rows, head dim) box descriptor over (B, H, L, D) `t`; rows past L read as zero."""
    return TensorDescriptor(t, list(t.shape), list(t.stride()), [1, 1, rows, t.shape[3]])


# ---- ws: calls on an H100/H200 run a warp-specialized Gluon kernel (ws_plan) ----
# A CTA owns 128 query rows of one (batch, head): two consumer warp groups of 64 rows each, and a
# producer warp that loads q once and streams K and V blocks through a ring of shared-memory
# stages with TMA (each stage freed when both consumers are done with it). In each consumer the
# next block's q.K^T is issued before this block's softmax, and P.V (P from registers) runs on the
# tensor cores while the softmax of the next scores is computed. With ws_pingpong the two
# consumers take turns issuing their matmuls, so one's softmax runs while the other's matmuls do.
# Fixed launch: 128 keys a block, 2 stages, registers 240/240/24.
WS_ROWS, WS_BLOCK_N, WS_STAGES = 64, 128, 2
WS_BLOCK_M = 2 * WS_ROWS
# Calls with less work take the tl kernel. With its launches recorded (ws_call) this path's host
# time a call was the tl kernel's (50-58 us against 51-59, GPU round 261), and it was the faster
# of the two at the tasks' shapes down to 2x8x777x2049x128 (2^33.6 FLOPs; rounds 260-261,
# bench/probe_attention_shapes.py; README, attention); smaller calls were not timed.
WS_MIN_FLOPS = 2 ** 33
WS_PINGPONG = True
# the score modifier's term, once softmax drops the row's constant: kv_idx * column scale
# (relative position: -kv_idx; ALiBi: slope_h * kv_idx), times log2(e)
WS_COLUMN = 1
# Triton 3.6 names the TMA copies async_copy_global_to_shared / async_copy_shared_to_global,
# later releases async_load / async_store
_ws_tma_load = tma.async_load if hasattr(tma, "async_load") else tma.async_copy_global_to_shared
_ws_tma_store = tma.async_store if hasattr(tma, "async_store") else tma.async_copy_shared_to_global


@_ws_aggregate
class _WsAttn:
    q_desc: tma.tensor_descriptor
    k_desc: tma.tensor_descriptor
    v_desc: tma.tensor_descriptor
    o_desc: tma.tensor_descriptor
    q_bufs: gl.shared_memory_descriptor
    k_bufs: gl.shared_memory_descriptor
    v_bufs: gl.shared_memory_descriptor
    q_ready: gl.shared_memory_descriptor
    k_ready: gl.shared_memory_descriptor
    k_empty: gl.shared_memory_descriptor
    v_ready: gl.shared_memory_descriptor
    v_empty: gl.shared_memory_descriptor
    turn: gl.shared_memory_descriptor
    o_ptr: gl.tensor
    q_row: gl.tensor
    kv_row: gl.tensor
    off_m: gl.tensor
    seq_q: gl.tensor
    seq_k: gl.tensor
    n_full: gl.tensor
    n_blocks: gl.tensor
    qk_scale: gl.tensor
    col_scale: gl.tensor

    @gluon.constexpr_function
    def __init__(self, q_desc, k_desc, v_desc, o_desc, q_bufs, k_bufs, v_bufs, q_ready, k_ready,
                 k_empty, v_ready, v_empty, turn, o_ptr, q_row, kv_row, off_m, seq_q, seq_k,
                 n_full, n_blocks, qk_scale, col_scale):
        self.q_desc = q_desc
        self.k_desc = k_desc
        self.v_desc = v_desc
        self.o_desc = o_desc
        self.q_bufs = q_bufs
        self.k_bufs = k_bufs
        self.v_bufs = v_bufs
        self.q_ready = q_ready
        self.k_ready = k_ready
        self.k_empty = k_empty
        self.v_ready = v_ready
        self.v_empty = v_empty
        self.turn = turn
        self.o_ptr = o_ptr
        self.q_row = q_row
        self.kv_row = kv_row
        self.off_m = off_m
        self.seq_q = seq_q
        self.seq_k = seq_k
        self.n_full = n_full
        self.n_blocks = n_blocks
        self.qk_scale = qk_scale
        self.col_scale = col_scale


@gluon.jit
def _ws_loader(p):
    BLOCK_N: gl.constexpr = p.k_desc.block_type.shape[0]
    ROWS: gl.constexpr = p.q_desc.block_type.shape[0]
    STAGES: gl.constexpr = p.k_bufs.shape[0]
    kv_bytes: gl.constexpr = p.k_desc.block_type.nbytes
    for i in gl.static_range(2):
        mbarrier.expect(p.q_ready.index(i), p.q_desc.block_type.nbytes)
        _ws_tma_load(p.q_desc, [p.q_row + i * ROWS, 0], p.q_ready.index(i), p.q_bufs.index(i))
    for j in range(p.n_blocks):
        s = j % STAGES
        # a fresh barrier passes a wait on parity 1: the first lap finds every stage free
        phase = ((j // STAGES) & 1) ^ 1
        mbarrier.wait(p.k_empty.index(s), phase)
        mbarrier.expect(p.k_ready.index(s), kv_bytes)
        _ws_tma_load(p.k_desc, [p.kv_row + j * BLOCK_N, 0], p.k_ready.index(s), p.k_bufs.index(s))
        mbarrier.wait(p.v_empty.index(s), phase)
        mbarrier.expect(p.v_ready.index(s), kv_bytes)
        _ws_tma_load(p.v_desc, [p.kv_row + j * BLOCK_N, 0], p.v_ready.index(s), p.v_bufs.index(s))


@gluon.jit
def _ws_softmax(p, s, j, m_i, l_i, q_idx, MASK: gl.constexpr, COLUMN: gl.constexpr,
                CAUSAL: gl.constexpr):
    """The online softmax of one block's raw scores s, in base 2: (P, new max, new sum, alpha).
    MASK: keys past seq_k (a partial last block, or the next head's rows the block read) and,
    with CAUSAL, keys past the row's own index are masked."""
    BLOCK_N: gl.constexpr = s.shape[1]
    if COLUMN != 0 or MASK:
        kv_idx = j * BLOCK_N + gl.arange(0, BLOCK_N, layout=gl.SliceLayout(0, s.type.layout))
        t = s * p.qk_scale
        if COLUMN != 0:  # the modifier's key term (its query term is the row's constant)
            t = t + gl.expand_dims(kv_idx.to(gl.float32) * p.col_scale, 0)
        if MASK:
            keep = gl.expand_dims(kv_idx < p.seq_k, 0)
            if CAUSAL:
                keep = keep & (gl.expand_dims(kv_idx, 0) <= gl.expand_dims(q_idx, 1))
            t = gl.where(keep, t, float("-inf"))
        m_new = gl.maximum(m_i, gl.max(t, 1))
        pr = gl.exp2(t - gl.expand_dims(m_new, 1))
    else:  # the scale is positive: max(s) * scale is the scaled row's max, and one FMA a score
        m_new = gl.maximum(m_i, gl.max(s, 1) * p.qk_scale)
        pr = gl.exp2(s * p.qk_scale - gl.expand_dims(m_new, 1))
    alpha = gl.exp2(m_i - m_new)
    l_i = l_i * alpha + gl.sum(pr, 1)
    return pr, m_new, l_i, alpha


@gluon.jit
def _ws_step(p, j, t, q_smem, o, m_i, l_i, p_op, zero_s, q_idx, WHICH: gl.constexpr,
             MASK: gl.constexpr, COLUMN: gl.constexpr, CAUSAL: gl.constexpr,
             PINGPONG: gl.constexpr):
    """Key block j: its scores issued, then the previous block's P.V; this block's softmax runs
    while P.V does. Returns the new (o, m, l, P as the next P.V's register operand, turn)."""
    STAGES: gl.constexpr = p.k_bufs.shape[0]
    sk = j % STAGES
    jv = j - 1
    sv = jv % STAGES
    mbarrier.wait(p.k_ready.index(sk), (j // STAGES) & 1)
    mbarrier.wait(p.v_ready.index(sv), (jv // STAGES) & 1)
    if PINGPONG:  # issue on this consumer's turn only: the other one's softmax runs meanwhile
        mbarrier.wait(p.turn.index(WHICH), (t & 1) ^ (1 - WHICH))
    s = warpgroup_mma(q_smem, p.k_bufs.index(sk).permute((1, 0)), zero_s, use_acc=False,
                      is_async=True)
    o = warpgroup_mma(p_op, p.v_bufs.index(sv), o, is_async=True)
    if PINGPONG:
        mbarrier.arrive(p.turn.index(1 - WHICH))
    s = warpgroup_mma_wait(1, deps=(s, ))  # the scores are in; P.V may still run
    mbarrier.arrive(p.k_empty.index(sk))
    pr, m_i, l_i, alpha = _ws_softmax(p, s, j, m_i, l_i, q_idx, MASK, COLUMN, CAUSAL)
    o, p_op = warpgroup_mma_wait(0, deps=(o, p_op))
    mbarrier.arrive(p.v_empty.index(sv))
    o = o * gl.expand_dims(gl.convert_layout(alpha, gl.SliceLayout(1, o.type.layout)), 1)
    p_op = gl.convert_layout(pr.to(p.q_desc.dtype), p_op.type.layout)
    return o, m_i, l_i, p_op, t + 1


@gluon.jit
def _ws_consumer(p, WHICH: gl.constexpr, CAUSAL: gl.constexpr, COLUMN: gl.constexpr,
                 PINGPONG: gl.constexpr):
    BLOCK_N: gl.constexpr = p.k_desc.block_type.shape[0]
    HEAD_DIM: gl.constexpr = p.k_desc.block_type.shape[1]
    ROWS: gl.constexpr = p.q_desc.block_type.shape[0]
    STAGES: gl.constexpr = p.k_bufs.shape[0]
    dtype: gl.constexpr = p.q_desc.dtype
    s_layout: gl.constexpr = gl.NVMMADistributedLayout(
        version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, BLOCK_N, 16])
    o_layout: gl.constexpr = gl.NVMMADistributedLayout(
        version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, HEAD_DIM, 16])
    p_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=o_layout, k_width=2)
    rows: gl.constexpr = gl.SliceLayout(1, s_layout)
    q_smem = p.q_bufs.index(WHICH)
    q_idx = p.off_m + WHICH * ROWS + gl.arange(0, ROWS, layout=rows)
    zero_s = gl.zeros((ROWS, BLOCK_N), dtype=gl.float32, layout=s_layout)
    m_i = gl.full((ROWS, ), float("-inf"), gl.float32, layout=rows)
    l_i = gl.zeros((ROWS, ), dtype=gl.float32, layout=rows)
    mbarrier.wait(p.q_ready.index(WHICH), 0)
    # block 0: its scores alone (nothing to multiply by V yet)
    mbarrier.wait(p.k_ready.index(0), 0)
    s = warpgroup_mma(q_smem, p.k_bufs.index(0).permute((1, 0)), zero_s, use_acc=False)
    mbarrier.arrive(p.k_empty.index(0))
    if p.n_full == 0:  # block 0 takes the mask: it holds the diagonal, or it is partial
        pr, m_i, l_i, alpha = _ws_softmax(p, s, 0, m_i, l_i, q_idx, True, COLUMN, CAUSAL)
    else:
        pr, m_i, l_i, alpha = _ws_softmax(p, s, 0, m_i, l_i, q_idx, False, COLUMN, CAUSAL)
    p_op = gl.convert_layout(pr.to(dtype), p_layout)
    o = gl.zeros((ROWS, HEAD_DIM), dtype=gl.float32, layout=o_layout)
    t = 0
    # whole blocks below the diagonal without a mask, then the diagonal and a partial last block
    for j in range(1, p.n_full):
        o, m_i, l_i, p_op, t = _ws_step(p, j, t, q_smem, o, m_i, l_i, p_op, zero_s, q_idx, WHICH,
                                        False, COLUMN, CAUSAL, PINGPONG)
    for j in range(gl.maximum(p.n_full, 1), p.n_blocks):
        o, m_i, l_i, p_op, t = _ws_step(p, j, t, q_smem, o, m_i, l_i, p_op, zero_s, q_idx, WHICH,
                                        True, COLUMN, CAUSAL, PINGPONG)
    # the last block's P.V
    jv = p.n_blocks - 1
    sv = jv % STAGES
    mbarrier.wait(p.v_ready.index(sv), (jv // STAGES) & 1)
    o = warpgroup_mma(p_op, p.v_bufs.index(sv), o)
    mbarrier.arrive(p.v_empty.index(sv))
    o = (o / gl.expand_dims(gl.convert_layout(l_i, gl.SliceLayout(1, o_layout)), 1)).to(dtype)
    row0 = p.off_m + WHICH * ROWS
    if row0 + ROWS <= p.seq_q:
        # q's tile is free (its last q.K^T is done): the output leaves through it
        q_smem.store(o)
        fence_async_shared()
        _ws_tma_store(p.o_desc, [p.q_row + WHICH * ROWS, 0], q_smem)
        tma.store_wait(pendings=0)
    else:  # the head's last rows: a box would write the next head's, so a masked store
        out_rows = row0 + gl.arange(0, ROWS, layout=gl.SliceLayout(1, o_layout))
        out_cols = gl.arange(0, HEAD_DIM, layout=gl.SliceLayout(0, o_layout))
        first = (p.q_row - p.off_m).to(gl.int64)  # the head's first row in (B * H * Lq, D)
        offs = gl.expand_dims((first + out_rows) * HEAD_DIM, 1) + gl.expand_dims(out_cols, 0)
        keep = gl.expand_dims(out_rows < p.seq_q, 1) & gl.expand_dims(out_cols < HEAD_DIM, 0)
        gl.store(p.o_ptr + offs, o, mask=keep)


@gluon.jit
def _ws_consumer0(p, CAUSAL: gl.constexpr, COLUMN: gl.constexpr, PINGPONG: gl.constexpr):
    _ws_consumer(p, 0, CAUSAL, COLUMN, PINGPONG)


@gluon.jit
def _ws_consumer1(p, CAUSAL: gl.constexpr, COLUMN: gl.constexpr, PINGPONG: gl.constexpr):
    _ws_consumer(p, 1, CAUSAL, COLUMN, PINGPONG)


# the lengths and head counts are not specialized on: one build serves every shape
@gluon.jit(do_not_specialize=["n_heads", "group", "seq_q", "seq_k"])
def _ws_kernel(q_desc, k_desc, v_desc, o_desc, o_ptr, n_heads, group, seq_q, seq_k, qk_scale,
               STAGES: gl.constexpr, CAUSAL: gl.constexpr, COLUMN: gl.constexpr,
               PINGPONG: gl.constexpr):
    ROWS: gl.constexpr = q_desc.block_type.shape[0]
    BLOCK_N: gl.constexpr = k_desc.block_type.shape[0]
    dtype: gl.constexpr = q_desc.dtype
    if CAUSAL:  # the long rows start first
        start_m = gl.num_programs(0) - 1 - gl.program_id(0)
    else:
        start_m = gl.program_id(0)
    bh = gl.program_id(1)
    h = bh % n_heads
    kv_bh = (bh // n_heads) * (n_heads // group) + h // group
    off_m = start_m * (2 * ROWS)
    # blocks [0, n_full) are whole and (with CAUSAL) wholly below the diagonal: no mask
    n_blocks = gl.cdiv(seq_k, BLOCK_N)
    n_full = seq_k // BLOCK_N
    if CAUSAL:  # keys past the CTA's last row are masked for every row: never loaded
        n_blocks = gl.minimum(gl.cdiv(off_m + 2 * ROWS, BLOCK_N), n_blocks)
        n_full = gl.minimum(off_m // BLOCK_N, n_full)
    if COLUMN == 1:  # relative position: score + (q_idx - kv_idx)
        col_scale = -1.4426950408889634
    elif COLUMN == 2:  # ALiBi: score + slope_h * (kv_idx - q_idx)
        col_scale = gl.exp2(-8.0 * (h + 1).to(gl.float32) / n_heads) * 1.4426950408889634
    else:
        col_scale = 0.0
    q_bufs = gl.allocate_shared_memory(dtype, [2] + q_desc.block_type.shape, q_desc.layout)
    k_bufs = gl.allocate_shared_memory(dtype, [STAGES] + k_desc.block_type.shape, k_desc.layout)
    v_bufs = gl.allocate_shared_memory(dtype, [STAGES] + v_desc.block_type.shape, v_desc.layout)
    q_ready = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    k_ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    k_empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    v_ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    v_empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    turn = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(STAGES):
        mbarrier.init(k_ready.index(i), count=1)
        mbarrier.init(v_ready.index(i), count=1)
        mbarrier.init(k_empty.index(i), count=2)  # both consumers release a stage
        mbarrier.init(v_empty.index(i), count=2)
    for i in gl.static_range(2):
        mbarrier.init(q_ready.index(i), count=1)
        mbarrier.init(turn.index(i), count=1)
    fence_async_shared()
    p = _WsAttn(q_desc, k_desc, v_desc, o_desc, q_bufs, k_bufs, v_bufs, q_ready, k_ready,
                k_empty, v_ready, v_empty, turn, o_ptr, bh * seq_q + off_m, kv_bh * seq_k, off_m,
                gl.to_tensor(seq_q), gl.to_tensor(seq_k), n_full, n_blocks,
                gl.to_tensor(qk_scale), gl.to_tensor(col_scale))
    gl.warp_specialize([(_ws_consumer0, (p, CAUSAL, COLUMN, PINGPONG)),
                        (_ws_consumer1, (p, CAUSAL, COLUMN, PINGPONG)),
                        (_ws_loader, (p, ))], [4, 1], [240, 24])


def ws_plan(q, k, v, causal: bool = False) -> str:
    """"gluon" when a call of launch_attention_relpos runs the warp-specialized kernel, else why not: it
    needs a Hopper GPU (sm_90: wgmma), 16-bit q, k and v, contiguous (B, H, L, D) with a head dim
    of 64 or 128 (the kernel reads the heads as one (B * H * L, D) matrix: a block that runs past
    a head's last key reads the next head's, masked), and at least WS_MIN_FLOPS of work."""
    if not q.is_cuda:
        return "not a CUDA tensor (Triton's interpreter cannot run Gluon)"
    if _capability(q.get_device()) != (9, 0):
        return "not an sm_90 GPU (the kernel's wgmma is Hopper's)"
    if q.dtype not in (torch.bfloat16, torch.float16) or not q.dtype == k.dtype == v.dtype:
        return f"dtypes {q.dtype}, {k.dtype}, {v.dtype}: 16-bit only"
    if q.shape[3] not in (64, 128):
        return f"head dim {q.shape[3]}: 64 or 128 only"
    if not (q.is_contiguous() and k.is_contiguous() and v.is_contiguous()):
        return "non-contiguous q, k or v"
    if q.data_ptr() % 16 or k.data_ptr() % 16 or v.data_ptr() % 16:
        return "q, k or v not 16-byte aligned"
    if 4 * q.shape[0] * q.shape[1] * q.shape[2] * k.shape[2] * q.shape[3] < WS_MIN_FLOPS:
        return "too little work (below WS_MIN_FLOPS, where this path was not timed)"
    return "gluon"


@functools.lru_cache(maxsize=None)
def _ws_layouts(dtype, head_dim: int):
    gdt = gl.bfloat16 if dtype == torch.bfloat16 else gl.float16
    return tuple(gl.NVMMASharedLayout.get_default_for([rows, head_dim], gdt)
                 for rows in (WS_ROWS, WS_BLOCK_N))


class _WsRecorded(_WsDescriptor):
    """A descriptor of a recorded launch (ws_call's recipe), built without the descriptor's
    checks: the recipe's key fixes all they read, and the recording call's descriptors passed
    them. The compiled kernel's launcher reads its base, shape, strides and padding."""

    def __init__(self, base, shape, strides, block_shape, layout):
        self.base, self.shape, self.strides = base, shape, strides
        self.block_shape, self.layout = block_shape, layout
        self.padding, self.round_f32_to_tf32 = "zero", False


# 4 + 4 + 1 warps make three warp groups; 168 registers a thread at launch (the most three groups
# may hold), which setmaxnreg moves to 240, 240 and 24
_WS_KWARGS = dict(STAGES=WS_STAGES, COLUMN=WS_COLUMN, PINGPONG=WS_PINGPONG, num_warps=4,
                  maxnreg=168)


def _ws_args(q, k, v, scale: float, out, descriptor=None):
    """The kernel's arguments up to its constexprs, and its grid."""
    batch, heads, seq_q, head_dim = q.shape
    rows_layout, keys_layout = _ws_layouts(q.dtype, head_dim)

    def desc(t, rows, layout):
        flat = t.view(-1, head_dim)
        if descriptor is None:
            return _WsDescriptor.from_tensor(flat, [rows, head_dim], layout)
        return descriptor(flat, list(flat.shape), [head_dim, 1], [rows, head_dim], layout)

    args = (desc(q, WS_ROWS, rows_layout), desc(k, WS_BLOCK_N, keys_layout),
            desc(v, WS_BLOCK_N, keys_layout), desc(out, WS_ROWS, rows_layout), out, heads,
            heads // k.shape[1], seq_q, k.shape[2], scale * LOG2E.value)
    return args, (_cdiv(seq_q, WS_BLOCK_M), batch * heads)


def ws_launch(q, k, v, causal: bool, scale: float, out, warmup: bool = False):
    """Attention by the warp-specialized kernel into `out`, for a call ws_plan says "gluon" to;
    returns `out`, or with `warmup` the compiled kernel without launching it (a test builds it for
    sm_90a on a machine without a GPU)."""
    args, grid = _ws_args(q, k, v, scale, out)
    if warmup:
        return _ws_kernel.warmup(*args, CAUSAL=causal, grid=(1, ), **_WS_KWARGS)
    _ws_kernel[grid](*args, CAUSAL=causal, **_WS_KWARGS)
    return out


# Launch recipes of the ws path by call signature (shapes, strides, dtypes, device, 16-byte
# alignment, causal, scale: all ws_plan and the launch read): "refused", or the compiled kernel's
# own launcher over its grid with its constexprs (_direct; "jit" where it has none). A repeat
# skips ws_plan's checks, the JIT's binding of every argument and the descriptors' checks.
_RECIPES = {}
_MAX_RECIPES = 256


def _ws_signature(q, k, v, causal, scale):
    return (q.shape, q.stride(), k.shape, k.stride(), v.shape, v.stride(), q.dtype, k.dtype,
            v.dtype, q.device, q.data_ptr() % 16, k.data_ptr() % 16, v.data_ptr() % 16,
            bool(causal), float(scale))


def ws_call(q, k, v, causal: bool, scale: float, out):
    """launch_attention_relpos's calls: the warp-specialized kernel into `out` where ws_plan allows (its
    launch recorded by the call's signature), else None (the caller's tl kernel)."""
    key = _ws_signature(q, k, v, causal, scale)
    recipe = _RECIPES.get(key)
    if recipe == "refused":
        return None
    if recipe == "jit":
        return ws_launch(q, k, v, causal, scale, out)
    if recipe is not None:
        args, _ = _ws_args(q, k, v, scale, out, _WsRecorded)
        run, consts = recipe
        run(*args, *consts)
        return out
    if ws_plan(q, k, v, causal) != "gluon":
        _record(key, "refused")
        return None
    args, grid = _ws_args(q, k, v, scale, out)
    kwargs = dict(CAUSAL=bool(causal), **_WS_KWARGS)
    direct = _direct(_ws_kernel[grid](*args, **kwargs), _ws_kernel, grid, len(args), kwargs)
    _record(key, "jit" if direct is None else direct)
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


def _record(key, recipe):
    if len(_RECIPES) >= _MAX_RECIPES:
        _RECIPES.clear()
    _RECIPES[key] = recipe


def launch_attention_relpos(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, is_causal: bool = False,
        scale: float | None = None) -> torch.Tensor:
    """Attention of (B, Hq, Lq, D) q over (B, Hkv, Lk, D) k and v; a new (B, Hq, Lq, D) tensor.
    On an sm_90 GPU the calls ws_plan admits run the warp-specialized Gluon kernel (ws_call).
    Score modifier: relative_position."""
    if q.dim() != 4 or k.dim() != 4 or v.dim() != 4:
        raise ValueError("attention: q, k and v must be (batch, heads, seq, head_dim)")
    if not (q.dtype == k.dtype == v.dtype) or q.dtype not in (
            torch.float16, torch.bfloat16, torch.float32):
        raise TypeError(f"attention: unsupported dtypes {q.dtype}, {k.dtype}, {v.dtype}")
    batch, heads_q, seq_q, head_dim = q.shape
    heads_kv, seq_k = k.shape[1], k.shape[2]
    if k.shape[0] != batch or v.shape[0] != batch or v.shape[1] != heads_kv or \
            v.shape[2] != seq_k or k.shape[3] != head_dim or v.shape[3] != head_dim:
        raise ValueError(f"attention: shapes q {tuple(q.shape)}, k {tuple(k.shape)}, "
                         f"v {tuple(v.shape)} do not agree")
    if heads_kv == 0 or heads_q % heads_kv:
        raise ValueError(f"attention: {heads_q} query heads are not a multiple of {heads_kv} "
                         "kv heads")
    if head_dim < 16 or head_dim > 256 or head_dim & (head_dim - 1):
        raise ValueError(f"attention: head dim {head_dim} is not a power of two in 16..256 "
                         "(tensor-core tiles need it)")
    if scale is None:
        scale = head_dim ** -0.5
    if not scale > 0:
        raise ValueError(f"attention: scale {scale} must be positive")
    causal = bool(is_causal) or SCORE_MOD == "sliding_window"
    out = torch.empty((batch, heads_q, seq_q, head_dim), dtype=q.dtype, device=q.device)
    if out.numel() == 0:
        return out
    if seq_k == 0:
        raise ValueError("attention: no keys (Lk == 0): softmax over nothing")
    if ws_call(q, k, v, causal, scale, out) is not None:
        return out
    block_m, block_n = _blocks(head_dim, q.element_size())
    grid = (_cdiv(seq_q, block_m), batch * heads_q)
    descs = (None, None, None, None)
    if tma_plan(q, k, v) == "tma":
        descs = (_descriptor(q, block_m), _descriptor(k, block_n), _descriptor(v, block_n),
                 _descriptor(out, block_m))
    _attn_fwd_kernel[grid](
        q, k, v, out, *descs, *q.stride(), *k.stride(), *v.stride(), *out.stride(),
        heads_q, heads_q // heads_kv, seq_q, seq_k, scale * LOG2E.value,
        HEAD_DIM=head_dim, BLOCK_M=block_m, BLOCK_N=block_n, CAUSAL=causal,
        EVEN_M=seq_q % block_m == 0, EVEN_N=seq_k % block_n == 0,
        WINDOW_SIZE=0,
        CAP=0.0,
        # float32 inputs multiply in IEEE fp32, never TF32: the op promises float32 results
        DOT_PRECISION="ieee" if q.dtype == torch.float32 else "tf32",
        # Triton's interpreter multiplies bfloat16 tiles as their raw 16-bit integers: there the
        # dots take the same values widened to float32 (exact products, float32 sums, as on GPU)
        UPCAST_DOT=q.device.type != "cuda" and q.dtype == torch.bfloat16,
        TMA=descs[0] is not None, num_warps=NUM_WARPS, num_stages=NUM_STAGES,
    )
    return out


class ModelNew(torch.nn.Module):
    """Drop-in for the task's Model: attention, score modifier relative_position."""

    def __init__(self, *args, **kwargs):
        super().__init__()


    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return launch_attention_relpos(q, k, v, False, None)
