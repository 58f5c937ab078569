"""Where does float32 add + RMSNorm at 256x65536 lose its last tenth of copy? (one GPU run)

The served kernel (add_rms_norm's float32 `cols_le_65536` config on the H200: `row_split` 32,
`row_ahead`, 2-warp programs) splits each 256 KB row over 32 programs, and launches as many
groups of 32 as the GPU holds at once (a cooperative grid), each walking rows with the groups'
stride: on the H200 (triton 3.6) 6 programs an SM, 24 groups, so 256 rows are 10.67 a group.
This probe asks how much of the gap to the copy is the last, partial step, how much the kernel's
fixed cost, how much its steady rate, and how fast the same bytes can move at all:

- **rows** (default): the served kernel (its stored file) and a copy of the same bytes at whole
  steps of the groups (`--steps`) and at 256 rows; a line fitted through the whole steps gives
  the fixed cost and the time a row, and 256 rows' distance from the line is the tail's cost;
- **groups** (default): at 256 rows, the template's kernel (served params) and its `row_lag`
  form with the groups the GPU holds, and with fewer programs an SM forced (`_SPLIT_RESIDENT` set
  after the first call), so that 256 rows divide evenly (4 an SM: 16 groups of 16 rows);
- `--streams`: the four streams with no reduction (s = x + r stored, s * w stored; a ceiling for
  any add + RMSNorm) in several forms: a program a row's block, flat grids of 1024-16384-element
  programs, hinted, persistent, outputs placed off a power-of-two distance;
- `--splits S:E[:lag]`: the template's split kernel at other `row_split` and
  `elems_per_thread`; `--no-wait` adds each with its partners' words read once, not waited for.

Every add + RMSNorm variant but `--no-wait`'s is checked against a float64 reference first, the
flat streams against x + r and (x + r) * w. Timed as CUDA-graph replays, interleaved and
L2-flushed (verifier.timing). Writes <out>/probe-norm-{groups,streams,splits}-<device>.json.

GPU round 455 (H200, runs/probe-norm-{groups,streams,splits,splits-no-wait}-h200-round455.json):
the served kernel costs 5.3-5.8 us fixed and 253-256 ns a row against a copy's 3.4-4.0 us and
239-242 ns, and 256 rows sit 0.1-0.5 us over its line (the tail is not the loss); the streams as
a flat grid of 1024-element programs of 4 warps took 66.37 us, a copy of the bytes 64.32, the
served kernel 70.50, the streams as persistent programs or a program a row's block 69.5-70.1;
no split form, program size, residency or `row_lag` beat the served form (70.3-71.6 us), and
not waiting for the partners' words was slower (73.1 against 71.6).

    python bench/probe_norm_groups.py [--steps 1,2,4,8,12,13] [--streams]
                                      [--splits 32:32,64:8:lag [--no-wait]] [--out DIR]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
from pathlib import Path

import torch
import triton
import triton.language as tl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from kernel_zoo import ops  # noqa: E402
from kernel_zoo._home import SHIPPED_ZOO  # noqa: E402
from probe_ceilings import fit, timed  # noqa: E402
from templates import get_template  # noqa: E402
from tune_buckets import served_file  # noqa: E402
from verifier.core import load_candidate  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher  # noqa: E402

COLS = 65536
ROWS = 256
EPS = 1e-6
BUCKET = "cols_le_65536"


@triton.jit
def _streams(x_ptr, r_ptr, w_ptr, s_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    """s = x + r and y = s * w over BLOCK elements of one row a program: add + RMSNorm's four
    streams with no reduction (so no wait), a ceiling for it."""
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    s = tl.load(x_ptr + row * n_cols + cols) + tl.load(r_ptr + row * n_cols + cols)
    tl.store(s_ptr + row * n_cols + cols, s)
    tl.store(y_ptr + row * n_cols + cols, s * tl.load(w_ptr + cols, eviction_policy="evict_last"))


@triton.jit
def _streams_flat(x_ptr, r_ptr, w_ptr, s_ptr, y_ptr, n, n_progs, N_COLS: tl.constexpr,
                  BLOCK: tl.constexpr, HINTS: tl.constexpr):
    """The four streams over the flat tensors: program p takes blocks p, p + n_progs, ... of
    BLOCK contiguous elements (one step where the grid covers them). HINTS: loads evict_first,
    stores streaming (.cs)."""
    for start in range(tl.program_id(0) * BLOCK, n, n_progs * BLOCK):
        offs = start + tl.arange(0, BLOCK)
        w = tl.load(w_ptr + offs % N_COLS, eviction_policy="evict_last")
        if HINTS:
            s = (tl.load(x_ptr + offs, eviction_policy="evict_first")
                 + tl.load(r_ptr + offs, eviction_policy="evict_first"))
            tl.store(s_ptr + offs, s, cache_modifier=".cs")
            tl.store(y_ptr + offs, s * w, cache_modifier=".cs")
        else:
            s = tl.load(x_ptr + offs) + tl.load(r_ptr + offs)
            tl.store(s_ptr + offs, s)
            tl.store(y_ptr + offs, s * w)


@triton.jit
def _copy_flat(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs))


def stream_variants(x, r, w, sms: int) -> tuple[dict, dict]:
    """The four streams in other forms than `_streams`'s (a program a row's block, rows
    fastest): flat and contiguous, block sizes and warps, hinted, persistent, the outputs placed
    in one buffer off a power-of-two distance; and Triton's own copy of the same bytes. Returns
    the callables and each flat form's (s, y) outputs."""
    n = x.numel()
    s, y = torch.empty_like(x), torch.empty_like(x)
    pad = torch.empty(2 * n + (1 << 20) // 4 + 37 * 1024, device=x.device)
    s2 = pad[:n].view(x.shape)
    y2 = pad[n + (1 << 20) // 4 + 37 * 1024:].view(x.shape)
    fns, outputs = {}, {}
    for block, warps, hints, per_sm, outs in (
            (1024, 4, False, 0, "apart"), (2048, 4, False, 0, "apart"),
            (4096, 4, False, 0, "apart"), (4096, 8, False, 0, "apart"),
            (8192, 8, False, 0, "apart"), (16384, 16, False, 0, "apart"),
            (4096, 4, True, 0, "apart"), (2048, 4, True, 0, "apart"),
            (4096, 4, False, 4, "apart"), (2048, 4, False, 8, "apart"),
            (4096, 4, False, 0, "offset"), (2048, 4, False, 0, "offset")):
        progs = sms * per_sm if per_sm else n // block
        so, yo = (s, y) if outs == "apart" else (s2, y2)
        name = (f"flat b{block} w{warps}" + (" hints" if hints else "")
                + (f" persistent {per_sm}/sm" if per_sm else "") + (f" outputs {outs}"
                                                                    if outs != "apart" else ""))
        fns[name] = (lambda progs=progs, block=block, warps=warps, hints=hints, so=so, yo=yo:
                     _streams_flat[(progs,)](x, r, w, so, yo, n, progs, N_COLS=COLS,
                                             BLOCK=block, HINTS=hints, num_warps=warps))
        outputs[name] = (so, yo)
    half = torch.empty(2 * n, device=x.device)
    out = torch.empty_like(half)
    fns["triton copy b4096 w4"] = lambda: _copy_flat[(2 * n // 4096,)](half, out, BLOCK=4096,
                                                                      num_warps=4)
    return fns, outputs


SPIN = """    while tl.sum((words == 0).to(tl.int32), axis=0) > 0:
        words = tl.load(slot_ptr + lanes, volatile=True)
"""


def _module(template, params: dict, overrides: dict, cache: Path, no_wait: bool = False):
    """The template's add + RMSNorm at the served params and `overrides`; `no_wait`: its
    partners' words read once, not waited for (a wrong result: what the wait costs)."""
    fields = {f.name for f in dataclasses.fields(template.default)}
    cfg = dataclasses.replace(template.default,
                              **{k: v for k, v in {**params, **overrides}.items() if k in fields})
    source = template.render(cfg, op="add_rms_norm", kind="rms", residual=True, params=[],
                             weight_path="weight", bias_path=None, eps=EPS, normalized_ndim=1)
    if no_wait:
        if SPIN not in source:
            raise SystemExit("the split kernel's wait loop is not where --no-wait looks")
        source = source.replace(SPIN, "")
    return load_candidate(source, cache)


def _forced(module, x, r, w, per_sm: int | None) -> tuple[int, int]:
    """Call once (which fills the module's residency cache), then force `per_sm` programs an SM
    into it where given; returns (the GPU's programs an SM, the ones the next calls use)."""
    module.launch_add_rms_norm(x, r, w, EPS)
    torch.cuda.synchronize()
    natural = next(iter(module._SPLIT_RESIDENT.values()))
    if per_sm is not None:
        if per_sm > natural:
            raise SystemExit(f"cannot force {per_sm} programs an SM where {natural} fit")
        for key in module._SPLIT_RESIDENT:
            module._SPLIT_RESIDENT[key] = per_sm
    return natural, per_sm or natural


def _inputs(rows: int, device) -> tuple:
    g = torch.Generator(device=device).manual_seed(rows)
    x = torch.randn(rows, COLS, device=device, generator=g)
    r = torch.randn(rows, COLS, device=device, generator=g)
    w = torch.rand(COLS, device=device, generator=g) + 0.5
    return x, r, w


def _reference(x, r, w):
    s = (x + r).double()
    return (s * torch.rsqrt(s.pow(2).mean(-1, keepdim=True) + EPS) * w.double()), s


def _streams_fn(x, r, w):
    s, y = torch.empty_like(x), torch.empty_like(x)
    block = 4096
    return lambda: _streams[(x.shape[0], COLS // block)](x, r, w, s, y, COLS, BLOCK=block,
                                                         num_warps=4)


def _copy_fn(x):
    src = torch.randn(2 * x.numel(), device=x.device)
    dst = torch.empty_like(src)
    return lambda: dst.copy_(src)


def _time(fns: dict, flusher: L2Flusher) -> tuple[dict, list]:
    """probe_ceilings.timed's medians in us, fastest first."""
    us, failed = timed(fns, flusher)
    return dict(sorted(us.items(), key=lambda kv: kv[1])), failed


def _write(out: Path, stem: str, record: dict) -> None:
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{stem}-{device_label()}.json"
    path.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {path}")


def _check(name: str, out, want) -> float:
    y, s = out
    ref_y, ref_s = want
    err = max(((y.double() - ref_y).norm() / ref_y.norm()).item(),
              ((s.double() - ref_s).norm() / ref_s.norm()).item())
    if not err < 1e-5:
        raise SystemExit(f"{name}: relative L2 error {err:.3g} against float64")
    return err


def streams_only(device, flusher: L2Flusher, out: Path) -> int:
    x, r, w = _inputs(ROWS, device)
    sms = torch.cuda.get_device_properties(device).multi_processor_count
    fns, outputs = stream_variants(x, r, w, sms)
    wrong = []
    for name, (s, y) in outputs.items():  # every flat form stores s = x + r and y = s * w
        fns[name]()
        if not (torch.equal(s, x + r) and torch.equal(y, (x + r) * w)):
            wrong.append(name)
    if wrong:
        raise SystemExit(f"wrong streams: {wrong}")
    fns["streams (rows fastest)"] = _streams_fn(x, r, w)
    fns["served"] = lambda: ops.add_rms_norm(x, r, w, EPS)
    fns["copy"] = _copy_fn(x)
    us, failed = _time(fns, flusher)
    record = {"benchmark": "probe-norm-streams", "environment": environment(),
              "dtype": "float32", "shape": [ROWS, COLS], "us": us, "graph_failed": failed,
              "method": "CUDA-graph replays timed by verifier.timing.bench (L2 discarded before "
              "each call, medians, interleaved, 5 rounds); each flat form's two outputs checked "
              "equal to x + r and (x + r) * w first"}
    print(f"256x65536 float32 four streams (copy of its bytes "
          f"{2 * 2 * x.numel() * 4 / us['copy'] / 1e3:.0f} GB/s)", flush=True)
    for name, value in us.items():
        print(f"    {value:8.2f} us  {us['copy'] / value:5.3f} of copy  {name}", flush=True)
    _write(out, "probe-norm-streams", record)
    return 0


def splits_only(args, template, params, cache, x, r, w, want, flusher, record) -> int:
    """The template's split kernel (served params but `row_split`, `elems_per_thread` and
    `row_lag`) at 256 rows, each checked first, beside the served file and a copy."""
    sms = torch.cuda.get_device_properties(x.device).multi_processor_count
    fns = {"served": lambda: ops.add_rms_norm(x, r, w, EPS), "copy": _copy_fn(x)}
    checks, residency = {}, {}
    for item in args.splits.split(","):
        split, per_thread, *lag = item.split(":")
        overrides = {"row_split": int(split), "elems_per_thread": int(per_thread),
                     "row_lag": bool(lag)}
        module = _module(template, params, overrides, cache)
        natural, _ = _forced(module, x, r, w, None)
        warps = max(1, min(-(-COLS // int(split)) // (32 * int(per_thread)), 32))
        name = f"split {split} x {warps} warps" + (" lag" if lag else "")
        residency[name] = {**overrides, "per_sm": natural, "warps": warps,
                           "groups": natural * sms // int(split)}
        checks[name] = _check(name, module.launch_add_rms_norm(x, r, w, EPS), want)
        fns[name] = lambda m=module: m.launch_add_rms_norm(x, r, w, EPS)
        if args.no_wait:
            module = _module(template, params, overrides, cache, no_wait=True)
            module.launch_add_rms_norm(x, r, w, EPS)  # unchecked: it reads unpublished words
            fns[name + " no wait"] = lambda m=module: m.launch_add_rms_norm(x, r, w, EPS)
    us, failed = _time(fns, flusher)
    record["splits"] = {"us": us, "rel_l2_err": checks, "residency": residency,
                        "graph_failed": failed}
    for name, value in us.items():
        extra = residency.get(name)
        print(f"    {value:8.2f} us  {us['copy'] / value:5.3f} of copy  {name}"
              + (f"  ({extra['per_sm']}/SM, {extra['groups']} groups)" if extra else ""),
              flush=True)
    _write(args.out, "probe-norm-splits", record)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", default="1,2,4,8,12,13",
                        help="comma-separated whole steps of the served kernel's groups")
    parser.add_argument("--no-wait", action="store_true",
                        help="with --splits: each also with its partners' words read once, not "
                        "waited for (wrong results, unchecked: what the wait costs)")
    parser.add_argument("--streams", action="store_true",
                        help="only the four streams' forms (stream_variants) at 256 rows")
    parser.add_argument("--splits", default="",
                        help="instead of the groups: the template's split kernel at these "
                        "row_split:elems_per_thread[:lag] pairs (e.g. 32:8,64:8:lag) at 256 rows")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "runs")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("probe_norm_groups.py: needs a CUDA GPU (run it on the device machine)",
              file=sys.stderr)
        return 2
    device = torch.device("cuda")
    flusher = L2Flusher(device)
    if args.streams:
        return streams_only(device, flusher, args.out)
    template = get_template("norm")
    found = served_file(SHIPPED_ZOO, "add_rms_norm", "sm_90", "float32", BUCKET,
                        torch.cuda.get_device_name(device))
    if found is None:
        raise SystemExit("no served float32 add_rms_norm config for cols_le_65536 here")
    params, stored = found
    record = {"benchmark": "probe-norm-groups", "environment": environment(), "dtype": "float32",
              "cols": COLS, "served_params": params,
              "method": "CUDA-graph replays timed by verifier.timing.bench (L2 discarded before "
              "each call, medians, interleaved, 5 rounds); each add + RMSNorm variant checked "
              "against float64 first (relative L2 error of both outputs < 1e-5)"}
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp)
        served = load_candidate(stored, cache)
        x, r, w = _inputs(ROWS, device)
        natural, _ = _forced(served, x, r, w, None)
        sms = torch.cuda.get_device_properties(device).multi_processor_count
        groups = natural * sms // params["row_split"]
        print(f"served: {natural} programs an SM, {groups} groups", flush=True)
        record["served_per_sm"], record["served_groups"] = natural, groups

        # rows: whole steps of the groups, and 256
        steps = [int(s) for s in args.steps.split(",") if s]
        row_counts = sorted({groups * k for k in steps} | {ROWS})
        fns, checks = {}, {}
        for rows in row_counts:
            xi, ri, wi = (x, r, w) if rows == ROWS else _inputs(rows, device)
            checks[f"served@{rows}"] = _check(f"served@{rows}",
                                              served.launch_add_rms_norm(xi, ri, wi, EPS),
                                              _reference(xi, ri, wi))
            fns[f"served@{rows}"] = (lambda a=xi, b=ri, c=wi:
                                     served.launch_add_rms_norm(a, b, c, EPS))
            fns[f"copy@{rows}"] = _copy_fn(xi)
        us, failed = _time(fns, flusher)
        whole = [n for n in row_counts if n % groups == 0]
        line = {}
        for name in ("served", "copy"):
            fixed, per_row = fit([float(n) for n in whole], [us[f"{name}@{n}"] for n in whole])
            line[name] = {"fixed_us": round(fixed, 2), "ns_per_row": round(per_row * 1e3, 1),
                          "at_256_predicted_us": round(fixed + per_row * ROWS, 2),
                          "at_256_us": us[f"{name}@{ROWS}"]}
            print(f"{name}: {fixed:.2f} us fixed + {per_row * 1e3:.1f} ns a row over "
                  f"{whole} rows; 256 rows {us[f'{name}@{ROWS}']} us against "
                  f"{fixed + per_row * ROWS:.2f} on the line", flush=True)
        record["rows"] = {"us": us, "rel_l2_err": checks, "graph_failed": failed, "line": line}

        want = _reference(x, r, w)
        if args.splits:
            return splits_only(args, template, params, cache, x, r, w, want, flusher, record)
        # groups: the template's kernels at 256 rows, natural and forced residency
        fns = {"zoo": lambda: ops.add_rms_norm(x, r, w, EPS),
               "served": lambda: served.launch_add_rms_norm(x, r, w, EPS)}
        checks, residency = {}, {}
        checks["zoo"] = _check("zoo", fns["zoo"](), want)
        for lag in (False, True):
            natural = None
            for per_sm in (None, 6, 5, 4, 3, 2):
                if per_sm is not None and per_sm >= natural:
                    continue
                # a fresh module each: the residency cache is the module's
                module = _module(template, params, {"row_lag": lag}, cache)
                natural, used = _forced(module, x, r, w, per_sm)
                name = f"{'lag' if lag else 'ahead'}@{used}/sm"
                residency[name] = {"natural_per_sm": natural, "per_sm": used,
                                   "groups": used * sms // params["row_split"]}
                checks[name] = _check(name, module.launch_add_rms_norm(x, r, w, EPS), want)
                fns[name] = lambda m=module: m.launch_add_rms_norm(x, r, w, EPS)
        fns["streams"] = _streams_fn(x, r, w)
        fns["copy"] = _copy_fn(x)
        us, failed = _time(fns, flusher)
        record["groups"] = {"us": us, "rel_l2_err": checks, "residency": residency,
                            "graph_failed": failed}
        print(f"256x65536 float32 (copy of its bytes {2 * 2 * x.numel() * 4 / us['copy'] / 1e3:.0f}"
              " GB/s)" + (f" no graph: {failed}" if failed else ""), flush=True)
        for name, value in us.items():
            extra = residency.get(name, {})
            print(f"    {value:8.2f} us  {us['copy'] / value:5.3f} of copy  {name}"
                  + (f"  ({extra['groups']} groups, {ROWS / extra['groups']:.2f} rows each)"
                     if extra else ""), flush=True)
    _write(args.out, "probe-norm-groups", record)
    return 0


if __name__ == "__main__":
    sys.exit(main())
