"""Sweep the pointwise template on the GPU beside eager PyTorch, torch.compile and the copy bandwidth.

For each pointwise task, dtype and GPU shape: DEFAULT, a curated set and a random sample of valid
configs are rendered, judged against the float64 reference with the verifier's tolerance table, and
timed interleaved with eager and torch.compile (L2 flushed before every run, median). GB/s come
from the task's byte formula; the device-to-device copy bandwidth is measured in the same process.
Writes bench/results/pointwise-tune-<device>.json and prints the best config per row.

    python bench/tune_pointwise.py [--tasks swiglu,geglu] [--dtypes bfloat16] [--configs 12]
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import json
import random
import sys
import tempfile
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import tasks  # noqa: E402
from templates import get_template, params_of  # noqa: E402
from verifier.core import load_candidate  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, bench, copy_bandwidth  # noqa: E402
from verifier.tolerance import compare, tolerance_for  # noqa: E402

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
ARG0 = {"kind": "full", "source": "arg", "index": 0}
ARG1 = {"kind": "full", "source": "arg", "index": 1}
# The tasks' render contexts as their docstrings state them; cross-checked against the planner
# wherever the planner covers the task.
CONTEXTS = {
    "swiglu": {"expr": ["mul", ["silu", ["input", 0]], ["input", 1]],
               "inputs": [ARG0, ARG1], "params": []},
    "geglu": {"expr": ["mul", ["gelu", ["input", 0], "none"], ["input", 1]],
              "inputs": [ARG0, ARG1], "params": []},
    "bias_gelu_scale": {
        "expr": ["mul", ["gelu", ["add", ["input", 0], ["input", 1]], "tanh"], ["const", 0.5]],
        "inputs": [ARG0, {"kind": "row", "source": "param", "path": "bias"}],
        "params": [{"path": "bias"}]},
    "residual_chain": {
        "expr": ["hardtanh", ["add", ["leaky_relu", ["input", 0], 0.1], ["input", 1]], -2.0, 2.0],
        "inputs": [ARG0, ARG1], "params": []},
    "mish_softplus": {
        "expr": ["add", ["mish", ["input", 0]],
                 ["mul", ["input", 1], ["softplus", ["input", 2], 2.0, 10.0]]],
        "inputs": [ARG0, {"kind": "scalar", "source": "param", "path": "alpha"},
                   {"kind": "full", "source": "arg", "index": 1}],
        "params": [{"path": "alpha"}]},
}


def _context(task) -> dict:
    context = CONTEXTS[task.name]
    try:
        from agent.plan import plan

        planned = plan(task).context
    except Exception as exc:  # a planner that does not cover pointwise chains yet
        print(f"  planner: {type(exc).__name__}: {str(exc)[:100]}; using the literal context")
        return context
    for key in ("expr", "inputs"):
        if json.dumps(planned[key], sort_keys=True) != json.dumps(context[key], sort_keys=True):
            print(f"  planner's {key} differs: {planned[key]} (using the planner's)")
    return {k: planned[k] for k in ("expr", "inputs", "params")}


def candidate_configs(template, n_random: int, seed: int) -> list:
    """DEFAULT, a curated grid of streaming configs, and random valid samples; deduplicated."""
    base = template.default
    curated = [base]
    for block, warps in ((1024, 4), (2048, 4), (2048, 8), (4096, 4), (4096, 8), (8192, 8),
                         (8192, 16), (16384, 16)):
        for tiling in ("flat", "rows"):
            curated.append(dataclasses.replace(base, block=block, num_warps=warps, tiling=tiling))
    for pps, stages in ((1, 1), (2, 1), (4, 1), (2, 2), (8, 1)):
        curated.append(dataclasses.replace(base, programs_per_sm=pps, num_stages=stages))
    curated += [dataclasses.replace(c, stream_hint=True) for c in curated[:6]]
    rng = random.Random(seed)
    while n_random > 0:
        cfg = template.config({p.name: rng.choice(p.choices) for p in template.space})
        if not template.violations(cfg):
            curated.append(cfg)
            n_random -= 1
    seen, unique = set(), []
    for cfg in curated:
        if cfg not in seen and not template.violations(cfg):
            seen.add(cfg)
            unique.append(cfg)
    return unique


def _inputs(task, shape: dict, dtype: torch.dtype, device: torch.device):
    task.apply_shape(shape)
    torch.manual_seed(0)
    with torch.device(device):
        model = task.make_model()
        init = task.module.get_init_inputs()
        inputs = task.make_inputs()
    inputs = [t.to(dtype) if isinstance(t, torch.Tensor) and t.is_floating_point() else t
              for t in inputs]
    return model.to(device, dtype).eval(), init, inputs


def tune_row(task, context, dtype_name, shape, configs, flusher, copy_gbps, cache_dir,
             device: torch.device = torch.device("cuda")) -> dict:
    template = get_template("pointwise")
    dtype = DTYPES[dtype_name]
    model, init, inputs = _inputs(task, shape, dtype, device)
    # The reference: the same (dtype-rounded) parameters and inputs, computed in float64.
    model64 = copy.deepcopy(model).to(torch.float64)
    with torch.no_grad():
        expected = model64(*[t.double() if isinstance(t, torch.Tensor) else t for t in inputs])
        same_dtype = model(*inputs)
    del model64
    tol = tolerance_for(dtype_name, task.tolerances.get(dtype_name))
    compiled = torch.compile(model, dynamic=False)
    fns = {"eager": lambda: model(*inputs), "compile": lambda: compiled(*inputs)}
    state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    rejected = {}
    by_name = {}
    for i, cfg in enumerate(configs):
        name = f"cfg{i}"
        try:
            module = load_candidate(template.render(cfg, op=task.op, **context), cache_dir)
            cand = module.ModelNew(*init).to(device, dtype).eval()
            cand.load_state_dict(state, strict=False, assign=True)
            with torch.no_grad():
                got = cand(*inputs)
            if device.type == "cuda":
                torch.cuda.synchronize()  # an illegal access surfaces here, as this config's failure
        except Exception as exc:  # a config that fails to compile is data, not a crash
            rejected[name] = f"{type(exc).__name__}: {str(exc)[:200]}"
            continue
        verdict = compare(got, expected, same_dtype, tol)
        if not verdict.ok:
            rejected[name] = f"wrong values: max_abs_err {verdict.max_abs_err:.3g}"
            continue
        by_name[name] = cfg
        fns[name] = (lambda c: lambda: c(*inputs))(cand)
    with torch.no_grad():
        times = bench(fns, flusher=flusher, budget_ms=60.0 * len(fns), rounds=3)
    nbytes = task.formula_value("bytes", torch.empty((), dtype=dtype).element_size())

    def rate(t) -> dict:
        gbps = nbytes / (t.median_ms * 1e-3) / 1e9
        return {"ms": t.median_ms, "gbps": gbps, "fraction_of_copy": gbps / copy_gbps}

    configs_out = [{"params": params_of(cfg), **rate(times[name])} for name, cfg in by_name.items()]
    configs_out.sort(key=lambda r: r["ms"])
    default = next((r for r in configs_out if r["params"] == params_of(template.default)), None)
    best = configs_out[0] if configs_out else None
    return {
        "task": task.name, "dtype": dtype_name, "shape": dict(shape), "bytes": nbytes,
        "eager": rate(times["eager"]), "compile": rate(times["compile"]),
        "default": default, "best": best,
        "best_speedup_vs_compile": (times["compile"].median_ms / best["ms"]) if best else None,
        "default_speedup_vs_compile": (times["compile"].median_ms / default["ms"])
        if default else None,
        "configs": configs_out, "rejected": rejected,
    }


def run(task_names: list[str], dtypes: list[str], n_random: int, seed: int, out_dir: Path) -> dict:
    if not torch.cuda.is_available():
        sys.exit("bench/tune_pointwise.py needs a CUDA GPU: the interpreter is never timed")
    torch._dynamo.config.cache_size_limit = 256
    device = torch.device("cuda")
    flusher = L2Flusher(device)
    copy_gbps = copy_bandwidth(device, flusher) / 1e9
    configs = candidate_configs(get_template("pointwise"), n_random, seed)
    print(f"copy bandwidth {copy_gbps:.0f} GB/s; {len(configs)} configs per row")
    rows = []
    cache_dir = Path(tempfile.mkdtemp(prefix="kzoo-tune-pointwise-"))
    started = time.time()
    for name in task_names:
        task = tasks.load(ROOT / "tasks" / f"{name}.py")
        context = _context(task)
        for dtype_name in dtypes:
            for shape in task.shapes:
                row = tune_row(task, context, dtype_name, shape, configs, flusher, copy_gbps,
                               cache_dir)
                rows.append(row)
                _print_row(row)
                print(f"    ({time.time() - started:.0f} s so far)", flush=True)
    result = {
        "benchmark": "pointwise-tune",
        "environment": environment(),
        "copy_gbps": copy_gbps,
        "method": "median of CUDA-event-timed runs, L2 flushed before each run, configs, eager "
                  "and torch.compile (default mode, dynamic=False) interleaved over 3 rounds; "
                  "bytes = the task's formula (inputs read once, output written once); every "
                  "timed config first passed the verifier's tolerance against float64",
        "rows": rows,
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"pointwise-tune-{device_label()}.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"\nwrote {path}")
    return result


def _print_row(r: dict) -> None:
    shape = "x".join(str(v) for v in r["shape"].values())
    best, default = r["best"], r["default"]
    if best is None:
        print(f"{r['task']:<16} {r['dtype']:<9} {shape:>13}: no config passed: {r['rejected']}")
        return
    print(f"{r['task']:<16} {r['dtype']:<9} {shape:>13}  eager {r['eager']['gbps']:6.0f}  "
          f"compile {r['compile']['gbps']:6.0f}  default "
          f"{default['gbps'] if default else float('nan'):6.0f}  best {best['gbps']:6.0f} GB/s "
          f"({best['fraction_of_copy']:.2f} of copy, {r['best_speedup_vs_compile']:.2f}x "
          f"compile)  {best['params']}")
    if r["rejected"]:
        print(f"    rejected: {r['rejected']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", default=",".join(CONTEXTS),
                        help=f"comma-separated pointwise tasks (default all: {','.join(CONTEXTS)})")
    parser.add_argument("--dtypes", default="bfloat16",
                        help="comma-separated dtypes (default bfloat16)")
    parser.add_argument("--configs", type=int, default=12,
                        help="random valid configs added to DEFAULT and the curated set")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random sample")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"), help="results folder")
    args = parser.parse_args()
    names = [n.strip() for n in args.tasks.split(",") if n.strip()]
    dtypes = [d.strip() for d in args.dtypes.split(",") if d.strip()]
    if [n for n in names if n not in CONTEXTS]:
        parser.error(f"unknown tasks {[n for n in names if n not in CONTEXTS]}; "
                     f"choose from {list(CONTEXTS)}")
    if [d for d in dtypes if d not in DTYPES]:
        parser.error(f"unknown dtypes {[d for d in dtypes if d not in DTYPES]}; "
                     f"choose from {list(DTYPES)}")
    run(names, dtypes, args.configs, args.seed, Path(args.out))


if __name__ == "__main__":
    main()
