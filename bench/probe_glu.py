"""Why the zoo's SwiGLU and GeGLU trail torch.compile's by 1-2% at the large float32 shapes and by
0.4 us at 16 decode rows, where the served config is torch.compile's own launch shape (1024
elements a program, 4 warps). One GPU run: the served kernel (`kernel_zoo.ops`), torch.compile's,
and probe-only kernels (not templates: a finding here becomes a template change, tested and tuned)
that differ from torch.compile's one thing at a time: its kernel as written (the element count a
compile-time constant, int32 offsets, no mask), the count a runtime argument, int64 offsets, the
template's full/partial branch, and the template's SiLU formula. Each checked against float64,
timed as CUDA-graph replays under the L2 flush, interleaved. Writes
bench/results/probe-glu-<device>.json.

    python bench/probe_glu.py
"""

from __future__ import annotations

import datetime as dt
import json
import sys
import tempfile
from pathlib import Path

import triton
import triton.language as tl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

CASES = (  # op, dtype, rows, cols
    ("geglu", "bfloat16", 16, 16384),
    ("swiglu", "bfloat16", 16, 14336),
    ("swiglu", "float32", 8192, 14336),
    ("geglu", "float32", 8192, 16384),
    ("geglu", "bfloat16", 8192, 16384),
)
XBLOCK = 1024
WARPS = 4
SHAPES = ((512, 4), (512, 2), (1024, 8), (2048, 4), (2048, 8), (4096, 8))


@triton.jit
def _act(a, GELU: tl.constexpr, TORCH_SILU: tl.constexpr):
    if GELU:
        return 0.5 * a * (1.0 + tl.math.erf(a * 0.7071067811865476))
    elif TORCH_SILU:
        return a * tl.sigmoid(a)
    else:
        return a / (1.0 + tl.exp(-a))  # the template's SiLU


@triton.jit
def _const_n(a_ptr, b_ptr, out_ptr, N: tl.constexpr, XBLOCK: tl.constexpr, GELU: tl.constexpr,
             TORCH_SILU: tl.constexpr):
    # torch.compile's kernel: N known when compiled, int32 offsets, no mask
    offs = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)
    a = tl.load(a_ptr + offs).to(tl.float32)
    b = tl.load(b_ptr + offs).to(tl.float32)
    tl.store(out_ptr + offs, (_act(a, GELU, TORCH_SILU) * b).to(out_ptr.dtype.element_ty))


@triton.jit
def _runtime_n(a_ptr, b_ptr, out_ptr, n, XBLOCK: tl.constexpr, GELU: tl.constexpr,
               TORCH_SILU: tl.constexpr, WIDE: tl.constexpr, BRANCH: tl.constexpr):
    pid = tl.program_id(0)
    if WIDE:
        base = tl.cast(pid, tl.int64) * XBLOCK  # the template's int64 tile base
    else:
        base = pid * XBLOCK
    offs = tl.arange(0, XBLOCK)
    if BRANCH and base + XBLOCK > n:  # the template's partial tile (never taken here)
        mask = offs < n - base
        a = tl.load(a_ptr + base + offs, mask=mask).to(tl.float32)
        b = tl.load(b_ptr + base + offs, mask=mask).to(tl.float32)
        y = (_act(a, GELU, TORCH_SILU) * b).to(out_ptr.dtype.element_ty)
        tl.store(out_ptr + base + offs, y, mask=mask)
    else:
        a = tl.load(a_ptr + base + offs).to(tl.float32)
        b = tl.load(b_ptr + base + offs).to(tl.float32)
        y = (_act(a, GELU, TORCH_SILU) * b).to(out_ptr.dtype.element_ty)
        tl.store(out_ptr + base + offs, y)


def _variants(a, b, gelu: bool) -> dict:
    import torch

    n = a.numel()
    grid = (triton.cdiv(n, XBLOCK),)
    out = torch.empty_like(a)

    def const_n(torch_silu):
        return lambda: _const_n[grid](a, b, out, N=n, XBLOCK=XBLOCK, GELU=gelu,
                                      TORCH_SILU=torch_silu, num_warps=WARPS)

    def runtime_n(wide, branch, torch_silu=False):
        return lambda: _runtime_n[grid](a, b, out, n, XBLOCK=XBLOCK, GELU=gelu,
                                        TORCH_SILU=torch_silu, WIDE=wide, BRANCH=branch,
                                        num_warps=WARPS)

    found = {
        "inductor_like": const_n(not gelu),
        "template_silu_const_n": const_n(False),
        "runtime_n": runtime_n(False, False, not gelu),
        "runtime_n_i64": runtime_n(True, False, not gelu),
        "runtime_n_i64_branch": runtime_n(True, True, not gelu),
    }
    if gelu:  # the SiLU variants are the same kernel for GeGLU
        del found["template_silu_const_n"]
    for block, warps in SHAPES:  # torch.compile's kernel at other launch shapes
        found[f"inductor_like_{block}x{warps}"] = (
            lambda block=block, warps=warps: _const_n[(triton.cdiv(n, block),)](
                a, b, out, N=n, XBLOCK=block, GELU=gelu, TORCH_SILU=not gelu, num_warps=warps))
    # every variant writes `out` (checked after each call); what a launch returns is not used
    return {name: (fn, out) for name, fn in found.items()}


