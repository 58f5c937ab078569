"""Verified candidates per GPU-minute and the GPU's idle fraction with the prepare stage off and on:
the same `kzoo optimize` on one GPU (same task, dtype, seed and time budget), written to
bench/results/pipeline-<device>.json.

Every run gets a fresh study, user zoo, Triton cache (TRITON_CACHE_DIR) and Inductor cache, so the
run without a prepare stage compiles its kernels in the verifier, as a first search does, and the run
with one finds no binaries of the other's. The throughput clock starts with the verifier pool, so the
workers' start-up (and the torch.compile baselines) count in both. `--repeats 2` alternates
off, on, off, on.

    python bench/pipeline.py [--budget 120] [--prepare-workers 0,2] [--dtype bfloat16]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
TASK = "tasks/softmax.py"


def _run(prepare_workers: int, args) -> dict:
    home = Path(tempfile.mkdtemp(prefix=f"kzoo-pipeline-{prepare_workers}-"))
    out = home / "out.json"
    cmd = [sys.executable, "-m", "agent", "optimize", TASK, "--dtype", args.dtype,
           "--trials", "1000", "--time-budget", str(args.budget), "--workers", "1",
           "--prepare-workers", str(prepare_workers), "--no-promote", "--seed", str(args.seed),
           "--json", str(out)]
    env = dict(os.environ, KZOO_HOME=str(home), TRITON_CACHE_DIR=str(home / "triton"),
               TORCHINDUCTOR_CACHE_DIR=str(home / "inductor"),
               PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    print(proc.stdout[-1200:], proc.stderr[-600:], sep="\n", flush=True)
    if proc.returncode not in (0, 1) or not out.exists():
        raise SystemExit(f"optimize failed (exit {proc.returncode}): {proc.stderr[-2000:]}")
    payload = json.loads(out.read_text())
    return {"prepare_workers": prepare_workers, "throughput": payload["throughput"],
            "trials": payload["trials"], "new_trials": payload["new_trials"],
            "elapsed_s": payload["elapsed_s"], "best": payload["best"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=float, default=120.0, help="seconds of search per run")
    parser.add_argument("--prepare-workers", default="0,2",
                        help="prepare-worker counts to compare (0: no prepare stage)")
    parser.add_argument("--repeats", type=int, default=1, help="rounds over the counts")
    parser.add_argument("--dtype", default="bfloat16")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = parser.parse_args()

    import torch

    import tasks
    from verifier.environment import device_label, environment

    if not torch.cuda.is_available():
        raise SystemExit("bench/pipeline.py needs a CUDA GPU")
    counts = [int(c) for c in args.prepare_workers.split(",")]
    runs = [_run(count, args) for _ in range(args.repeats) for count in counts]
    summary = {}
    for count in counts:
        mine = [r["throughput"] for r in runs if r["prepare_workers"] == count]
        summary[str(count)] = {
            "candidates_per_gpu_minute": round(
                sum(t["candidates_per_gpu_minute"] for t in mine) / len(mine), 3),
            "idle_fraction": round(sum(t["idle_fraction"] for t in mine) / len(mine), 3),
            "verifier_compiles": sum(t["verifier_compiles"]["compiled"] for t in mine),
        }
    base = summary[str(counts[0])]["candidates_per_gpu_minute"]
    for numbers in summary.values():
        numbers["vs_first"] = round(numbers["candidates_per_gpu_minute"] / base, 3) if base else None
    task = tasks.load(ROOT / TASK)
    result = {"benchmark": "pipeline", "environment": environment(), "task": TASK,
              "shapes": list(task.shapes), "dtype": args.dtype, "budget_s": args.budget,
              "seed": args.seed, "gpus_used": 1, "runs": runs, "summary": summary,
              "note": "baselines (eager, torch.compile) per shape are in each run's best.shapes"}
    target = Path(args.out) / f"pipeline-{device_label()}.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(result, indent=2) + "\n")
    for run in runs:
        tp, prep = run["throughput"], run["throughput"]["prepare"]
        print(f"prepare workers {run['prepare_workers']}: {tp['verified']} verified in "
              f"{tp['wall_s']:.0f} s = {tp['candidates_per_gpu_minute']:.1f} per GPU-minute, GPU "
              f"idle {tp['idle_fraction']:.0%}, verifier compiled "
              f"{tp['verifier_compiles']['compiled']} kernel(s) "
              f"({tp['verifier_compiles']['compile_s']:.1f} s); prepared {prep['prepared']}, "
              f"bypassed {prep.get('bypassed', 0)}, slot waits {prep['gpu_slot_waits']} "
              f"({prep['gpu_slot_wait_s']:.1f} s)")
    print(json.dumps(summary))
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
