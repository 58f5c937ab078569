"""attention_softcap rendered by kernel-zoo from template `attention` (score modifier: softcap).

Params: {"block_m": 128, "block_n": 128, "causal_split": true, "num_stages": 3, "num_warps": 8, "reverse_m": true, "split_tail": true, "tma": true}
Flash-attention forward: each program owns BLOCK_M query rows of one (batch, head) and walks the
keys BLOCK_N at a time with an online softmax in base 2 (log2(e) folded into the scale), the
running max, sum and output accumulated in float32; the output is normalized once at the end.
"""
import functools

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor


def _cdiv(a: int, b: int) -> int:
    """ceil(a / b) for non-negative ints, on the host."""
    return -(-a // b)


PARAMS = {'block_m': 128, 'block_n': 128, 'num_warps': 8, 'num_stages': 3, 'causal_split': True, 'split_tail': True, 'reverse_m': True, 'tma': True}
SCORE_MOD = "softcap"
SOFTCAP = 20.0
WINDOW = None
BLOCK_M = 128
BLOCK_N = 128
NUM_WARPS = 8
NUM_STAGES = 3
USE_TMA = True
# Building four descriptors costs the host about 0.1 ms per call on an H100 (Triton 3.6,
# bench/results/host-overhead-h100.json); below this much work the pointer loads, whose launch
# costs a third of that, finish first.
TMA_MIN_FLOPS = 2 ** 36
# Host-side descriptors and in-kernel descriptor loads, where the installed Triton has both.
TMA_AVAILABLE = hasattr(tl, "tensor_descriptor") and hasattr(TensorDescriptor, "from_tensor")
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
        # cap * tanh(s / cap) with tanh(x) = 1 - 2 / (1 + e^(2x)), and e^(2s/cap) = 2^(2 s log2(e) / cap)
        e2 = tl.math.exp2((qk * qk_scale) * (2.0 / CAP))
        s2 = (CAP * LOG2E) - (2.0 * CAP * LOG2E) / (1.0 + e2)

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
        # cap * tanh(s / cap) with tanh(x) = 1 - 2 / (1 + e^(2x)), and e^(2s/cap) = 2^(2 s log2(e) / cap)
        e2 = tl.math.exp2((qk * qk_scale) * (2.0 / CAP))
        s2 = (CAP * LOG2E) - (2.0 * CAP * LOG2E) / (1.0 + e2)

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


@functools.lru_cache(maxsize=None)
def _capability(device_index: int) -> tuple[int, int]:
    return torch.cuda.get_device_capability(device_index)


def tma_plan(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> str:
    """"tma" when this call loads its tiles through tensor descriptors, else why it does not."""
    if not USE_TMA:
        return "config: tma is off"
    if not TMA_AVAILABLE:
        return "the installed Triton has no tensor descriptors"
    if not q.is_cuda:
        return "not a CUDA device (Triton's interpreter runs the pointer kernel)"
    if _capability(q.get_device())[0] < 9:
        return "TMA needs compute capability 9.0 or newer"
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


def launch_attention_softcap(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, is_causal: bool = False,
        scale: float | None = None, softcap: float = SOFTCAP) -> torch.Tensor:
    """Attention of (B, Hq, Lq, D) q over (B, Hkv, Lk, D) k and v; a new (B, Hq, Lq, D) tensor.
    Score modifier: softcap (cap `softcap`, rendered as 20.0)."""
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
    if not softcap > 0:
        raise ValueError(f"attention: softcap {softcap} must be positive")
    causal = bool(is_causal) or SCORE_MOD == "sliding_window"
    out = torch.empty((batch, heads_q, seq_q, head_dim), dtype=q.dtype, device=q.device)
    if out.numel() == 0:
        return out
    if seq_k == 0:
        raise ValueError("attention: no keys (Lk == 0): softmax over nothing")
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
        CAP=float(softcap),
        # float32 inputs multiply in IEEE fp32, never TF32: the op promises float32 results
        DOT_PRECISION="ieee" if q.dtype == torch.float32 else "tf32",
        # Triton's interpreter multiplies bfloat16 tiles as their raw 16-bit integers: there the
        # dots take the same values widened to float32 (exact products, float32 sums, as on GPU)
        UPCAST_DOT=q.device.type != "cuda" and q.dtype == torch.bfloat16,
        TMA=descs[0] is not None, num_warps=NUM_WARPS, num_stages=NUM_STAGES,
    )
    return out


class ModelNew(torch.nn.Module):
    """Drop-in for the task's Model: attention, score modifier softcap."""

    def __init__(self, *args, **kwargs):
        super().__init__()


    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return launch_attention_softcap(q, k, v, False, None)
