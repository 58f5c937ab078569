"""What the split softmax's second read of a slice costs, and two ways around it (float32, H200).

Float32 softmax and log-softmax over rows of 128256 on an H200: what does the served split-row
walk's second read of a slice cost, and do two ways around it read more of the copy bandwidth?

The served kernels (softmax 1.26.0, log_softmax 1.29.0: `row_split` 32, `row_lag`) read 0.82 and
0.86 of copy at 256x128256 float32 (the standing after round 458), two of issue #3's four rows
under 90%. Step k of `row_lag` reads row k's slice from DRAM and publishes its (max, sum) pair,
then reads row k - 1's slice again (from L2) and writes its outputs: the slice crosses L2 a third
time, and softmax exponentiates every element twice. The walks here:

- `lag`: that walk (its slice in two halves, combined lane by lane before each reduction);
- `hold`: the same with the first half of each slice kept in registers across the step, so only
  the second half is read again;
- `fixup`: step k stores row k's exp(x - m) (log-softmax: x - m), m the slice's own max, and
  publishes the pair; then it reads row k - 1's stored slice back from L2 and scales it by
  exp(m - M) / S (log-softmax: adds m - M - log S), M and S the row's max and sum: one
  exponential an element and the input read once, but the outputs cross L2 twice;
- `lag_nowait`, `hold_nowait`: diagnostics that normalize each slice by its own pair (wrong by
  design, timed whatever their error): the cost of waiting for the partners;

each as softmax, log-softmax and a plain copy (the walk's access pattern with no arithmetic).

GPU round 459 (runs/probe-split-reread-h200-round459*.json), us, 256x128256 float32, graph
replays under the L2 flush, a copy of the same bytes 63.3-64.5:
- `fixup` (call 1, `-fixup.json`) lost: softmax 92.4 at best against the zoo's 75.5,
  log-softmax 92.0 against 72.4, the copy in that walk 96.8.
- At 32 programs a row of 8 warps (call 5, `-aligned.json`): the copy in the `lag` walk 70.5, in
  `hold` 69.1; softmax 74.8 and 74.3 (the zoo 76.2), log-softmax 72.6 and 71.2 (the zoo 71.4).
  The walk, not the exchange or the arithmetic, is most of the distance from the bar (about 68.2
  against the 1 GiB yardstick). The template took the held quarters up as `lag_hold`, and for
  softmax `lag_hold_exp` (softmax 1.42.0, 73.3 against 75.0-75.3).
- Call 2 (`.json`) cut slices of 4008 elements (not a multiple of 16), so its loads there were 4
  bytes wide and its split-32 numbers are not the served kernel's; slices now come in 4-element
  units, as the template's do.

A probe, not a template: float32 contiguous rows; the pairs and their slot words are the served
kernels' own (`_publish_pair`, `_gather_pairs`, `_resident_per_sm` from a render of the softmax
template); a variant is checked against float64 before it is timed (a wrong one is recorded, not
timed, except the diagnostics); timed as CUDA-graph replays, interleaved and L2-flushed
(verifier.timing), beside kernel_zoo.ops.<op> and a copy of the same bytes. In Triton's
interpreter (programs run one after another) a walk runs as two launches, every row's first half
then every row's second (tests/test_probe_split_reread.py). Writes
<out>/probe-split-reread-<device>.json.

    python bench/probe_split_reread.py [--out DIR] [--shape RxC]
        [--variant WALK,OP,SPLIT,WARPS,CAP,MAXNREG ... | --template]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch
import triton
import triton.language as tl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from row_probes import rel_err, served_split_module  # noqa: E402

_SPLIT = served_split_module("probe-split-fixup")
_publish_pair = _SPLIT._publish_pair
_gather_pairs = _SPLIT._gather_pairs

FIXUP_OPS = ("softmax", "log_softmax", "copy")


@triton.jit
def _split_fixup_kernel(x_ptr, y_ptr, slot_ptr, n_rows, n_cols, slice_len, SPLIT: tl.constexpr,
                        BLOCK: tl.constexpr, OP: tl.constexpr, SYNC: tl.constexpr,
                        PHASE: tl.constexpr):
    # SPLIT programs share a row, program `part` its slice_len columns; the groups walk the rows
    # with their stride. Step k reads row k of the group, stores its outputs relative to the
    # slice's max and finishes row k - 1 from them. OP: 0 softmax, 1 log-softmax, 2 copy (stored,
    # read back and stored again). SYNC False (the interpreter): PHASE 0 runs every step's first
    # half, PHASE 1 every step's second.
    part = tl.program_id(0) % SPLIT
    first = tl.program_id(0) // SPLIT
    stride = tl.num_programs(0) // SPLIT
    lane = tl.arange(0, BLOCK)
    cols = part * slice_len + lane
    mask = (lane < slice_len) & (cols < n_cols)
    parts = tl.arange(0, SPLIT)
    n_mine = tl.cdiv(n_rows - first, stride)
    for k in range(0, n_mine + 1):
        row = tl.cast(first + k * stride, tl.int64)
        done = row - stride
        if (SYNC or PHASE == 0) and k < n_mine:
            x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=float("-inf"),
                        eviction_policy="evict_first")  # read once
            if OP == 0 or OP == 1:
                m = tl.max(x, axis=0)
                m_safe = tl.where(m == float("-inf"), 0.0, m)
                e = tl.exp(x - m_safe)
                _publish_pair(slot_ptr + row * SPLIT + part, m, tl.sum(e, axis=0))
                if OP == 0:
                    first_out = e
                else:
                    first_out = x - m_safe
            else:
                first_out = x
            tl.store(y_ptr + row * n_cols + cols, first_out, mask=mask,
                     eviction_policy="evict_last")
        if (SYNC or PHASE == 1) and k > 0:
            # the thread that stored these lanes a step ago reads them (one layout)
            again = tl.load(y_ptr + done * n_cols + cols, mask=mask, other=0.0,
                            eviction_policy="evict_first")
            if OP == 0 or OP == 1:
                pm, ps = _gather_pairs(slot_ptr + done * SPLIT, parts)
                row_max = tl.max(pm, axis=0)
                row_max_safe = tl.where(row_max == float("-inf"), 0.0, row_max)
                total = tl.sum(ps * tl.exp(pm - row_max_safe), axis=0)
                mine = tl.max(tl.where(parts == part, pm, float("-inf")), axis=0)
                mine_safe = tl.where(mine == float("-inf"), 0.0, mine)
                if OP == 0:
                    # a row of -inf only: total 0, and 0 * inf gives torch's NaN
                    out = again * (tl.exp(mine_safe - row_max_safe) / total)
                else:
                    out = again + ((mine_safe - row_max) - tl.log(total))
            else:
                out = again
            tl.store(y_ptr + done * n_cols + cols, out, mask=mask, eviction_policy="evict_first")


def split_fixup(x: torch.Tensor, op: str, split: int, warps: int, cap: int, maxnreg: int,
                cache: dict, interpret: bool = False, groups: int = 0) -> torch.Tensor:
    """One launch of the walk (two in the interpreter) over x's rows; returns the output."""
    n_rows, n_cols = x.shape
    slice_len = triton.cdiv(n_cols, split)
    block = triton.next_power_of_2(slice_len)
    y = torch.empty_like(x)
    slots = torch.zeros(n_rows * split, dtype=torch.int64, device=x.device)
    args = (x, y, slots, n_rows, n_cols, slice_len)
    meta = dict(SPLIT=split, BLOCK=block, OP=FIXUP_OPS.index(op), num_warps=warps)
    if maxnreg:
        meta["maxnreg"] = maxnreg
    _launch_walk(_split_fixup_kernel, ("fixup", op, split, block, warps, maxnreg), args, meta,
                 split, cap, cache, interpret, groups)
    return y


