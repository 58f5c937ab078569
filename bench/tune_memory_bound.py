"""Tune the memory-bound ops on the GPU with `kzoo optimize` and promote each winner into the zoo.

For each task (default: every task in tasks/ whose op is a `kernel_zoo.ops` op) and dtype, the
optimize loop searches the plan's Triton template and, with --cuda, its CUDA C++ alternatives, each
under the same trial count and time budget; the fastest correct result (the winner's re-timed
verdict, fresh baselines) is promoted into --zoo when it beats eager PyTorch and torch.compile.
Every optimize result and the choice made are written to OUT/tune-<device>.json.

    python bench/tune_memory_bound.py --dtypes bfloat16 --trials 16 --budget 45 \
        --zoo kernel_zoo/entries [--tasks rms_norm,softmax] [--cuda]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import tasks  # noqa: E402
from agent.loop import OptimizeOptions, _promote, optimize  # noqa: E402
from agent.plan import plan  # noqa: E402
from templates import get_template  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402


def _task_names(selected: str | None) -> list[str]:
    from kernel_zoo import ops

    if selected:
        return [s.strip() for s in selected.split(",") if s.strip()]
    names = []
    for path in sorted((ROOT / "tasks").glob("*.py")):
        if path.stem in ("__init__", "loader"):
            continue
        op = tasks.load(path).op
        if op and hasattr(ops, op):
            names.append(path.stem)
    return names


def tune(task_name: str, dtype: str, args, env: dict) -> dict:
    task = tasks.load(ROOT / "tasks" / f"{task_name}.py")
    found = plan(task)
    templates = [found.template] + (list(found.alternatives) if args.cuda else [])
    results = []
    for template in templates:
        started = time.monotonic()
        verdict = None
        try:
            result = optimize(OptimizeOptions(
                task=str(task.path), trials=args.trials, time_budget=args.budget, dtype=dtype,
                promote=False, seed=0, quiet=True, template=template, timeout_s=args.timeout,
            ))
            payload, verdict = result.payload, result.best_verdict
        except Exception as exc:  # one template's failure must not stop the others
            payload = {"error": f"{type(exc).__name__}: {exc}", "best": None}
        payload["verdict"] = verdict
        payload["template"] = template
        payload["seconds"] = round(time.monotonic() - started, 1)
        results.append(payload)
        best = payload.get("best")
        print(f"{task_name} {dtype} {template}: "
              + (f"{best['ms']:.4f} ms, x{best['speedup_vs_compile']:.2f} compile"
                 if best and best.get("ms") else payload.get("error", "no correct candidate")),
              flush=True)
    candidates = [r for r in results if r.get("best") and r["best"].get("correct")
                  and r["best"].get("ms")]
    winner = min(candidates, key=lambda r: r["best"]["ms"], default=None)
    promoted = None
    if winner is not None:
        best = winner["best"]
        faster = min(best["speedup_vs_eager"], best["speedup_vs_compile"]) > 1.0
        if faster and args.zoo:
            template = get_template(winner["template"])
            cfg = template.config(best["params"])
            source = template.render(cfg, **found.context)
            verdict = winner["verdict"]  # the re-timed verdict, as optimize would promote it
            promoted = _promote(task, found, template, cfg, source, dtype, verdict, env,
                                Path(args.zoo))
            print(f"promoted {promoted['op']} {promoted['version']} ({winner['template']}, "
                  f"{dtype}, bucket {found.shape_bucket})", flush=True)
    return {"task": task_name, "op": found.op, "dtype": dtype, "bucket": found.shape_bucket,
            "results": results, "winner": winner["template"] if winner else None,
            "promoted": promoted}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", help="comma-separated task names (default: every zoo op's task)")
    parser.add_argument("--dtypes", default="bfloat16", help="comma-separated dtypes")
    parser.add_argument("--trials", type=int, default=16)
    parser.add_argument("--budget", type=float, default=60.0, help="seconds per template")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per candidate")
    parser.add_argument("--cuda", action="store_true", help="also search CUDA C++ alternatives")
    parser.add_argument("--zoo", help="promote winners into this zoo folder")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "runs"))
    args = parser.parse_args()
    env = environment()
    runs = []
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"tune-{device_label()}-{int(time.time())}.json"
    for dtype in [d.strip() for d in args.dtypes.split(",") if d.strip()]:
        for name in _task_names(args.tasks):
            runs.append(tune(name, dtype, args, env))
            # written after every task: a run cut off by its time limit keeps what it finished
            path.write_text(json.dumps({"environment": env, "runs": runs}, indent=2,
                                       default=str) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
