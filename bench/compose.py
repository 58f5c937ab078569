"""Composed kernels (issue #5) against eager PyTorch and torch.compile, in one GPU run.

For each task (default: the Linear+epilogue and convolution+tail tasks), `kzoo optimize` searches
the plan's composed template for --trials trials (real Ray verifier actor, real SQLite study, no
promotion), and the winner is re-verified with fresh, interleaved eager and torch.compile
baselines: the verifier's timer (L2 flushed, CUDA-event medians), correctness checked first at
every shape and seed. Writes bench/results/compose-<device>.json and prints one row per shape;
with --merge, the file's rows of the tasks not run this time stay (each row carries its date), so a
table can be re-run in parts, one GPU call each.

    python bench/compose.py [--tasks conv_relu_bias_mean,linear_bias_gelu] [--trials 6] [--profile]
                            [--merge]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# issue #5's Linear+epilogue and convolution+tail tasks (bfloat16), and a norm with a tail
DEFAULT_TASKS = ("linear_bias_gelu", "linear_bias_silu", "linear_bias_relu",
                 "linear_bias_gelu_tanh", "linear_bias_sigmoid", "linear_bias_tanh",
                 "linear_residual", "linear_layer_norm",
                 "conv_relu_bias_mean", "conv_bn_relu", "conv_groupnorm_swish",
                 "conv_pool_sigmoid_sum", "conv_transpose_tanh_mean", "conv_gelu_channel_sum",
                 "layer_norm_gelu")


def run(names: list[str], trials: int, dtype: str, budget: float, out_dir: Path,
        profile: bool = False, merge: bool = False) -> dict:
    import tasks
    from agent.loop import OptimizeOptions, optimize
    from agent.plan import plan
    from verifier.environment import device_label

    rows, failures = _kept(out_dir / f"compose-{device_label()}.json", names, dtype) if merge \
        else ([], [])
    storage = f"sqlite:///{tempfile.mkdtemp()}/compose-bench.db"
    for name in names:
        path = ROOT / "tasks" / f"{name}.py"
        task = tasks.load(path)
        if dtype not in task.dtypes:  # recorded, and the run goes on with the next task
            failures.append({"task": name, "dtype": dtype, "accepted": False, "reasons": [
                f"dtype {dtype} is not among the task's dtypes {list(task.dtypes)}"]})
            print(f"{name}: skipped: {failures[-1]['reasons'][0]}")
            continue
        found = plan(task)
        started = time.monotonic()
        result = optimize(OptimizeOptions(
            task=str(path), trials=trials, dtype=dtype, storage=storage, promote=False,
            quiet=True, time_budget=budget, seed=0))
        verdict = result.best_verdict or {}
        best = result.payload.get("best") or {}
        entry = {"task": name, "date": time.strftime("%Y-%m-%d"), "family": found.family,
                 "template": best.get("template"), "params": best.get("params"), "dtype": dtype,
                 "trials": result.payload["trials"],
                 "seconds": round(time.monotonic() - started, 1),
                 "accepted": bool(verdict.get("accepted")), "reasons": verdict.get("reasons", []),
                 "timer": verdict.get("timer"),
                 "trial_log": _trial_log(result.payload["study"], storage)}
        if found.partition is not None:
            entry["groups"] = [g.template for g in found.partition.groups]
            entry["library_calls"] = [n.name for n in found.partition.library]
        if not entry["accepted"]:
            failures.append(entry)
        for shape in verdict.get("shapes", []):
            ms, eager, comp = shape.get("ms"), shape.get("eager_ms"), shape.get("compile_ms")
            rows.append({**entry, "shape": shape.get("shape"), "ms": ms, "eager_ms": eager,
                         "compile_ms": comp, "host_us": shape.get("host_us"),
                         "eager_host_us": shape.get("eager_host_us"),
                         "speedup_vs_eager": round(eager / ms, 3) if ms and eager else None,
                         "speedup_vs_compile": round(comp / ms, 3) if ms and comp else None})
            _print_row(rows[-1])
        if not verdict.get("shapes"):
            print(f"{name}: no timed winner: {entry['reasons'][:2]}")
        elif profile and best.get("params") is not None:
            try:  # what each side's time is made of; a failure is recorded, the run goes on
                entry_profile = _profile_winner(task, found, best, dtype)
            except Exception as exc:  # noqa: BLE001 - recorded in the JSON
                entry_profile = {"error": f"{type(exc).__name__}: {str(exc)[:300]}"}
            for row in rows:
                if row["task"] == name:
                    row["profile"] = entry_profile.get(json.dumps(row["shape"], sort_keys=True),
                                                       entry_profile.get("error"))
        # written after every task: a crash or a timeout later in the run loses nothing timed
        result = _write(out_dir, rows, failures, dtype, trials)
    result = _write(out_dir, rows, failures, dtype, trials)
    print(f"wrote {out_dir / f'compose-{device_label()}.json'}")
    print(json.dumps(result["summary"]))
    return result


def _kept(path: Path, names: list[str], dtype: str) -> tuple[list, list]:
    """The rows and failures of an earlier table at `path` whose tasks are not re-run now (rows
    from before rows carried a date get the file's)."""
    if not path.exists():
        return [], []
    old = json.loads(path.read_text())
    if old.get("dtype") != dtype:
        raise SystemExit(f"--merge: {path} holds {old.get('dtype')} rows, this run {dtype}; "
                         "merge runs of one dtype, or leave --merge off")
    keep = lambda r: r.get("task") not in names  # noqa: E731
    rows = [{**r, "date": r.get("date") or old.get("date")} for r in old["rows"] if keep(r)]
    return rows, [f for f in old.get("failures", []) if keep(f)]


def _trial_log(study_name: str, storage: str) -> list[dict]:
    """Every trial of the task's search: its params, score and verdict (why a start lost)."""
    from search.study import completed_trials, open_study

    return [{"trial": r.number, "params": r.params, "score": r.value,
             "accepted": bool((r.verdict or {}).get("accepted")),
             "speedup_vs_best_baseline": (r.verdict or {}).get("speedup_vs_best_baseline"),
             "reasons": (r.verdict or {}).get("reasons", [])[:2],
             "shapes": [{"shape": sh.get("shape"), "ms": sh.get("ms"), "eager_ms": sh.get("eager_ms"),
                         "compile_ms": sh.get("compile_ms"), "host_us": sh.get("host_us")}
                        for sh in (r.verdict or {}).get("shapes", [])]}
            for r in completed_trials(open_study(study_name, storage))]


def _write(out_dir: Path, rows: list, failures: list, dtype: str, trials: int) -> dict:
    from verifier.environment import device_label, environment

    speedups = [r["speedup_vs_eager"] for r in rows if r["speedup_vs_eager"]]
    result = {
        "what": "composed kernels (kzoo optimize on the plan's composite template) vs eager and "
                "torch.compile (default mode), baselines timed in the same verifier run",
        "environment": environment(), "date": time.strftime("%Y-%m-%d"), "dtype": dtype,
        "trials_per_task": trials, "rows": rows, "failures": failures,
        "summary": {
            "geomean_vs_eager": round(math.exp(sum(map(math.log, speedups)) / len(speedups)), 3)
            if speedups else None,
            "beats_eager_everywhere": bool(rows) and all((r["speedup_vs_eager"] or 0) > 1.0
                                                         for r in rows),
        },
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"compose-{device_label()}.json"
    path.write_text(json.dumps(result, indent=2, default=str) + "\n")
    return result


def at_shape(task, module, shape: dict, torch_dtype, device):
    """(model, ours, inputs) at `shape`, in `torch_dtype` on `device`: the task's Model, the
    candidate module's ModelNew holding the Model's parameters, and the task's inputs (seed 0)."""
    import torch

    task.apply_shape(shape)
    torch.manual_seed(0)
    with torch.device(device):
        model = task.make_model().to(torch_dtype).eval()
        ours = module.ModelNew(*task.module.get_init_inputs())
        inputs = [t.to(torch_dtype) if t.is_floating_point() else t for t in task.make_inputs()]
    ours.load_state_dict({k: v.detach() for k, v in model.state_dict().items()}, strict=False,
                         assign=True)
    return model, ours, inputs


def _profile_winner(task, found, best: dict, dtype: str) -> dict:
    """At each task shape: the winner's and eager's kernels (mean us per call, CUDA profiler, L2
    flushed before each call) and host microseconds per call, keyed by the shape's JSON."""
    import torch

    from verifier.core import DTYPES, load_candidate
    from verifier.timing import L2Flusher, host_us, kernel_times

    template = found.template_object(best.get("template"))
    source = template.render(template.config(best["params"]), **found.context)
    module = load_candidate(source, Path(tempfile.mkdtemp(prefix="kzoo-compose-")))
    device, torch_dtype = torch.device("cuda"), DTYPES[dtype]
    flusher = L2Flusher(device)
    out = {}
    for shape in task.shapes:
        model, ours, inputs = at_shape(task, module, shape, torch_dtype, device)
        fns = {"eager": lambda: model(*inputs), "composed": lambda: ours(*inputs)}
        out[json.dumps(shape, sort_keys=True)] = {
            "kernels_us": kernel_times(fns, flusher),
            "host_us": {k: round(host_us(f), 1) for k, f in fns.items()}}
    return out


def _print_row(r: dict) -> None:
    fmt = lambda v: f"{v:.4f}" if isinstance(v, float) else str(v)  # noqa: E731
    print(f"{r['task']:24s} {json.dumps(r['shape']):60s} ms {fmt(r['ms'])} eager "
          f"{fmt(r['eager_ms'])} compile {fmt(r['compile_ms'])} x{r['speedup_vs_eager']} eager "
          f"x{r['speedup_vs_compile']} compile")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", default=",".join(DEFAULT_TASKS))
    parser.add_argument("--trials", type=int, default=6)
    parser.add_argument("--dtype", default="bfloat16")
    parser.add_argument("--budget", type=float, default=90.0, help="seconds per task's search")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"))
    parser.add_argument("--profile", action="store_true",
                        help="also record, per shape, the winner's and eager's kernels (CUDA "
                             "profiler) and host time per call")
    parser.add_argument("--merge", action="store_true",
                        help="keep the existing JSON's rows of the tasks not run this time")
    args = parser.parse_args()
    run(args.tasks.split(","), args.trials, args.dtype, args.budget, Path(args.out),
        profile=args.profile, merge=args.merge)


if __name__ == "__main__":
    main()
