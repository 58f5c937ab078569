"""Benchmark the attention template against SDPA, eager attention and compiled FlexAttention.

One GPU process: the environment, then per case (8 x 16 x 4096 x 128 bfloat16 by default: SDPA
non-causal and causal, relative position, soft cap) the rendered kernel is checked against a
float64 reference on one batch element (the verifier's tolerance, with the tasks' flash-numerics
slack) and only then timed beside the baselines, interleaved and L2-flushed (verifier.timing).
TFLOP/s count 4 * B * H * L^2 * D (halved under a causal mask). Writes
bench/results/attention-<device>.json and prints a table.

    python bench/attention.py                       # the template's default config
    python bench/attention.py --config '{"block_m": 128, "block_n": 64, ...}'
    python bench/attention.py --configs             # a short list of configs per case
    python bench/attention.py --variants '[{"poly_exp2": 0}, {"poly_exp2": 4}]'
                                                    # configs timed together, interleaved
    python bench/attention.py --smoke               # CPU: Triton's interpreter, tiny, no timing
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
if "--smoke" in sys.argv:  # before anything imports triton: kernels run in its interpreter
    os.environ.setdefault("TRITON_INTERPRET", "1")

from templates import get_template  # noqa: E402
from templates.attention import flops  # noqa: E402
from verifier import tolerance  # noqa: E402
from verifier.core import load_candidate  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402

ATTENTION = get_template("attention")
SOFTCAP = 20.0
# (name, score_mod, causal)
CASES = [
    ("sdpa", None, False),
    ("sdpa_causal", None, True),
    ("relative_position", "relative_position", False),
    ("softcap", "softcap", False),
]
# What --configs sweeps: around the tutorial's Hopper choices, each checked by the constraints.
# (128 x 32 blocks ran at 0.70x SDPA on an H100; 128 x 64 at 4 warps and 256 x 64 break the
# register budget: bench/results/attention-configs-h100.json, runs/attention-configs-h100-round1.json)
SWEEP = [
    dict(block_m=128, block_n=128, num_warps=8, num_stages=3),
    dict(block_m=128, block_n=128, num_warps=8, num_stages=2),
    dict(block_m=128, block_n=64, num_warps=8, num_stages=3),
    dict(block_m=64, block_n=64, num_warps=4, num_stages=3),
]
SMALL_BLOCKS = dict(block_m=64, block_n=64, num_warps=4, num_stages=3)  # what --smoke also runs
# ... each with pointer loads and through tensor descriptors (TMA)
SWEEP = [dict(c, tma=t) for c in SWEEP for t in (False, True)]


def render_launcher(cfg, mod: str | None, causal: bool, cache: Path):
    context = {"op": "attention", "is_causal": causal, "scale": None, "score_mod": mod,
               "softcap": SOFTCAP if mod == "softcap" else None, "window": None, "params": []}
    return load_candidate(ATTENTION.render(cfg, **context), cache).launch_attention


def explicit(q, k, v, mod: str | None, causal: bool):
    """Attention written out in PyTorch (the eager baseline and the float64 reference); k and v
    may have fewer heads than q (grouped-query attention: repeated to q's)."""
    if k.shape[1] != q.shape[1]:
        group = q.shape[1] // k.shape[1]
        k, v = k.repeat_interleave(group, 1), v.repeat_interleave(group, 1)
    s = torch.matmul(q, k.transpose(-2, -1)) * q.shape[-1] ** -0.5
    q_idx = torch.arange(q.shape[-2], device=q.device)[:, None]
    kv_idx = torch.arange(k.shape[-2], device=q.device)[None, :]
    if mod == "relative_position":
        s = s + (q_idx - kv_idx)
    elif mod == "softcap":
        s = SOFTCAP * torch.tanh(s / SOFTCAP)
    if causal:
        s = s.masked_fill(kv_idx > q_idx, float("-inf"))
    return torch.softmax(s, dim=-1) @ v


def flex_baseline(q, k, v, mod: str | None, causal: bool):
    """Compiled FlexAttention with the same score_mod (and a causal block mask), or None."""
    try:
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    except ImportError:
        return None

    def relpos(score, b, h, q_idx, kv_idx):
        return score + (q_idx - kv_idx)

    def softcap(score, b, h, q_idx, kv_idx):
        return SOFTCAP * torch.tanh(score / SOFTCAP)

    score_mod = {"relative_position": relpos, "softcap": softcap}.get(mod)
    block_mask = None
    if causal:
        block_mask = create_block_mask(lambda b, h, qi, ki: ki <= qi, None, None,
                                       q.shape[-2], k.shape[-2], device=q.device)
    compiled = torch.compile(flex_attention)
    return lambda: compiled(q, k, v, score_mod=score_mod, block_mask=block_mask)


def check(launch, q, k, v, mod, causal, dtype_name: str) -> dict:
    """The kernel against a float64 reference on batch element 0."""
    out = launch(q, k, v, causal)
    q0, k0, v0 = (t[:1].double() for t in (q, k, v))
    expected = explicit(q0, k0, v0, mod, causal)
    slack = {"bfloat16": 2.5e-3, "float16": 3.5e-4}.get(dtype_name)  # tasks/sdpa.py says why
    tol = tolerance.tolerance_for(dtype_name, {"atol_scale": slack} if slack else None)
    comparison = tolerance.compare(out[:1], expected, None, tol)
    return {"ok": comparison.ok, "rel_l2_err": comparison.rel_l2_err,
            "max_abs_err": comparison.max_abs_err, "n_bad": comparison.n_bad}


def inputs(shape, dtype, device, mod):
    torch.manual_seed(0)
    b, h, seq, d = shape
    q = torch.randn(b, h, seq, d, device=device, dtype=dtype)
    if mod == "softcap":
        q = q * 4.0  # scores reach the cap's curved range, as in tasks/attention_softcap.py
    k = torch.randn(b, h, seq, d, device=device, dtype=dtype)
    v = torch.randn(b, h, seq, d, device=device, dtype=dtype)
    return q, k, v


def checked(name, mod, causal, cfg, shape, dtype_name, cache, q, k, v):
    """(the row of one config with its correctness, its launcher or None): a config that fails to
    compile is recorded as such, and the sweep goes on."""
    row = {"case": name, "score_mod": mod, "causal": causal, "shape": list(shape),
           "dtype": dtype_name, "params": dataclasses.asdict(cfg)}
    launch = None
    try:
        launch = render_launcher(cfg, mod, causal, cache)
        row["correctness"] = check(launch, q, k, v, mod, causal, dtype_name)
    except Exception as exc:
        row["correctness"] = {"ok": False, "error": f"{type(exc).__name__}: {str(exc)[-300:]}"}
    return row, launch


def run_case(name, mod, causal, cfg, shape, dtype_name, cache, flusher, baselines=True) -> dict:
    from verifier.timing import bench

    dtype = getattr(torch, dtype_name)
    q, k, v = inputs(shape, dtype, "cuda", mod)
    row, launch = checked(name, mod, causal, cfg, shape, dtype_name, cache, q, k, v)
    if not row["correctness"]["ok"]:
        return row  # never timed before it passes
    fns = {"kernel": lambda: launch(q, k, v, causal)}
    if baselines:
        if mod is None:
            fns["sdpa"] = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        fns["eager"] = lambda: explicit(q, k, v, mod, causal)
        flex = flex_baseline(q, k, v, mod, causal)
        if flex is not None:
            fns["flex_compiled"] = flex
    with torch.no_grad():
        times = bench(fns, flusher=flusher, budget_ms=600.0)
    work = flops(shape[0], shape[1], shape[2], shape[2], shape[3], causal)
    row["ms"] = {n: t.median_ms for n, t in times.items()}
    row["spread_ms"] = {n: t.p80_ms - t.p20_ms for n, t in times.items()}
    row["tflops"] = {n: work / (t.median_ms * 1e-3) / 1e12 for n, t in times.items()}
    for base in ("sdpa", "flex_compiled", "eager"):
        if base in times:
            row[f"speedup_vs_{base}"] = times[base].median_ms / times["kernel"].median_ms
    del q, k, v
    torch.cuda.empty_cache()
    return row


def run_variants(name, mod, causal, cfgs, shape, dtype_name, cache, flusher) -> list[dict]:
    """Every config of `cfgs` checked, then all of them timed in one interleaved run beside the
    baselines: differences of a few percent between configs are not lost to the GPU's drift
    between separate runs. One row per config, ratios against the same run's baselines."""
    from verifier.timing import bench

    dtype = getattr(torch, dtype_name)
    q, k, v = inputs(shape, dtype, "cuda", mod)
    rows, fns = [], {}
    for i, cfg in enumerate(cfgs):
        row, launch = checked(name, mod, causal, cfg, shape, dtype_name, cache, q, k, v)
        if row["correctness"]["ok"]:  # never timed before it passes
            fns[f"kernel{i}"] = (lambda f: lambda: f(q, k, v, causal))(launch)
        rows.append(row)
    if not fns:
        return rows
    if mod is None:
        fns["sdpa"] = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    flex = flex_baseline(q, k, v, mod, causal)
    if flex is not None:
        fns["flex_compiled"] = flex
    with torch.no_grad():
        times = bench(fns, flusher=flusher, budget_ms=400.0 * len(fns))
    work = flops(shape[0], shape[1], shape[2], shape[2], shape[3], causal)
    for i, row in enumerate(rows):
        if f"kernel{i}" not in times:
            continue
        kept = {"kernel": times[f"kernel{i}"], **{b: times[b] for b in ("sdpa", "flex_compiled")
                                                  if b in times}}
        row["ms"] = {n: t.median_ms for n, t in kept.items()}
        row["spread_ms"] = {n: t.p80_ms - t.p20_ms for n, t in kept.items()}
        row["tflops"] = {n: work / (t.median_ms * 1e-3) / 1e12 for n, t in kept.items()}
        for base in ("sdpa", "flex_compiled"):
            if base in kept:
                row[f"speedup_vs_{base}"] = kept[base].median_ms / kept["kernel"].median_ms
    del q, k, v
    torch.cuda.empty_cache()
    return rows


def print_table(rows: list[dict]) -> None:
    print(f"{'case':<20}{'params':<34}{'kernel':>9}{'sdpa':>9}{'flex':>9}{'eager':>9}"
          f"{'x sdpa':>8}{'x flex':>8}  (TFLOP/s)")
    for r in rows:
        p = r["params"]
        tag = (f"{p['block_m']}x{p['block_n']} w{p['num_warps']} s{p['num_stages']}"
               + (" tma" if p.get("tma") else "")
               + (" ws" + ("+turns" if p.get("ws_pingpong") else "") if p.get("ws") else "")
               + (f" poly/{p['poly_exp2']}" if p.get("poly_exp2") else ""))
        if "tflops" not in r:
            print(f"{r['case']:<20}{tag:<34} INCORRECT {r['correctness']}")
            continue
        t = r["tflops"]
        cols = [f"{t.get(n, float('nan')):9.1f}" for n in ("kernel", "sdpa", "flex_compiled",
                                                             "eager")]
        ratios = [f"{r.get(f'speedup_vs_{n}', float('nan')):8.2f}" for n in ("sdpa",
                                                                             "flex_compiled")]
        print(f"{r['case']:<20}{tag:<34}{''.join(cols)}{''.join(ratios)}")


def smoke() -> None:
    """CPU: every case through the interpreter at a tiny shape, correctness only."""
    cache = Path(tempfile.mkdtemp(prefix="kzoo-attn-"))
    failures = 0
    for cfg in (ATTENTION.default, ATTENTION.config({**dataclasses.asdict(ATTENTION.default),
                                                     **SMALL_BLOCKS})):
        for name, mod, causal in CASES:
            q, k, v = inputs((1, 2, 65, 32), torch.bfloat16, "cpu", mod)
            result = check(render_launcher(cfg, mod, causal, cache), q, k, v, mod, causal,
                           "bfloat16")
            failures += not result["ok"]
            print(f"smoke {name:<20} block {cfg.block_m}x{cfg.block_n}: {result}")
    if failures:
        sys.exit(f"{failures} smoke case(s) incorrect")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", help="JSON of template params over the default")
    parser.add_argument("--configs", action="store_true", help="time the SWEEP list per case")
    parser.add_argument("--cases", help="comma-separated case names (default: all): "
                        + ", ".join(name for name, _, _ in CASES))
    parser.add_argument("--variants", help="JSON list of param overrides of the default (or "
                        "--config): all timed together, interleaved, beside the baselines")
    parser.add_argument("--shape", default="8,16,4096,128", help="B,H,L,D")
    parser.add_argument("--dtype", default="bfloat16", choices=["bfloat16", "float16"])
    parser.add_argument("--smoke", action="store_true", help="CPU interpreter check, no timing")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = parser.parse_args()
    if args.smoke:
        smoke()
        return
    if not torch.cuda.is_available():
        sys.exit("bench/attention.py times kernels and needs a CUDA GPU (or pass --smoke)")
    from verifier.timing import L2Flusher

    torch._dynamo.config.cache_size_limit = 64
    shape = tuple(int(x) for x in args.shape.split(","))
    base = dataclasses.asdict(ATTENTION.default)
    if args.config:
        base.update(json.loads(args.config))
    configs = [ATTENTION.config(base)]
    if args.configs:
        configs = [ATTENTION.config({**base, **c}) for c in SWEEP]
        configs = [c for c in configs if not ATTENTION.violations(c)]
    env = environment()
    flusher = L2Flusher(torch.device("cuda"))
    cache = Path(tempfile.mkdtemp(prefix="kzoo-attn-"))
    started = time.time()
    rows = []
    cases = CASES
    if args.cases:
        wanted = args.cases.split(",")
        unknown = sorted(set(wanted) - {name for name, _, _ in CASES})
        if unknown:
            sys.exit(f"unknown case(s) {unknown}; the cases are "
                     f"{[name for name, _, _ in CASES]}")
        cases = [c for c in CASES if c[0] in wanted]
    if args.variants:
        configs = [ATTENTION.config({**base, **c}) for c in json.loads(args.variants)]
        bad = {i: ATTENTION.violations(c) for i, c in enumerate(configs)
               if ATTENTION.violations(c)}
        if bad:
            sys.exit(f"--variants: configs break the template's constraints: {bad}")
    for name, mod, causal in cases:
        if args.variants:
            rows += run_variants(name, mod, causal, configs, shape, args.dtype, cache, flusher)
            print_table(rows[-len(configs):])
            continue
        first = None
        for i, cfg in enumerate(configs):
            # baselines once per case (timed beside the first config); later configs' ratios
            # are against those same-run times
            row = run_case(name, mod, causal, cfg, shape, args.dtype, cache, flusher,
                           baselines=i == 0)
            if first is None:
                first = row
            elif "ms" in row and "ms" in first:
                for base in ("sdpa", "flex_compiled", "eager"):
                    if base in first["ms"]:
                        row[f"speedup_vs_{base}"] = first["ms"][base] / row["ms"]["kernel"]
                        row["tflops"][base] = first["tflops"][base]
            rows.append(row)
            print_table([row])
    print()
    print_table(rows)
    result = {"benchmark": "attention", "environment": env, "shape": list(shape),
              "dtype": args.dtype,
              "mode": "variants" if args.variants else "configs" if args.configs else "single",
              "seconds": time.time() - started, "rows": rows}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    suffix = "-variants" if args.variants else "-configs" if args.configs else ""
    path = out / f"attention{suffix}-{device_label()}.json"
    path.write_text(json.dumps(result, indent=2))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
