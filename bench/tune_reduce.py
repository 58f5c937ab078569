"""Sweep reduce and cross_entropy configs on the GPU at their tasks' shapes, beside torch.compile.

For each op (sum, mean, amax, amin, argmax, cross_entropy) and dtype: DEFAULT, a few hand-picked
variants and `--samples` random valid configs of the template are rendered, checked against the
reference at every shape of tasks/<op>.py (a config wrong anywhere is dropped), and timed with
triton.testing.do_bench (median, L2 cleared before every run) beside eager PyTorch and
torch.compile and a device copy, all in this one process. GB/s come from the task's byte formula.
Prints, per op and dtype, the best configs by geometric-mean speedup over torch.compile, and writes
bench/results/tune-reduce-<device>-<date>.json (environment, copy bandwidth, baselines, every
config's times). Timing only: the verifier's full checks stay with `kzoo optimize` and the tests.

    python bench/tune_reduce.py --ops sum,argmax --dtypes bfloat16 --samples 16
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import math
import random
import sys
import tempfile
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import tasks  # noqa: E402
from templates import get_template, params_of  # noqa: E402
from verifier.core import load_candidate  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402

OPS = ("sum", "mean", "amax", "amin", "argmax", "cross_entropy")
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
# Loose screening tolerances against a float32 reference (the verifier's float64 checks decide).
RTOL = {"float32": 1e-4, "bfloat16": 2e-2, "float16": 4e-3}


def _variants(template) -> list:
    """Hand-picked neighbours of DEFAULT that test one idea each."""
    d = template.default
    if template.name == "reduce":
        ideas = [
            dict(num_stages=1), dict(num_stages=3), dict(evict_first=False), dict(align_rows=False),
            dict(row_block_max=4096), dict(row_block_max=16384, elems_per_thread=32),
            dict(tile_elems=8192), dict(programs_per_sm=4), dict(loop_block=8192, loop_warps=16),
            dict(split_per_sm=0), dict(split_per_sm=4), dict(col_block_inner=512),
            dict(col_tile_elems=8192, col_warps=16, num_stages=1), dict(col_block_inner=128),
        ]
    else:
        ideas = [
            dict(num_stages=1), dict(num_stages=3), dict(evict_first=False), dict(align_rows=False),
            dict(block=8192, warps=16), dict(block=2048, warps=4), dict(split_per_sm=0),
            dict(split_per_sm=4), dict(block=8192, warps=8, num_stages=1),
        ]
    out = []
    for idea in ideas:
        cfg = dataclasses.replace(d, **idea)
        if not template.violations(cfg):
            out.append(cfg)
    return out


def _configs(template, samples: int, seed: int) -> list:
    rng = random.Random(seed)
    configs = [template.default] + _variants(template)
    tries = 0
    while len(configs) < 1 + len(_variants(template)) + samples and tries < 100 * samples + 100:
        tries += 1
        cfg = template.config({p.name: rng.choice(p.choices) for p in template.space})
        if not template.violations(cfg) and cfg not in configs:
            configs.append(cfg)
    return configs


def _inputs(task, dtype: torch.dtype, seed: int = 0) -> list:
    torch.manual_seed(seed)
    with torch.device("cuda"):
        values = task.make_inputs()
    return [v.to("cuda", dtype) if v.is_floating_point() else v.to("cuda") for v in values]


def _close(got, ref, dtype_name: str) -> bool:
    """Each output (a tensor, or a tuple of them) of the reference's shape and within the screening
    tolerance of it; an integer output equal to it, in its dtype."""
    got, ref = (list(x) if isinstance(x, (tuple, list)) else [x] for x in (got, ref))
    if len(got) != len(ref):
        return False
    for g, r in zip(got, ref):
        if g.shape != r.shape:
            return False
        if not r.is_floating_point():
            if not (g.dtype == r.dtype and torch.equal(g, r)):
                return False
            continue
        g, r = g.double(), r.double()
        scale = r.abs().max().item() if r.numel() else 0.0
        if not bool((((g - r).abs() <= RTOL[dtype_name] * r.abs() + 1e-3 * scale)
                     | (g.isnan() & r.isnan())).all()):
            return False
    return True


def _copy_gbps(do_bench) -> float:
    src = torch.empty(256 * 1024 * 1024, dtype=torch.float32, device="cuda")  # 1 GiB
    dst = torch.empty_like(src)
    ms = do_bench(lambda: dst.copy_(src), return_mode="median")
    return 2 * src.numel() * 4 / (ms * 1e-3) / 1e9


def sweep(op: str, dtype_name: str, samples: int, seed: int, copy_gbps: float, cache: Path):
    from triton.testing import do_bench

    task = tasks.load(ROOT / "tasks" / f"{op}.py")
    template = get_template("cross_entropy" if op == "cross_entropy" else "reduce")
    context = ({"op": op, "ignore_index": int(task.module.ignore_index), "params": []}
               if op == "cross_entropy" else {"op": op, "dim": 2, "rank": 3, "params": []})
    dtype = DTYPES[dtype_name]
    itemsize = torch.empty((), dtype=dtype).element_size()
    configs = _configs(template, samples, seed)
    modules = [load_candidate(template.render(cfg, **context), cache) for cfg in configs]
    shapes, times = [], [[None] * len(task.shapes) for _ in configs]
    for s, shape in enumerate(task.shapes):
        task.apply_shape(shape)
        init = task.module.get_init_inputs()
        inputs = _inputs(task, dtype)
        model = task.module.Model(*init).cuda().eval()
        with torch.no_grad():
            ref = model(*[v.float() if v.is_floating_point() else v for v in inputs])
            torch._dynamo.reset()
            compiled = torch.compile(model, dynamic=False)
            eager_ms = do_bench(lambda: model(*inputs), return_mode="median")
            compile_ms = do_bench(lambda: compiled(*inputs), return_mode="median")
            nbytes = task.formula_value("bytes", itemsize)
            shapes.append({"shape": shape, "bytes": nbytes, "eager_ms": eager_ms,
                           "compile_ms": compile_ms,
                           "compile_gbps": nbytes / (compile_ms * 1e-3) / 1e9})
            for c, module in enumerate(modules):
                candidate = module.ModelNew(*init)
                out = candidate(*inputs)
                if not _close(out, ref.to(out.dtype) if ref.is_floating_point() else ref,
                              dtype_name):
                    times[c][s] = "wrong"
                    continue
                times[c][s] = do_bench(lambda: candidate(*inputs), return_mode="median")
        print(f"  {op} {dtype_name} {shape}: torch.compile {shapes[-1]['compile_gbps']:.0f} GB/s",
              flush=True)
    rows = []
    for cfg, per_shape in zip(configs, times):
        row = {"params": params_of(cfg), "default": cfg == template.default, "shapes": []}
        ok = all(isinstance(t, float) for t in per_shape)
        for info, t in zip(shapes, per_shape):
            entry = {"ms": t if isinstance(t, float) else None, "status": "ok" if t != "wrong"
                     else "wrong"}
            if isinstance(t, float):
                gbps = info["bytes"] / (t * 1e-3) / 1e9
                entry.update(gbps=gbps, fraction_of_copy=gbps / copy_gbps,
                             speedup_vs_compile=info["compile_ms"] / t)
            row["shapes"].append(entry)
        if ok:
            speedups = [e["speedup_vs_compile"] for e in row["shapes"]]
            row["geomean_speedup_vs_compile"] = math.exp(
                sum(math.log(x) for x in speedups) / len(speedups))
            row["min_speedup_vs_compile"] = min(speedups)
        rows.append(row)
    return {"op": op, "dtype": dtype_name, "template": template.name, "shapes": shapes,
            "configs": rows}


def _print(result: dict, copy_gbps: float, top: int) -> None:
    ranked = sorted((r for r in result["configs"] if "geomean_speedup_vs_compile" in r),
                    key=lambda r: -r["geomean_speedup_vs_compile"])
    wrong = sum(1 for r in result["configs"] if "geomean_speedup_vs_compile" not in r)
    print(f"{result['op']} {result['dtype']}: {len(ranked)} configs timed, {wrong} dropped "
          f"(wrong somewhere); copy {copy_gbps:.0f} GB/s")
    header = "  ".join(f"{str(list(s['shape'].values())):>22}" for s in result["shapes"])
    print(f"{'':>10}  {header}")
    print(f"{'compile':>10}  " + "  ".join(f"{s['compile_gbps']:>14.0f} GB/s      "
                                         for s in result["shapes"]))
    default = [r for r in result["configs"] if r["default"]]
    for label, row in [("default", r) for r in default] + [
            (f"#{i + 1}", r) for i, r in enumerate(ranked[:top])]:
        cells = "  ".join(
            f"{e['gbps']:>7.0f} GB/s {e['speedup_vs_compile']:>5.2f}x  " if e["ms"] else
            f"{'wrong':>22}" for e in row["shapes"])
        geo = row.get("geomean_speedup_vs_compile")
        print(f"{label:>10}  {cells}  geomean {geo:.2f}x" if geo else f"{label:>10}  {cells}")
    if ranked:
        print(f"  best params: {json.dumps(ranked[0]['params'], sort_keys=True)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ops", default=",".join(OPS), help="comma-separated, from " + ",".join(OPS))
    parser.add_argument("--dtypes", default="bfloat16", help="comma-separated dtypes")
    parser.add_argument("--samples", type=int, default=12, help="random configs beyond the variants")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--top", type=int, default=5, help="best configs printed per op and dtype")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args(argv)
    ops = [o for o in args.ops.split(",") if o]
    dtypes = [d for d in args.dtypes.split(",") if d]
    unknown = [o for o in ops if o not in OPS] + [d for d in dtypes if d not in DTYPES]
    if unknown:
        parser.error(f"unknown op or dtype: {', '.join(unknown)}")
    if not torch.cuda.is_available():
        print("bench/tune_reduce.py needs a CUDA GPU: it measures time, which the interpreter "
              "never does", file=sys.stderr)
        return 2
    from triton.testing import do_bench

    torch._dynamo.config.cache_size_limit = 64
    env = environment()
    copy_gbps = _copy_gbps(do_bench)
    results = []
    with tempfile.TemporaryDirectory() as cache:
        for op in ops:
            for dtype_name in dtypes:
                result = sweep(op, dtype_name, args.samples, args.seed, copy_gbps, Path(cache))
                _print(result, copy_gbps, args.top)
                results.append(result)
    record = {
        "benchmark": "tune-reduce", "environment": env, "copy_gbps": copy_gbps,
        "method": "triton.testing.do_bench median (L2 cleared before each run); candidate, "
                  "eager and torch.compile(dynamic=False) in one process; bytes from the task's "
                  "formula; configs screened against a float32 reference before timing",
        "results": results,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%d-%H%M%S")
    path = args.out / f"tune-reduce-{device_label()}-{stamp}.json"
    path.write_text(json.dumps(record, indent=1, sort_keys=True))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
