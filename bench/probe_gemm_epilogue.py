"""Where the fused GEMM epilogue's time goes, and which kernel shapes hide it (one GPU run).

At gelu(linear(x, W, b)) 8192 x 8192 x 4096 (bf16) the fused kernel took 0.90 ms against the bare
GEMM's 0.78 (cuBLAS) and eager's 0.86 (bench/results/gemm-h100.json). This probe renders the gemm
template at one tile config with the epilogue cut down (the bare matmul) and with the knobs that
may hide it:
- `EPILOGUE_SPLIT` 2 / 4: the epilogue in column slices of the tile;
- `gelu_erf_fit`: GELU from erfc's Chebyshev fit (one division, one exponential) instead of
  libdevice's erf;
- a persistent grid whose tile loop is flattened into the K loop (`flatten`: the next tile's
  loads are issued during this tile's epilogue).
Rounds 33-36 rendered these as template options, and tried more that lost and were removed:
bias and relu epilogues, TMA stores of the output, warp-specialized tile loops, two 128x128
programs per SM (bench/results/runs/gemm-epilogue-h100-round33.json to -round36.json).
Each variant records its kernel's registers, spills and shared memory.
Each variant is checked against float64 first (the verifier's tolerance), then all are timed
interleaved with the verifier's timer beside cuBLAS (x @ W^T), F.linear, the GELU kernel alone,
eager and torch.compile. `--skinny` adds 128 x 4096 x 4096 matmul configs not swept before.

Writes bench/results/runs/gemm-epilogue-<device>.json.

    python bench/probe_gemm_epilogue.py [--skinny] [--out FILE]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
import time
from pathlib import Path

import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import tasks  # noqa: E402
from agent.plan import plan  # noqa: E402
from templates import get_template  # noqa: E402
from templates.gemm import TILED, GemmConfig, constraints  # noqa: E402
from verifier import tolerance  # noqa: E402
from verifier.core import load_candidate  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, bench, host_us, kernel_times  # noqa: E402

SHAPE = {"tokens": 8192, "in_features": 4096, "out_features": 8192}
BASE = dataclasses.replace(TILED, use_tma=True)  # the config gemm-h100.json timed (0.90 ms)
EPILOGUES = {"mm": ["acc"], "gelu": ["gelu", ["add", ["acc"], ["input", 0]], "none"]}
FIT = {"flatten": True, "EPILOGUE_SPLIT": 2, "gelu_erf_fit": True}  # the best of rounds 33-36
VARIANTS = {  # name -> (epilogue, config changes from BASE)
    "mm": ("mm", {}),
    "mm_pers_flatten": ("mm", {"persistent": 1, "flatten": True}),
    "gelu": ("gelu", {}),
    "gelu_pers_flatten": ("gelu", {"persistent": 1, "flatten": True}),
    "gelu_pers_fit": ("gelu", {"persistent": 1, **FIT}),
    "gelu_pointer_pers_fit": ("gelu", {"persistent": 1, "use_tma": False, "num_stages": 4,
                                       **FIT}),
    "gelu_pers_fit_group16": ("gelu", {"persistent": 1, "GROUP_M": 16, **FIT}),
    "gelu_pers_fit_s4": ("gelu", {"persistent": 1, "num_stages": 4, **FIT}),
    "gelu_pers_fit_split4": ("gelu", {"persistent": 1, **FIT, "EPILOGUE_SPLIT": 4}),
}
ROUNDS = 10  # GEMMs at the power limit vary by several percent run to run: many short rounds
SKINNY = {"M": 128, "N": 4096, "K": 4096}
# the skinny start when this probe was written (rounds 16-139): 128x64x64, 4 warps, 9 stages
SKINNY_BASE = GemmConfig(BLOCK_M=128, BLOCK_N=64, BLOCK_K=64, GROUP_M=1, num_warps=4, num_stages=9,
                         SPLIT_K=1, persistent=0, use_tma=False)
SKINNY_CONFIGS = {  # name -> config changes from SKINNY_BASE
    "default": {},
    "n64_pers1": {"persistent": 1},
    "n64_pers1_flatten": {"persistent": 1, "flatten": True},
}


def _check(got, ref64, same, dtype: str) -> dict:
    comp = tolerance.compare(got, ref64, same, tolerance.tolerance_for(dtype, None))
    return {"ok": comp.ok, "rel_l2_err": comp.rel_l2_err, "n_bad": comp.n_bad}


def _compiled(module) -> dict:
    """Registers, spills and shared memory of the kernels this module compiled so far."""
    found = {}
    try:  # Triton's JIT cache layout is internal; a Triton that differs leaves this empty
        for name in ("_gemm_kernel", "_gemm_tma_kernel"):
            for cache in getattr(module, name).device_caches.values():
                for kernel in cache[0].values():
                    kernel._init_handles()
                    found[name] = {"registers": kernel.n_regs, "spills": kernel.n_spills,
                                   "shared": kernel.metadata.shared}
    except (AttributeError, TypeError, IndexError) as exc:
        found["error"] = f"{type(exc).__name__}: {exc}"
    return found


def _render(context: dict, cfg: GemmConfig, cache: Path):
    source = get_template("gemm").render(cfg, **context)
    return load_candidate(source, cache)


def probe_epilogue(device, cache: Path, flusher) -> dict:
    task = tasks.load(ROOT / "tasks" / "linear_bias_gelu.py")
    task.apply_shape(SHAPE)
    base_ctx = plan(task).context
    torch.manual_seed(0)
    with torch.device(device):
        model = task.make_model().to(torch.bfloat16).eval()
        x = task.make_inputs()[0].to(torch.bfloat16)
    w, b = model.fc.weight.detach(), model.fc.bias.detach()
    x64, w64, b64 = x.double(), w.double(), b.double()
    mm64 = x64 @ w64.T
    refs64 = {"mm": mm64, "gelu": F.gelu(mm64 + b64)}
    with torch.no_grad():
        sames = {"mm": x @ w.T, "gelu": model(x)}
    rows, fns = {}, {}
    for name, (epi, changes) in VARIANTS.items():
        cfg = dataclasses.replace(BASE, **changes)
        row = {"epilogue": epi, "config": dataclasses.asdict(cfg), "problems": constraints(cfg)}
        rows[name] = row
        if row["problems"]:
            continue
        context = dict(base_ctx, epilogue=EPILOGUES[epi])
        try:
            module = _render(context, cfg, cache)
            launch = getattr(module, f"launch_{context['op']}")
            with torch.no_grad():
                out = launch(x, w, b)
                torch.cuda.synchronize()
            row["tma_path"] = module.tma_plan(*module._as_3d(x, w.T)[:2])
            row["kernel"] = _compiled(module)
            row["correctness"] = _check(out, refs64[epi], sames[epi], "bfloat16")
        except Exception as exc:  # a variant that fails to compile is recorded; the rest run
            row["error"] = f"{type(exc).__name__}: {str(exc)[:400]}"
            print(f"{name}: {row['error']}", flush=True)
            continue
        print(f"{name}: correct={row['correctness']['ok']} tma={row['tma_path']}", flush=True)
        if row["correctness"]["ok"]:
            fns[name] = (lambda f: lambda: f(x, w, b))(launch)
    compiled = torch.compile(model)
    y = F.linear(x, w, b)
    baselines = {
        "cublas_mm": lambda: torch.matmul(x, w.T),
        "linear_addmm": lambda: F.linear(x, w, b),
        "gelu_alone": lambda: F.gelu(y),
        "eager": lambda: model(x),
        "compile": lambda: compiled(x),
    }
    with torch.no_grad():
        timings = bench({**fns, **baselines}, flusher=flusher, rounds=ROUNDS,
                        budget_ms=250.0 * (len(fns) + 5))
    for name, t in timings.items():
        if name in rows:
            rows[name]["ms"] = t.median_ms
            rows[name]["p20_ms"], rows[name]["p80_ms"] = t.p20_ms, t.p80_ms
    base = {k: timings[k].median_ms for k in baselines}
    steady_fns = {"eager": baselines["eager"], "linear_addmm": baselines["linear_addmm"],
                  "cublas_mm": baselines["cublas_mm"],
                  **{n: fns[n] for n in ("gelu", "gelu_pers_fit", "mm_pers_flatten") if n in fns}}
    steady = _steady_ms(steady_fns)
    host = {k: round(host_us(f), 1) for k, f in (("eager", baselines["eager"]),
                                          *((n, fns[n]) for n in ("gelu", "gelu_pers_fit")
                                            if n in fns))}
    profile = kernel_times({"eager": baselines["eager"], "linear_addmm": baselines["linear_addmm"],
                        "gelu_alone": baselines["gelu_alone"],
                        **{k: fns[k] for k in ("gelu_pers_fit",) if k in fns}},
                       flusher)
    for row in rows.values():
        if "ms" in row:
            row["vs_eager"] = base["eager"] / row["ms"]
            row["vs_cublas_mm"] = base["cublas_mm"] / row["ms"]
            row["vs_addmm"] = base["linear_addmm"] / row["ms"]
    return {"shape": SHAPE, "dtype": "bfloat16", "base_config": dataclasses.asdict(BASE),
            "baselines_ms": base, "variants": rows, "profile": profile, "host_us": host,
            "steady_ms": steady}


def _steady_ms(fns: dict, calls: int = 20, rounds: int = 7) -> dict:
    """Median ms per call of back-to-back calls between two events (no flush: at this shape the
    operands, 128 MB, and the output, 128 MB, are several times the L2), rounds interleaved."""
    samples = {name: [] for name in fns}
    with torch.no_grad():
        for fn in fns.values():
            fn()
        torch.cuda.synchronize()
        for _ in range(rounds):
            for name, fn in fns.items():
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                for _ in range(calls):
                    fn()
                end.record()
                torch.cuda.synchronize()
                samples[name].append(start.elapsed_time(end) / calls)
    return {name: round(sorted(v)[len(v) // 2], 4) for name, v in samples.items()}


def probe_skinny(device, cache: Path, flusher) -> dict:

    task = tasks.load(ROOT / "tasks" / "matmul_skinny.py")
    task.apply_shape(SKINNY)
    context = plan(task).context
    torch.manual_seed(0)
    with torch.device(device):
        a = torch.randn(SKINNY["M"], SKINNY["K"], dtype=torch.bfloat16)
        bm = torch.randn(SKINNY["K"], SKINNY["N"], dtype=torch.bfloat16)
    ref64 = a.double() @ bm.double()
    same = a @ bm
    rows, fns = {}, {}
    for name, changes in SKINNY_CONFIGS.items():
        cfg = dataclasses.replace(SKINNY_BASE, **changes)
        row = {"config": dataclasses.asdict(cfg), "problems": constraints(cfg)}
        rows[name] = row
        if row["problems"]:
            continue
        try:
            module = _render(context, cfg, cache)
            launch = getattr(module, f"launch_{context['op']}")
            out = launch(a, bm)
            row["kernel"] = _compiled(module)
            torch.cuda.synchronize()
            row["correctness"] = _check(out, ref64, same, "bfloat16")
        except Exception as exc:
            row["error"] = f"{type(exc).__name__}: {str(exc)[:400]}"
            print(f"skinny {name}: {row['error']}", flush=True)
            continue
        if row["correctness"]["ok"]:
            fns[name] = (lambda f: lambda: f(a, bm))(launch)
    timings = bench({**fns, "cublas": lambda: torch.matmul(a, bm)}, flusher=flusher,
                    rounds=ROUNDS, budget_ms=100.0 * (len(fns) + 1))
    for name, t in timings.items():
        if name in rows:
            rows[name]["ms"] = t.median_ms
            rows[name]["vs_cublas"] = timings["cublas"].median_ms / t.median_ms
    return {"shape": SKINNY, "dtype": "bfloat16", "cublas_ms": timings["cublas"].median_ms,
            "configs": rows}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skinny", action="store_true", help="also time skinny matmul configs")
    parser.add_argument("--out", help="output JSON (default bench/results/runs/gemm-epilogue-<device>.json)")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("probe_gemm_epilogue.py times kernels on a CUDA GPU; none is visible here.",
              file=sys.stderr)
        return 2
    device = torch.device("cuda")
    cache = Path(tempfile.mkdtemp(prefix="kzoo-probe-"))
    flusher = L2Flusher(device)
    start = time.time()
    result = {"what": "gemm epilogue probe", "environment": environment(),
              "epilogue": probe_epilogue(device, cache, flusher)}
    if args.skinny:
        result["skinny"] = probe_skinny(device, cache, flusher)
    result["seconds"] = round(time.time() - start, 1)
    out = Path(args.out or ROOT / "bench" / "results" / "runs" /
               f"gemm-epilogue-{device_label()}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1))
    epi = result["epilogue"]
    print("baselines (ms):", {k: round(v, 4) for k, v in epi["baselines_ms"].items()})
    for name, row in epi["variants"].items():
        print(f"{name:32s} {row.get('ms', float('nan')):7.4f} ms (p20 {row.get('p20_ms', 0):.4f} "
              f"p80 {row.get('p80_ms', 0):.4f}) vs eager {row.get('vs_eager', float('nan')):5.3f} "
              f"{row.get('kernel', '')} {row.get('error', '')[:80]}")
    print("host us per call:", epi["host_us"])
    print("steady ms per call (back to back):", epi["steady_ms"])
    for name, kernels in epi["profile"].items():
        print("profile", name, kernels)
    if args.skinny:
        sk = result["skinny"]
        print("skinny cublas", round(sk["cublas_ms"] * 1e3, 1), "us")
        for name, row in sk["configs"].items():
            print(f"  {name:16s} {row.get('ms', float('nan')) * 1e3:7.1f} us  "
                  f"{row.get('vs_cublas', float('nan')):5.3f} {row.get('error', '')[:80]}")
    print("wrote", out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
