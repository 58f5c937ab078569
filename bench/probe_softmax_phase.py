"""Does the float32 one-pass softmax lose its time where every SM computes at once? (one GPU run)

At 1024x32768 float32 the served softmax (one program of 32 warps a row, the 128 KB row held in
registers) costs 7.0 us fixed and 62.7 ns a row against a copy's 3.2 us and 60.3 ns (GPU round
428, bench/probe_ceilings.py): a row's every byte is read before its first is written, and the
SM issues no load while it reduces and exponentiates the row. In the first wave every SM does
that at once, so the memory idles then. Two ways to shorten that, each timed here as its own
kernel beside the served one and a copy of the same bytes:

- **exponentials on the FMA pipes**: 32768 `ex2.approx` a row at 16 a clock an SM are about
  2048 clocks of the multi-function unit; `POLY` quarters of the row instead take 2^t from a
  round-to-nearest split and a degree-7 polynomial (FMAs and two integer operations), so the two
  pipes share the work;
- **a staggered first wave**: program p among the first `sm_count` waits
  (p % PHASES) * SLEEP / (PHASES - 1) clocks before it loads (2 phases: the odd ones SLEEP), so
  that some SMs read while the others reduce.

Each variant in two forms: the served kernel's (one tensor of the row, `tl.exp`) and the row as four
quarters (`tl.exp2`), for softmax and log-softmax (`--ops`). `NOEXP` (no exponential at all, so a
wrong result, never checked) bounds what any faster exponential could win. Every other variant is
checked against float64 first. Timed as CUDA-graph replays, interleaved and L2-flushed
(verifier.timing). Writes <out>/probe-softmax-phase-<device>.json.

`--ops softmax_dim1` times the one-pass column kernel over dim 1 of (32, 1000, 1024) instead, at
16 and 32 columns a program (64- and 128-byte runs), staggered or not.

GPU round 454 (H200, bench/results/probe-softmax-phase-h200.json): 4 phases 2000 clocks apart took
1024x32768 from the served 70.6 us to 66.5-67.0 (log-softmax 71.0 to 67.0; a copy of the bytes
65.1); 2 phases gained half as much; the exponentials on the FMA pipes gained nothing (a quarter
of them 71.2 us, half 71.5, all 73.6, against 70.1 without), and no exponential at all (68.1 us)
gained less than the stagger.
It is the softmax template's `stagger_phases` since. Over dim 1 (call 12,
runs/probe-softmax-phase-h200-round454/call12-dim1.json) the stagger took the column kernel from
72.9-73.2 us to 72.1-72.3 (the served 72.9-73.1, a copy 63.5); 32 columns a program lost, staggered
or not (74.3-80.1 us).

    python bench/probe_softmax_phase.py [--rows 132,1024] [--ops softmax,log_softmax] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch
import triton
import triton.language as tl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kernel_zoo import ops  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, bench, graphed_where_possible  # noqa: E402

COLS = 32768
LOG2E = 1.4426950408889634


@triton.jit
def _exp2_fma(t):
    """2^t for t <= 0 on the FMA pipes: t = j + f (j the nearest integer, |f| <= 1/2), 2^f by a
    degree-7 Taylor polynomial (error under 1e-8), 2^j added to its exponent bits. t is clamped at
    -125, so 2^t is at least 2^-125 (2.4e-38) where it would be smaller."""
    t = tl.maximum(t, -125.0)
    r = t + 12582912.0  # 1.5 * 2^23: j lands in r's low mantissa bits
    f = t - (r - 12582912.0)
    p = 1.5252733804059841e-05
    p = p * f + 1.5403530393381609e-04
    p = p * f + 1.3333558146428443e-03
    p = p * f + 9.6181291076284772e-03
    p = p * f + 5.5504108664821580e-02
    p = p * f + 2.4022650695910071e-01
    p = p * f + 6.9314718055994531e-01
    p = p * f + 1.0
    bits = p.to(tl.int32, bitcast=True) + (r.to(tl.int32, bitcast=True) << 23)
    return bits.to(tl.float32, bitcast=True)


@triton.jit
def _exp2_part(t, USE_FMA: tl.constexpr, NOEXP: tl.constexpr):
    if NOEXP:
        return t
    elif USE_FMA:
        return _exp2_fma(t)
    else:
        return tl.exp2(t)


@triton.jit
def _stagger(pid, n_sm, SLEEP: tl.constexpr, PHASES: tl.constexpr = 2):
    # programs of the first wave spin (pid % PHASES) * SLEEP / (PHASES - 1) clocks before their
    # first load: with 2 phases the odd ones SLEEP, the even ones not at all
    if SLEEP > 0:
        if (pid < n_sm) & (pid % PHASES > 0):
            tl.inline_asm_elementwise(
                """{
                .reg .u64 t0, t1;
                .reg .pred p;
                mov.u64 t0, %clock64;
                WAIT_LOOP:
                mov.u64 t1, %clock64;
                sub.u64 t1, t1, t0;
                setp.lt.u64 p, t1, $1;
                @p bra WAIT_LOOP;
                mov.u32 $0, 0;
                }""",
                "=r,l", [(pid % PHASES).to(tl.int64) * (SLEEP // (PHASES - 1))], dtype=tl.int32,
                is_pure=False, pack=1)


@triton.jit
def _softmax_quarters(x_ptr, y_ptr, n_sm, N: tl.constexpr, POLY: tl.constexpr,
                      SLEEP: tl.constexpr, NOEXP: tl.constexpr, PHASES: tl.constexpr = 2,
                      LOG: tl.constexpr = False):
    """One row of N (a multiple of 4 x 128) a program, held as four quarters; the last POLY
    quarters take their exponentials on the FMA pipes. LOG: log-softmax instead."""
    pid = tl.program_id(0)
    _stagger(pid, n_sm, SLEEP, PHASES)
    Q: tl.constexpr = N // 4
    base = pid.to(tl.int64) * N
    cols = tl.arange(0, Q)
    q0 = tl.load(x_ptr + base + cols)
    q1 = tl.load(x_ptr + base + Q + cols)
    q2 = tl.load(x_ptr + base + 2 * Q + cols)
    q3 = tl.load(x_ptr + base + 3 * Q + cols)
    m = tl.max(tl.maximum(tl.maximum(q0, q1), tl.maximum(q2, q3)), axis=0)
    e0 = _exp2_part((q0 - m) * 1.4426950408889634, POLY > 3, NOEXP)
    e1 = _exp2_part((q1 - m) * 1.4426950408889634, POLY > 2, NOEXP)
    e2 = _exp2_part((q2 - m) * 1.4426950408889634, POLY > 1, NOEXP)
    e3 = _exp2_part((q3 - m) * 1.4426950408889634, POLY > 0, NOEXP)
    total = tl.sum((e0 + e1) + (e2 + e3), axis=0)
    if LOG:
        shift = m + tl.log(total)
        tl.store(y_ptr + base + cols, q0 - shift)
        tl.store(y_ptr + base + Q + cols, q1 - shift)
        tl.store(y_ptr + base + 2 * Q + cols, q2 - shift)
        tl.store(y_ptr + base + 3 * Q + cols, q3 - shift)
    else:
        inv = 1.0 / total
        tl.store(y_ptr + base + cols, e0 * inv)
        tl.store(y_ptr + base + Q + cols, e1 * inv)
        tl.store(y_ptr + base + 2 * Q + cols, e2 * inv)
        tl.store(y_ptr + base + 3 * Q + cols, e3 * inv)


@triton.jit
def _softmax_row(x_ptr, y_ptr, n_sm, N: tl.constexpr, SLEEP: tl.constexpr,
                 PHASES: tl.constexpr = 2, LOG: tl.constexpr = False):
    """The served kernel's form at a full row: one tensor of N, tl.exp."""
    pid = tl.program_id(0)
    _stagger(pid, n_sm, SLEEP, PHASES)
    base = pid.to(tl.int64) * N
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + base + cols)
    m = tl.max(x, axis=0)
    e = tl.exp(x - m)
    if LOG:
        tl.store(y_ptr + base + cols, x - (m + tl.log(tl.sum(e, axis=0))))
    else:
        tl.store(y_ptr + base + cols, e * (1.0 / tl.sum(e, axis=0)))