def _launch_of(config, launcher=None) -> dict:
    """A torch.compile launch config (and its compiled kernel's registers) as plain data."""
    return dict(getattr(config, "kwargs", {}) or {},
                num_warps=getattr(config, "num_warps", None),
                num_stages=getattr(config, "num_stages", None),
                n_regs=getattr(launcher, "n_regs", None),
                n_spills=getattr(launcher, "n_spills", None))


def _inductor_launches(seen: set) -> list:
    """The launch configs torch.compile's pointwise kernels chose, for autotuners not in `seen`."""
    import gc

    from torch._inductor.runtime.triton_heuristics import CachingAutotuner

    found = []
    for obj in gc.get_objects():
        # type(), not isinstance: a dead weak proxy among the objects raises on isinstance
        if issubclass(type(obj), CachingAutotuner) and id(obj) not in seen:
            seen.add(id(obj))
            # after autotuning the candidates may be dropped (None): the launchers remain
            found.append({
                "kernel": getattr(getattr(obj, "fn", None), "__name__", "?"),
                "candidates": [_launch_of(c) for c in (getattr(obj, "configs", None) or [])],
                "chosen": [_launch_of(getattr(x, "config", None), x)
                           for x in (getattr(obj, "launchers", None) or [])]})
    return found


def _template_kernel(op: str, cache: Path):
    """The pointwise template's launcher at torch.compile's launch shape (1024 x 4 warps, flat)."""
    import dataclasses

    from templates import get_template
    from tune_pointwise import CONTEXTS
    from verifier.core import load_candidate

    template = get_template("pointwise")
    cfg = dataclasses.replace(template.default, block=XBLOCK, num_warps=WARPS, tiling="flat")
    module = load_candidate(template.render(cfg, op=op, **CONTEXTS[op]), cache)
    return getattr(module, f"launch_{op}")


def main() -> int:
    import torch
    import torch.nn.functional as F

    import kernel_zoo
    from verifier.environment import device_label, environment
    from verifier.timing import L2Flusher, bench, copy_bandwidth, graphed_where_possible

    if not torch.cuda.is_available():
        print("bench/probe_glu.py needs a CUDA GPU", file=sys.stderr)
        return 2
    device = torch.device("cuda")
    cache = Path(tempfile.mkdtemp())
    flusher = L2Flusher(device)
    copy = copy_bandwidth(device, flusher)
    results = []
    seen: set = set()
    for op, dtype_name, rows, cols in CASES:
        dtype = getattr(torch, dtype_name)
        gelu = op == "geglu"
        a = (torch.randn(rows, cols, device=device) * 3.0).to(dtype)
        b = torch.randn(rows, cols, device=device).to(dtype)

        def gated(a, b, gelu=gelu):
            return (F.gelu(a) if gelu else F.silu(a)) * b

        want = ((F.gelu(a.double()) if gelu else F.silu(a.double())) * b.double())
        compiled = torch.compile(gated, dynamic=False)
        served = getattr(kernel_zoo.ops, op)
        rendered = _template_kernel(op, cache)
        fns = {"zoo": lambda a=a, b=b, s=served: s(a, b),
               "template_1024x4": lambda a=a, b=b, r=rendered: r(a, b),
               "compile": lambda a=a, b=b, c=compiled: c(a, b),
               "eager": lambda a=a, b=b: gated(a, b)}
        outs = {}
        for name, (fn, out) in _variants(a, b, gelu).items():
            fns[name] = fn
            outs[name] = out
        row = {"op": op, "dtype": dtype_name, "shape": [rows, cols], "variants": {}}
        good = {}
        for name, fn in fns.items():
            got = fn()
            got = outs.get(name, got)
            err = ((got.double() - want).norm() / want.norm()).item()
            row["variants"][name] = {"rel_l2_err": err}
            if err < (1e-5 if dtype == torch.float32 else 1e-2):  # a wrong one is not timed
                good[name] = fn
        graphs, failed = graphed_where_possible(good)
        row["graph_capture_failed"] = failed
        row["inductor"] = _inductor_launches(seen)
        timings = bench(graphs, flusher=flusher, budget_ms=1500.0)
        nbytes = 3 * a.numel() * a.element_size()
        base = timings["compile"].median_ms
        for name, timing in timings.items():
            us = timing.median_ms * 1e3
            row["variants"][name].update(
                us=us, vs_compile=base / timing.median_ms,
                fraction_of_copy=nbytes / (timing.median_ms * 1e-3) / copy)
            print(f"{op} {dtype_name} {rows}x{cols} {name:22s} {us:8.2f} us  "
                  f"{base / timing.median_ms:.3f}x compile")
        for found in row["inductor"]:
            print(f"  torch.compile's {found['kernel']}: chose {found['chosen']} of "
                  f"{len(found['candidates'])}")
        results.append(row)
    result = {"probe": "gated units: the zoo's kernel against torch.compile's, one difference at "
                       "a time", "environment": environment(),
              "date": dt.datetime.now(dt.timezone.utc).isoformat(), "copy_gbps": copy / 1e9,
              "block": XBLOCK, "num_warps": WARPS, "cases": results}
    out = ROOT / "bench" / "results" / f"probe-glu-{device_label()}.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
