"""Attention ops: `scaled_dot_product_attention` and `attention` with a score modifier.

Re-exported by kernel_zoo.ops; built on its `_Op` / `_define` machinery (zoo look-up by arch,
dtype and shape bucket; the PyTorch reference where no entry fits; backward by recomputing the
reference).

| public call                        | zoo op                       | computes             |
| ---------------------------------- | ---------------------------- | -------------------- |
| scaled_dot_product_attention(...)  | scaled_dot_product_attention | F.sdpa's semantics   |
| attention(score_mod="relative_position") | attention_relpos       | s + (q_idx - kv_idx) |
| attention(score_mod="alibi")       | attention_alibi              | s + slope_h * (kv-q) |
| attention(score_mod="softcap")     | attention_softcap            | cap * tanh(s / cap)  |

Each score modifier is its own zoo op (its kernel differs), keyed `attention_<short name>`; the
public `attention` dispatches to the one its `score_mod` names. s is the scaled score
(q . k) * scale, scale defaulting to 1/sqrt(D); the modifier applies to s (FlexAttention's
convention), before the causal mask (top-left aligned, key j visible to query i when j <= i).
ALiBi's slopes are 2 ** (-8 * (h + 1) / H) for query head h of H (the paper's, for H a power of
two). The soft cap is an argument, `softcap=50.0` by default (Gemma 2's attention cap); a zoo
entry takes it at call time, so one entry serves every cap.

Inputs are (B, H, L, D); k and v may have fewer heads than q (grouped-query attention, query head
h reading kv head h // (Hq // Hkv)). Zoo kernels take float16, bfloat16 and float32 on CUDA, head
dims that are powers of two in 16..256 and positive scales; other calls use the reference.
"""

from __future__ import annotations

import functools
import logging

import torch
import torch.nn.functional as F

from kernel_zoo.ops import _call, _define, _Op, _report_fallback

SCORE_MODS = {"relative_position": "relpos", "alibi": "alibi", "softcap": "softcap"}
DEFAULT_SOFTCAP = 50.0


def _ineligible(args: tuple) -> str | None:
    q, k, v, _is_causal, scale = args[:5]
    if q.dim() != 4 or k.dim() != 4 or v.dim() != 4:
        return "zoo kernels take (batch, heads, seq, head_dim) q, k and v"
    if not (q.dtype == k.dtype == v.dtype) or k.device != q.device or v.device != q.device:
        return "q, k and v differ in dtype or device"
    if q.dtype not in (torch.float16, torch.bfloat16, torch.float32):
        return f"dtype {q.dtype}"
    d = q.shape[-1]
    if d < 16 or d > 256 or d & (d - 1) or k.shape[-1] != d or v.shape[-1] != d:
        return f"head dim {d} (zoo kernels take one power of two in 16..256 for q, k and v)"
    if k.shape[0] != q.shape[0] or k.shape[:3] != v.shape[:3] or k.shape[1] == 0 or \
            q.shape[1] % k.shape[1]:
        return f"shapes q {list(q.shape)}, k {list(k.shape)}, v {list(v.shape)}"
    if k.shape[2] == 0:
        return "no keys"
    if scale is not None and not scale > 0:
        return f"scale {scale} (zoo kernels take a positive scale)"
    if len(args) > 5 and not args[5] > 0:
        return f"softcap {args[5]}"
    return None