@triton.jit
def _softmax_columns(x_ptr, y_ptr, n_red, n_inner, n_sm, BLOCK_R: tl.constexpr,
                     BLOCK_I: tl.constexpr, SLEEP: tl.constexpr, PHASES: tl.constexpr):
    """Softmax over dim 1 of a contiguous (outer, n_red, n_inner) tensor: BLOCK_I adjacent inner
    columns of one outer index a program, the whole reduced dim one tile (the template's one-pass
    column kernel), its first wave staggered as above (n_sm: the programs resident at once)."""
    pid = tl.program_id(0) + tl.program_id(1) * tl.num_programs(0)
    _stagger(pid, n_sm, SLEEP, PHASES)
    base = tl.program_id(1).to(tl.int64) * n_red * n_inner
    inner = tl.program_id(0) * BLOCK_I + tl.arange(0, BLOCK_I)
    r = tl.arange(0, BLOCK_R)
    mask = (r < n_red)[:, None] & (inner < n_inner)[None, :]
    off = base + r.to(tl.int64)[:, None] * n_inner + inner[None, :]
    x = tl.load(x_ptr + off, mask=mask, other=float("-inf"))
    e = tl.exp(x - tl.max(x, axis=0)[None, :])
    tl.store(y_ptr + off, e * (1.0 / tl.sum(e, axis=0))[None, :], mask=mask)


