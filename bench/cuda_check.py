"""Verify the CUDA C++ templates on the GPU and time them against the Triton template (where the
family has one on this branch), eager PyTorch and torch.compile, all in one run.

Every candidate goes through the verifier (correctness at every task shape, then timing with the
baselines measured in the same process); configs: each template's DEFAULT plus `--samples` configs
drawn from its space (the best accepted one is reported beside the default). Writes
bench/results/cuda-<device>.json and prints a table.

    python bench/cuda_check.py [--dtypes bfloat16,float32] [--samples 4] [--out bench/results]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

import tasks  # noqa: E402
from agent.plan import plan  # noqa: E402
from templates import get_template, params_of, template_names  # noqa: E402
from verifier.core import Verifier  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402

# The ops with a CUDA C++ template beside their Triton one: each task's plan names both (its
# template and its first alternative) and the render context they share, as `kzoo optimize` and
# `--template` use them.
OPS = ("softmax", "swiglu", "geglu")


def rows(ops: list[str] | None = None) -> list[tuple[str, Path, tuple, tuple]]:
    """(op, task path, (CUDA template, context), (Triton template, context)) per op, from each
    task's plan."""
    found = []
    for op in OPS:
        if ops and op not in ops:
            continue
        task_path = ROOT / "tasks" / f"{op}.py"
        planned = plan(tasks.load(task_path))
        cuda = [name for name in planned.alternatives if name.endswith("_cuda")]
        if not cuda:
            raise SystemExit(f"bench/cuda_check.py: {task_path.name}'s plan names no CUDA C++ "
                             f"template (alternatives: {planned.alternatives})")
        found.append((op, task_path, (cuda[0], planned.context),
                      (planned.template, planned.context)))
    return found


def _sample(template, n: int, seed: int) -> list:
    rng = random.Random(seed)
    configs, tries = [], 0
    while len(configs) < n and tries < 1000:
        tries += 1
        cfg = template.config({p.name: rng.choice(p.choices) for p in template.space})
        if not template.violations(cfg) and cfg != template.default and cfg not in configs:
            configs.append(cfg)
    return configs


def _verify(verifier: Verifier, task, template, cfg, context: dict, dtype: str) -> dict:
    verdict = verifier.verify(task, template.render(cfg, **context), dtype)
    return {
        "template": template.name, "params": params_of(cfg), "accepted": verdict.accepted,
        "reasons": verdict.reasons[:3], "ms": verdict.ms,
        "speedup_vs_compile": verdict.speedup_vs_compile,
        "speedup_vs_eager": verdict.speedup_vs_eager,
        "roofline_fraction": verdict.roofline_fraction,
        "shapes": [
            {"shape": s.shape, "ms": s.ms, "eager_ms": s.eager_ms, "compile_ms": s.compile_ms,
             "gbps": s.gbps, "roofline_fraction": s.roofline_fraction}
            for s in verdict.shapes
        ],
    }


def run(dtypes: list[str], samples: int, out_dir: Path, ops: list[str] | None = None) -> dict:
    if not torch.cuda.is_available():
        sys.exit("bench/cuda_check.py needs a CUDA GPU: CUDA C++ candidates run only there")
    verifier = Verifier("gpu", Path(tempfile.mkdtemp(prefix="kzoo-cuda-check-")))
    env = environment()
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"cuda-{device_label()}.json"
    results: list[dict] = []
    report: dict = {}
    for op, task_path, (cuda_name, cuda_ctx), triton in rows(ops):
        task = tasks.load(task_path)
        for dtype in dtypes:
            cuda_template = get_template(cuda_name)
            configs = [cuda_template.default, *_sample(cuda_template, samples,
                                                       seed=sum(map(ord, op + dtype)))]
            cuda_runs = []
            for cfg in configs:
                cuda_runs.append(_verify(verifier, task, cuda_template, cfg, cuda_ctx, dtype))
                print(f"{op} {dtype} cuda {params_of(cfg)}: "
                      f"{'accepted' if cuda_runs[-1]['accepted'] else cuda_runs[-1]['reasons']} "
                      f"{cuda_runs[-1]['ms']}", flush=True)
            triton_run = None
            if triton is not None and triton[0] in template_names():
                template = get_template(triton[0])
                triton_run = _verify(verifier, task, template, template.default, triton[1], dtype)
                print(f"{op} {dtype} triton default: {triton_run['ms']}", flush=True)
            accepted = [r for r in cuda_runs if r["accepted"]]
            best_cuda = min(accepted, key=lambda r: r["ms"]) if accepted else None
            contenders = {"cuda": best_cuda, "triton": triton_run}
            timed = {k: v["ms"] for k, v in contenders.items() if v and v["accepted"]}
            results.append({
                "op": op, "task": str(task_path.relative_to(ROOT)), "dtype": dtype,
                "cuda_default": cuda_runs[0], "cuda_best": best_cuda,
                "cuda_configs_tried": len(cuda_runs), "triton_default": triton_run,
                "cuda_verdicts": [{"params": r["params"], "accepted": r["accepted"],
                                   "ms": r["ms"], "reasons": r["reasons"]} for r in cuda_runs],
                "winner": min(timed, key=timed.get) if timed else None,
                "all_cuda_correct": all(r["accepted"] for r in cuda_runs),
            })
            # Written after every row, so a run cut short keeps what it measured.
            report = {"environment": env, "copy_gbps": verifier.copy_gbps,
                      "samples_per_template": samples, "complete": False, "results": results}
            path.write_text(json.dumps(report, indent=1) + "\n")
    report["complete"] = True
    path.write_text(json.dumps(report, indent=1) + "\n")
    _print_table(report)
    print(f"wrote {path}")
    return report


def _print_table(report: dict) -> None:
    print(f"copy bandwidth {report['copy_gbps']:.0f} GB/s")
    print("| op | dtype | shape | CUDA GB/s | Triton GB/s | compile GB/s | CUDA vs compile |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for row in report["results"]:
        best = row["cuda_best"]
        triton = row["triton_default"]
        if best is None:
            print(f"| {row['op']} | {row['dtype']} | - | rejected | | | |")
            continue
        for i, s in enumerate(best["shapes"]):
            t = triton["shapes"][i] if triton and triton["accepted"] else None
            shape = "x".join(str(v) for v in s["shape"].values())
            triton_gbps = f"{t['gbps']:.0f}" if t else "-"
            compile_gbps = f"{s['gbps'] * s['ms'] / s['compile_ms']:.0f}"
            print(f"| {row['op']} | {row['dtype']} | {shape} | {s['gbps']:.0f} | {triton_gbps} | "
                  f"{compile_gbps} | {s['compile_ms'] / s['ms']:.2f}x |")
        print(f"winner for {row['op']} {row['dtype']}: {row['winner']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dtypes", default="bfloat16,float32")
    parser.add_argument("--samples", type=int, default=4,
                        help="configs drawn from each CUDA template's space beside its DEFAULT")
    parser.add_argument("--ops", default="", help="comma-separated subset of "
                        f"{', '.join(OPS)} (default: all)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args()
    ops = [o for o in args.ops.split(",") if o]
    unknown = sorted(set(ops) - set(OPS))
    if unknown:
        parser.error(f"--ops: no CUDA C++ template for {', '.join(unknown)}; "
                     f"choose from {', '.join(OPS)}")
    run(args.dtypes.split(","), args.samples, args.out, ops)


if __name__ == "__main__":
    main()