def _launch_walk(kernel, key: tuple, args: tuple, meta: dict, split: int, cap: int, cache: dict,
                 interpret: bool, groups: int) -> None:
    """Launch a walk `kernel` over args[0]'s rows: in the interpreter as two launches (every
    step's first half, then every step's second) of `groups` groups (3 unless given); on a GPU as
    one cooperative launch of as many groups as fit (at most `cap` programs an SM), its compiled
    kernel's programs an SM, registers and spills kept in cache[key]."""
    x = args[0]
    n_rows = x.shape[0]
    if interpret:
        groups = groups or min(n_rows, 3)
        for phase in (0, 1):
            kernel[(groups * split,)](*args, SYNC=False, PHASE=phase, **meta)
        return
    if key not in cache:
        compiled = kernel.warmup(*args, SYNC=True, PHASE=0, **meta, launch_cooperative_grid=True,
                                 grid=(split,))
        per_sm = _SPLIT._resident_per_sm(compiled, x.device.index or 0)
        cache[key] = (per_sm, compiled.n_regs, compiled.n_spills)
    sms = torch.cuda.get_device_properties(x.device).multi_processor_count
    groups = min(n_rows, min(cache[key][0], cap) * sms // split)
    kernel[(groups * split,)](*args, SYNC=True, PHASE=0, **meta, launch_cooperative_grid=True)


@triton.jit
def _split_hold_kernel(x_ptr, y_ptr, slot_ptr, n_rows, n_cols_u, slice_u, SPLIT: tl.constexpr,
                       HALF: tl.constexpr, UNIT: tl.constexpr, OP: tl.constexpr,
                       HOLD: tl.constexpr, WAIT: tl.constexpr, SYNC: tl.constexpr,
                       PHASE: tl.constexpr):
    # The served `row_lag` walk (HOLD False) with a program's slice in two halves: step k loads
    # row k's slice and publishes its pair, then finishes row k - 1 from a second load of its
    # slice (L2). HOLD: the first half of row k - 1 stays in registers from step k - 1 and only
    # the second half is loaded again. OP: 0 softmax, 1 log-softmax, 2 copy (the pair is the
    # slice's max and plain sum, no exponentials; the output is the input). WAIT False: no
    # partner's pair is awaited, each slice is normalized by its own (wrong; timing only). SYNC
    # False (the interpreter): PHASE 0 publishes every row's pairs, PHASE 1 writes every row.
    # Widths come in UNITs (4 where they allow), so that the compiler knows a slice starts on a
    # 16-byte boundary and loads 4 floats at a time, as the served kernel does.
    n_cols = n_cols_u * UNIT
    slice_len = slice_u * UNIT
    part = tl.program_id(0) % SPLIT
    first = tl.program_id(0) // SPLIT
    stride = tl.num_programs(0) // SPLIT
    lane_a = tl.arange(0, HALF)
    lane_b = HALF + lane_a
    cols_a = part * slice_len + lane_a
    cols_b = part * slice_len + lane_b
    mask_a = (lane_a < slice_len) & (cols_a < n_cols)
    mask_b = (lane_b < slice_len) & (cols_b < n_cols)
    parts = tl.arange(0, SPLIT)
    n_mine = tl.cdiv(n_rows - first, stride)
    held = tl.full((HALF,), float("-inf"), tl.float32)
    m_prev = tl.max(held, axis=0)
    s_prev = tl.sum(held * 0.0, axis=0)
    for k in range(0, n_mine + 1):
        ahead = tl.cast(first + k * stride, tl.int64)
        row = ahead - stride
        # (a row index is compared lane by lane: the interpreter rejects a scalar mask in `&`)
        xa = tl.load(x_ptr + ahead * n_cols + cols_a, mask=mask_a & (lane_a * 0 + k < n_mine),
                     other=float("-inf"), eviction_policy="evict_last")
        xb = tl.load(x_ptr + ahead * n_cols + cols_b, mask=mask_b & (lane_b * 0 + k < n_mine),
                     other=float("-inf"), eviction_policy="evict_last")
        # the halves combined lane by lane first: one reduction across the program each (a
        # reduction a half doubles the barriers a step)
        m = tl.max(tl.maximum(xa, xb), axis=0)
        m_safe = tl.where(m == float("-inf"), 0.0, m)
        if OP == 2:
            s = tl.sum(tl.where(xa == float("-inf"), 0.0, xa)
                       + tl.where(xb == float("-inf"), 0.0, xb), axis=0)
        else:
            s = tl.sum(tl.exp(xa - m_safe) + tl.exp(xb - m_safe), axis=0)
        if (SYNC or PHASE == 0) and k < n_mine:
            _publish_pair(slot_ptr + ahead * SPLIT + part, m, s)
        if (SYNC or PHASE == 1) and k > 0:
            if HOLD:
                a_old = held
            else:
                a_old = tl.load(x_ptr + row * n_cols + cols_a, mask=mask_a, other=float("-inf"),
                                eviction_policy="evict_first")
            b_old = tl.load(x_ptr + row * n_cols + cols_b, mask=mask_b, other=float("-inf"),
                            eviction_policy="evict_first")
            if WAIT:
                pm, ps = _gather_pairs(slot_ptr + row * SPLIT, parts)
                row_max = tl.max(pm, axis=0)
                row_max_safe = tl.where(row_max == float("-inf"), 0.0, row_max)
                total = tl.sum(ps * tl.exp(pm - row_max_safe), axis=0)
            else:
                row_max = m_prev
                row_max_safe = tl.where(row_max == float("-inf"), 0.0, row_max)
                total = s_prev
            if OP == 0:
                inv = 1.0 / total
                out_a = tl.exp(a_old - row_max_safe) * inv
                out_b = tl.exp(b_old - row_max_safe) * inv
            elif OP == 1:
                shift = row_max + tl.log(total)
                out_a = a_old - shift
                out_b = b_old - shift
            else:
                out_a = a_old
                out_b = b_old
            tl.store(y_ptr + row * n_cols + cols_a, out_a, mask=mask_a,
                     eviction_policy="evict_first")
            tl.store(y_ptr + row * n_cols + cols_b, out_b, mask=mask_b,
                     eviction_policy="evict_first")
        held = xa
        m_prev = m
        s_prev = s


HOLD_OPS = ("softmax", "log_softmax", "copy")


def slice_units(n_cols: int, split: int) -> tuple[int, int]:
    """The lag walk's unit (4 elements where the width allows: 16-byte loads) and a slice's
    width in units."""
    unit = 4 if n_cols % 4 == 0 else 1
    return unit, triton.cdiv(triton.cdiv(n_cols, split), unit)


def split_hold(x: torch.Tensor, op: str, hold: bool, wait: bool, split: int, warps: int,
               cap: int, maxnreg: int, cache: dict, interpret: bool = False,
               groups: int = 0) -> torch.Tensor:
    """One launch of the lag walk, a program's slice held in half (`hold`) or not, its partners'
    pairs awaited (`wait`) or not (two launches in the interpreter); returns the output."""
    n_rows, n_cols = x.shape
    unit, slice_u = slice_units(n_cols, split)
    half = max(triton.next_power_of_2(slice_u * unit) // 2, 1)
    y = torch.empty_like(x)
    slots = torch.zeros(n_rows * split, dtype=torch.int64, device=x.device)
    args = (x, y, slots, n_rows, n_cols // unit, slice_u)
    meta = dict(SPLIT=split, HALF=half, UNIT=unit, OP=HOLD_OPS.index(op), HOLD=hold, WAIT=wait,
                num_warps=warps)
    if maxnreg:
        meta["maxnreg"] = maxnreg
    _launch_walk(_split_hold_kernel, ("hold", op, hold, wait, split, half, unit, warps, maxnreg),
                 args, meta, split, cap, cache, interpret, groups)
    return y


WALKS = ("fixup", "lag", "hold", "lag_nowait", "hold_nowait")
DIAGNOSTIC = ("lag_nowait", "hold_nowait")  # wrong by design: timed whatever their error


def run_variant(x: torch.Tensor, variant: tuple, cache: dict, interpret: bool = False,
                groups: int = 0) -> torch.Tensor:
    walk, op, split, warps, cap, maxnreg = variant
    if walk == "fixup":
        return split_fixup(x, op, split, warps, cap, maxnreg, cache, interpret, groups)
    return split_hold(x, op, walk.startswith("hold"), not walk.endswith("nowait"), split, warps,
                      cap, maxnreg, cache, interpret, groups)


def cache_key(variant: tuple, n_cols: int) -> tuple:
    walk, op, split, warps, cap, maxnreg = variant
    block = triton.next_power_of_2(triton.cdiv(n_cols, split))
    if walk == "fixup":
        return ("fixup", op, split, block, warps, maxnreg)
    unit, slice_u = slice_units(n_cols, split)
    block = triton.next_power_of_2(slice_u * unit)
    return ("hold", op, walk.startswith("hold"), not walk.endswith("nowait"), split,
            max(block // 2, 1), unit, warps, maxnreg)


# (walk, op, programs a row, warps, most programs an SM, maxnreg or 0). The served row_lag configs
# are 32 programs a row of 4 warps (softmax) or 8 (log-softmax) with no cap. Round 459's first
# call timed the fixup walks (`-round459-fixup.json`); these are the lag walk's costs and its
# half-held form.
VARIANTS = tuple((walk, op, split, warps, cap, reg)
                 for op in HOLD_OPS
                 for walk in ("lag", "hold", "lag_nowait", "hold_nowait")
                 for split, warps, cap, reg in ((32, 8, 16, 0), (32, 4, 16, 0), (16, 8, 8, 0)))


def variant_name(walk, op, split, warps, cap, maxnreg) -> str:
    return f"{op}_{walk}_split{split}_w{warps}_cap{cap}" + (f"_r{maxnreg}" if maxnreg else "")


def probe_shape(n_rows: int, n_cols: int, variants, flusher) -> list[dict]:
    from row_probes import time_beside_zoo_and_copy

    x = torch.randn(n_rows, n_cols, device="cuda") * 4.0
    x[1, 5:40000 % n_cols] = float("-inf")  # a row with a run of -inf
    refs = {"softmax": torch.softmax(x.double(), dim=1),
            "log_softmax": torch.log_softmax(x.double(), dim=1), "copy": x.double()}
    cache: dict = {}
    results = []
    for zoo_op in ("softmax", "log_softmax"):
        # the copies are timed beside softmax
        mine = [v for v in variants if v[1] == zoo_op or (zoo_op == "softmax" and v[1] == "copy")]
        fns, errors, used = {}, {}, {}
        for variant in mine:
            name = variant_name(*variant)
            want = refs[variant[1]]
            try:
                got = run_variant(x, variant, cache)
                torch.cuda.synchronize()
                err = rel_err(got, want)  # inf: -inf or NaN where the reference has none
            except Exception as exc:  # a variant that does not build or launch is reported
                errors[name] = f"{type(exc).__name__}: {str(exc)[:400]}"
                print(f"{name}: {errors[name]}", flush=True)
                continue
            errors[name] = err
            per_sm, regs, spills = cache[cache_key(variant, n_cols)]
            cap = variant[4]
            used[name] = dict(resident_per_sm=per_sm, registers=regs, spills=spills,
                              per_sm_used=min(per_sm, cap))
            print(f"{n_rows}x{n_cols} {name}: rel l2 err {err:.2e}, {regs} registers, "
                  f"{spills} spilled, {min(per_sm, cap)} programs an SM", flush=True)
            if err < 1e-5 or variant[0] in DIAGNOSTIC:
                fns[name] = (lambda v=variant: run_variant(x, v, cache))
        us, failed = time_beside_zoo_and_copy(x, fns, errors, flusher, refs[zoo_op], op=zoo_op)
        results.append({"shape": [n_rows, n_cols], "op": zoo_op, "us_graphs": us,
                        "rel_l2_err": errors, "resources": used, "graph_capture_failed": failed})
    return results


# `--template`: the softmax template's own split-row kernel (32 programs a row, `row_lag`) at
# these knobs, each op's served config among them, to tell apart what the warps and what the held
# quarters gave: (label, elements a thread (16: 8 warps, 32: 4), lag_hold, lag_hold_exp,
# split_maxnreg)
TEMPLATE_CONFIGS = {
    "softmax": (("lag_e32", 32, 0, False, 0), ("lag_e16", 16, 0, False, 0),
                ("hold3_e16", 16, 3, False, 0), ("hold3exp_e16", 16, 3, True, 0),
                ("hold2exp_e16", 16, 2, True, 0), ("hold3exp_e16_r48", 16, 3, True, 48)),
    "log_softmax": (("lag_e16", 16, 0, False, 0), ("hold2_e16_r48", 16, 2, False, 48),
                    ("hold3_e16", 16, 3, False, 0)),
}
GRAPHS = 3  # graphs a callable: two graphs of one call can read a few percent apart


def template_modules(op: str, tmp: Path) -> dict:
    """label -> the loaded render of the softmax template at TEMPLATE_CONFIGS[op]."""
    import dataclasses

    from templates import get_template
    from verifier.core import load_candidate

    template = get_template("softmax")
    modules = {}
    for label, per_thread, hold, hold_exp, regs in TEMPLATE_CONFIGS[op]:
        cfg = dataclasses.replace(template.default, single_pass_max=32768, row_split=32,
                                  row_ahead=True, row_lag=True, elems_per_thread=per_thread,
                                  lag_hold=hold, lag_hold_exp=hold_exp, split_maxnreg=regs)
        source = template.render(cfg, op=op, log=op == "log_softmax", dim=1, params=[])
        modules[label] = load_candidate(source, tmp / label)
    return modules


def probe_template(n_rows: int, n_cols: int, flusher) -> list[dict]:
    import tempfile

    from row_probes import time_beside_zoo_and_copy

    x = torch.randn(n_rows, n_cols, device="cuda") * 4.0
    x[1, 5:40000 % n_cols] = float("-inf")
    results = []
    for op in TEMPLATE_CONFIGS:
        ref = getattr(torch, op)(x.double(), dim=1)
        fns, errors = {}, {}
        with tempfile.TemporaryDirectory() as tmp:
            for label, module in template_modules(op, Path(tmp)).items():
                model = module.ModelNew()
                got = model(x)
                torch.cuda.synchronize()
                errors[label] = rel_err(got, ref)
                print(f"{op} {label}: rel l2 err {errors[label]:.2e}", flush=True)
                if errors[label] < 1e-5:
                    for copy in range(GRAPHS):
                        fns[f"{label}#{copy}"] = (lambda m=model: m(x))
            us, failed = time_beside_zoo_and_copy(x, fns, errors, flusher, ref, op=op)
        mean = {label: round(sum(us[f"{label}#{c}"] for c in range(GRAPHS)) / GRAPHS, 2)
                for label in errors if label != "zoo" and f"{label}#0" in us}
        print(op, "mean of the graphs:", mean, flush=True)
        results.append({"shape": [n_rows, n_cols], "op": op, "us_graphs": us,
                        "us_mean_of_graphs": mean, "rel_l2_err": errors,
                        "configs": TEMPLATE_CONFIGS[op], "graph_capture_failed": failed})
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "runs"))
    parser.add_argument("--shape", default="256x128256", help="ROWSxCOLS (default 256x128256)")
    parser.add_argument("--variant", action="append", default=[],
                        help="WALK,OP,SPLIT,WARPS,CAP,MAXNREG (WALK one of " + ", ".join(WALKS)
                             + "; OP one of " + ", ".join(HOLD_OPS) + "; repeatable): these "
                             "variants instead of the listed ones")
    parser.add_argument("--template", action="store_true",
                        help="time the softmax template's split kernel at TEMPLATE_CONFIGS, "
                             f"{GRAPHS} graphs each, beside the zoo, instead of the walks")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        parser.error("this probe times kernels on a CUDA GPU; tests/test_probe_split_reread.py "
                     "checks its kernels in Triton's interpreter")
    from row_probes import write_probe
    from verifier.timing import L2Flusher

    if args.template:
        rows, cols = (int(v) for v in args.shape.lower().split("x"))
        torch.manual_seed(0)
        write_probe(args.out, "probe-split-reread-template",
                    "float32 softmax and log-softmax: the softmax template's split-row kernel "
                    "(32 programs a row, row_lag) at elems_per_thread, lag_hold, lag_hold_exp "
                    f"and split_maxnreg settings, {GRAPHS} CUDA graphs each, beside "
                    "kernel_zoo.ops.<op> and a copy of the same bytes; L2 flushed, medians in us",
                    probe_template(rows, cols, L2Flusher(torch.device("cuda"))))
        return

    variants = []
    for text in args.variant:
        walk, op, *rest = text.split(",")
        if walk not in WALKS or op not in HOLD_OPS or len(rest) != 4:
            parser.error(f"--variant {text!r}: want WALK,OP,SPLIT,WARPS,CAP,MAXNREG with WALK "
                         "one of " + ", ".join(WALKS) + " and OP one of " + ", ".join(HOLD_OPS))
        variants.append((walk, op, *(int(v) for v in rest)))
    rows, cols = (int(v) for v in args.shape.lower().split("x"))
    torch.manual_seed(0)
    shapes = probe_shape(rows, cols, variants or VARIANTS, L2Flusher(torch.device("cuda")))
    write_probe(args.out, "probe-split-reread",
                "float32 softmax and log-softmax over long rows split over programs: what the "
                "served row_lag walk's second read of a slice costs, and two ways around it (a "
                "slice's outputs stored at once and rescaled, half the slice held), with copies in "
                "the same walks; against kernel_zoo.ops.<op> and a copy of the same bytes; "
                "CUDA-graph replays, L2 flushed, medians in us", shapes,
                variants="<op>_<walk>_split<programs a row>_w<warps>_cap<most programs an SM>"
                         "[_r<maxnreg>]; walks: " + ", ".join(WALKS) + " (the _nowait ones "
                         "normalize each slice by its own pair: wrong, timed for the cost of "
                         "the wait)")


if __name__ == "__main__":
    main()