def column_variants(x: torch.Tensor, n_sm: int) -> tuple[dict, set]:
    """Over dim 1 of (32, 1000, 1024): the served op, a copy, and the column kernel at 16 and 32
    columns a program (64- and 128-byte runs), staggered or not."""
    fns = {"zoo": lambda: ops.softmax(x, dim=1)}
    out = torch.empty_like(x)
    fns["copy"] = lambda: out.copy_(x)
    outer, n_red, n_inner = x.shape
    for block_i, warps, resident in ((16, 16, 2), (32, 32, 1), (32, 16, 1)):
        for sleep, phases in ((0, 2), (2000, 2), (6000, 4), (8000, 8)):
            def run(block_i=block_i, warps=warps, resident=resident, sleep=sleep,
                    phases=phases):
                y = torch.empty_like(x)
                _softmax_columns[(triton.cdiv(n_inner, block_i), outer)](
                    x, y, n_red, n_inner, n_sm * resident, BLOCK_R=triton.next_power_of_2(n_red),
                    BLOCK_I=block_i, SLEEP=sleep, PHASES=phases, num_warps=warps, num_stages=1)
                return y
            fns[f"cols{block_i} w{warps} sleep{sleep} phases{phases}"] = run
    return fns, {"copy"}


def _launcher(kernel, x, n_sm, **meta):
    def run():
        y = torch.empty_like(x)
        kernel[(x.shape[0],)](x, y, n_sm, N=x.shape[1], num_warps=32, num_stages=1, **meta)
        return y
    return run


