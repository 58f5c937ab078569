"""Rewrites of the softmax template's one-pass column kernel (softmax and log-softmax over dim
1) that bench/compile_softmax_columns.py compiles for sm_90 beside the rendered kernel: probes'
rewrites, not template knobs. Kept apart from that script, which must import Triton without its
interpreter, so that tests/test_compile_softmax_columns.py can run them under it and check them
against float64 (a rewrite that computed something else could take fewer registers)."""

from __future__ import annotations

LOAD = '        x = tl.load(x_ptr + off, mask=mask, other=float("-inf")).to(tl.float32)\n'
STORE = "        tl.store(y_ptr + off, y.to(y_ptr.dtype.element_ty), mask=mask)\n        return\n"


def convert_at_use(source: str, log: bool) -> str:
    """The one-pass branch rewritten to hold the tile as loaded and convert it where it is used
    (the max in the input's dtype, the exponentials' sum, the output from the max plus the log
    of the sum), so that no float32 copy of the tile needs to live across the reductions."""
    start = source.index(LOAD)
    end = source.index(STORE, start)
    body = ('        xr = tl.load(x_ptr + off, mask=mask, other=float("-inf"))\n'
            "        col_max = tl.max(xr, axis=0).to(tl.float32)\n"
            "        total = tl.sum(tl.exp(xr.to(tl.float32) - col_max[None, :]), axis=0)\n"
            "        shift = col_max + tl.log(total)\n")
    body += ("        y = xr.to(tl.float32) - shift[None, :]\n" if log else
             "        y = tl.exp(xr.to(tl.float32) - shift[None, :])\n")
    return source[:start] + body + source[end:]


def bf16_pairs(source: str, log: bool) -> str:
    """The one-pass branch rewritten for bfloat16 only: adjacent columns loaded in pairs as one
    32-bit word, each half widened to float32 by a shift or a mask where it is used, and each
    use's word XORed with a zero the compiler cannot see (a size shifted right by 31), so the
    max, the sum and the output unpack the word anew instead of sharing one float32 copy of the
    tile. Compiled only: whether the packed word is what stays in registers."""
    start = source.index(LOAD)
    end = source.index(STORE, start) + len(STORE)
    body = """        HALF: tl.constexpr = BLOCK_I // 2
        pair = tl.program_id(0) * HALF + tl.arange(0, HALF)
        n_pairs = n_inner // 2
        pmask = (r < n_red)[:, None] & (pair < n_pairs)[None, :]
        poff = outer * n_red * n_pairs + r.to(tl.int64)[:, None] * n_pairs + pair[None, :]
        v = tl.load(x_ptr.to(tl.pointer_type(tl.int32)) + poff, mask=pmask, other=-8323200)
        m_lo = tl.max((v << 16).to(tl.float32, bitcast=True), axis=0)
        m_hi = tl.max((v & -65536).to(tl.float32, bitcast=True), axis=0)
        v1 = v ^ (n_red >> 31)
        t_lo = tl.sum(tl.exp((v1 << 16).to(tl.float32, bitcast=True) - m_lo[None, :]), axis=0)
        t_hi = tl.sum(tl.exp((v1 & -65536).to(tl.float32, bitcast=True) - m_hi[None, :]), axis=0)
        c_lo = m_lo + tl.log(t_lo)
        c_hi = m_hi + tl.log(t_hi)
        v2 = v ^ (n_inner >> 31)
        y_lo = (v2 << 16).to(tl.float32, bitcast=True) - c_lo[None, :]
        y_hi = (v2 & -65536).to(tl.float32, bitcast=True) - c_hi[None, :]
"""
    if not log:
        body += """        y_lo = tl.exp(y_lo)
        y_hi = tl.exp(y_hi)
"""
    body += """        b_lo = y_lo.to(tl.bfloat16).to(tl.int16, bitcast=True).to(tl.int32) & 65535
        b_hi = y_hi.to(tl.bfloat16).to(tl.int16, bitcast=True).to(tl.int32) << 16
        tl.store(y_ptr.to(tl.pointer_type(tl.int32)) + poff, b_lo | b_hi, mask=pmask)
        return
"""
    return source[:start] + body + source[end:]