def _expand_kv(q: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    return t.repeat_interleave(q.shape[1] // t.shape[1], dim=1) if t.shape[1] != q.shape[1] else t


def _sdpa_reference(q, k, v, is_causal, scale):
    return F.scaled_dot_product_attention(q, k, v, is_causal=is_causal, scale=scale,
                                          enable_gqa=k.shape[1] != q.shape[1])


def _modified_reference(mod: str, q, k, v, is_causal, scale, softcap=DEFAULT_SOFTCAP):
    """The modifier written out in PyTorch, scores in float32 (a bias of thousands added in
    bfloat16 would lose the score's own bits)."""
    k, v = _expand_kv(q, k), _expand_kv(q, v)
    scale = q.shape[-1] ** -0.5 if scale is None else scale
    s = torch.matmul(q.float(), k.float().transpose(-2, -1)) * scale
    q_idx = torch.arange(q.shape[-2], device=q.device)[:, None]
    kv_idx = torch.arange(k.shape[-2], device=q.device)[None, :]
    if mod == "relative_position":
        s = s + (q_idx - kv_idx)
    elif mod == "alibi":
        heads = q.shape[1]
        slopes = torch.exp2(-8.0 * torch.arange(1, heads + 1, device=q.device) / heads)
        s = s + slopes[:, None, None] * (kv_idx - q_idx)
    else:
        s = softcap * torch.tanh(s / softcap)
    if is_causal:
        s = s.masked_fill(kv_idx > q_idx, float("-inf"))
    return torch.matmul(torch.softmax(s, dim=-1), v.float()).to(q.dtype)


SDPA = _Op("scaled_dot_product_attention", _sdpa_reference, "F.scaled_dot_product_attention",
           same_layout=False, ineligible=_ineligible)
_SCHEMA = "(Tensor q, Tensor k, Tensor v, bool is_causal=False, float? scale=None, str? entry=None)"
_sdpa_op = _define(SDPA, _SCHEMA + " -> Tensor")

ATTENTION = {
    mod: _Op(f"attention_{short}", functools.partial(_modified_reference, mod),
             f"attention with {mod} in PyTorch", same_layout=False, ineligible=_ineligible)
    for mod, short in SCORE_MODS.items()
}
_attention_ops = {
    mod: _define(
        op,
        ("(Tensor q, Tensor k, Tensor v, bool is_causal=False, float? scale=None, "
         "float softcap=50.0, str? entry=None) -> Tensor") if mod == "softcap"
        else _SCHEMA + " -> Tensor",
    )
    for mod, op in ATTENTION.items()
}


def scaled_dot_product_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                                 attn_mask: torch.Tensor | None = None, dropout_p: float = 0.0,
                                 is_causal: bool = False, *, scale: float | None = None,
                                 enable_gqa: bool = False) -> torch.Tensor:
    """`F.scaled_dot_product_attention`, its arguments in its order: zoo kernel
    `kzoo::scaled_dot_product_attention` where one fits, else SDPA itself. A call with an
    attn_mask or a dropout_p is SDPA's own (zoo kernels hold neither). k and v with fewer heads
    than q are grouped-query attention whatever enable_gqa says (SDPA's enable_gqa=True)."""
    if attn_mask is not None or dropout_p:
        if not torch.compiler.is_compiling():  # the log's lock cannot be traced
            _report_fallback(SDPA.name, "scaled_dot_product_attention with an attn_mask or "
                                        "dropout; using F.scaled_dot_product_attention",
                             logging.INFO)
        return F.scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal,
                                              scale=scale, enable_gqa=enable_gqa or (
                                                  min(q.dim(), k.dim()) >= 3
                                                  and k.shape[-3] != q.shape[-3]))
    return _call(SDPA, _sdpa_op, (q, k, v, bool(is_causal), scale), None)


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, score_mod: str | None = None,
              is_causal: bool = False, scale: float | None = None,
              softcap: float = DEFAULT_SOFTCAP) -> torch.Tensor:
    """Attention with a score modifier applied to the scaled score s = (q . k) * scale:
    "relative_position" (s + q_idx - kv_idx), "alibi" (s + slope_h * (kv_idx - q_idx)),
    "softcap" (softcap * tanh(s / softcap)), or None (plain SDPA). Zoo op attention_<mod>."""
    if score_mod is None:
        return scaled_dot_product_attention(q, k, v, is_causal=is_causal, scale=scale)
    if score_mod not in ATTENTION:
        raise ValueError(f"attention: score_mod {score_mod!r} is not one of "
                         f"{[None, *ATTENTION]}")
    args = (q, k, v, bool(is_causal), scale)
    if score_mod == "softcap":
        args = (*args, float(softcap))
    return _call(ATTENTION[score_mod], _attention_ops[score_mod], args, None)