def variants(x: torch.Tensor, n_sm: int, log: bool) -> tuple[dict, set]:
    """name -> callable, and the names whose results are not (log-)softmax (never checked)."""
    op = ops.log_softmax if log else ops.softmax
    fns = {"zoo": lambda: op(x, dim=-1)}
    out = torch.empty_like(x)
    fns["copy"] = lambda: out.copy_(x)
    for sleep, phases in ((0, 2), (1000, 2), (2000, 2), (3000, 2), (4000, 2), (2000, 4),
                          (4000, 4), (6000, 4), (4000, 8), (8000, 8)):
        fns[f"row sleep{sleep} phases{phases}"] = _launcher(_softmax_row, x, n_sm, SLEEP=sleep,
                                                            PHASES=phases, LOG=log)
        fns[f"quarters sleep{sleep} phases{phases}"] = _launcher(
            _softmax_quarters, x, n_sm, POLY=0, SLEEP=sleep, NOEXP=False, PHASES=phases, LOG=log)
    if not log:
        fns["quarters poly2 sleep2000 phases2"] = _launcher(
            _softmax_quarters, x, n_sm, POLY=2, SLEEP=2000, NOEXP=False, PHASES=2)
        fns["quarters noexp"] = _launcher(_softmax_quarters, x, n_sm, POLY=0, SLEEP=0,
                                          NOEXP=True)
    return fns, {"copy", "quarters noexp"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", default="132,1024", help="comma-separated row counts")
    parser.add_argument("--ops", default="softmax",
                        help="comma-separated: softmax, log_softmax, softmax_dim1 (32x1000x1024)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "runs")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("probe_softmax_phase.py: needs a CUDA GPU (run it on the device machine)",
              file=sys.stderr)
        return 2
    device = torch.device("cuda")
    n_sm = torch.cuda.get_device_properties(device).multi_processor_count
    flusher = L2Flusher(device)
    record = {"benchmark": "probe-softmax-phase", "environment": environment(), "sm_count": n_sm,
              "dtype": "float32", "cols": COLS,
              "method": "CUDA-graph replays timed by verifier.timing.bench (L2 discarded before "
              "each call, medians, interleaved, 5 rounds); each variant but copy and noexp "
              "checked against float64 softmax first (relative L2 error < 1e-5)", "rows": []}
    cases = [(op, int(r)) for op in args.ops.split(",") if op and op != "softmax_dim1"
             for r in args.rows.split(",") if r]
    cases += [("softmax_dim1", 0)] if "softmax_dim1" in args.ops.split(",") else []
    for op, n_rows in cases:
        log = op == "log_softmax"
        torch.manual_seed(0)
        if op == "softmax_dim1":  # (32, 1000, 1024) over dim 1; --rows is ignored
            x = torch.randn(32, 1000, 1024, device=device) * 3.0
            want = torch.softmax(x.double(), dim=1)
            fns, unchecked = column_variants(x, n_sm)
            n_rows = 0
        else:
            x = torch.randn(n_rows, COLS, device=device) * 3.0
            want = (torch.log_softmax if log else torch.softmax)(x.double(), dim=-1)
            fns, unchecked = variants(x, n_sm, log)
        errors, wrong = {}, {}
        for name, fn in list(fns.items()):
            if name in unchecked:
                continue
            err = ((fn().double() - want).norm() / want.norm()).item()
            errors[name] = err
            if not err < 1e-5:
                wrong[name] = err
                del fns[name]
        graphs, failed = graphed_where_possible(fns)
        times = bench(graphs, flusher=flusher, budget_ms=400.0, rounds=5)
        us = {k: round(t.median_ms * 1e3, 2) for k, t in sorted(times.items(),
                                                                 key=lambda kv: kv[1].median_ms)}
        copy_gbps = 2 * x.numel() * 4 / us["copy"] / 1e3
        record["rows"].append({"op": op, "shape": list(x.shape), "us": us, "rel_l2_err": errors,
                               "wrong": wrong, "graph_failed": failed,
                               "copy_gbps_own_bytes": round(copy_gbps, 1)})
        print(f"{op} float32 {'x'.join(map(str, x.shape))} (copy of its bytes {copy_gbps:.0f} GB/s)"
              + (f" wrong: {wrong}" if wrong else "") + (f" no graph: {failed}" if failed else ""),
              flush=True)
        for name, value in us.items():
            print(f"    {value:8.2f} us  {us['copy'] / value:5.3f} of copy  "
                  f"{us['zoo'] / value:5.3f}x zoo  {name}", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"probe-softmax-phase-{device_label()}.json"
    path.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
