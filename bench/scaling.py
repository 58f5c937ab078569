"""Candidates verified per minute with one GPU and with two, the same `kzoo optimize` on the same
machine: bench/results/scaling-<device>x<gpus>.json.

Each run uses a fresh study and user zoo (so neither reuses the other's trials) and the same time
budget; the throughput counts from the verifier pool's start, so the workers' start-up (torch.compile
baselines included) is in both.

    python bench/scaling.py [--budget 100] [--workers 1,2]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=float, default=100.0, help="seconds of search per run")
    parser.add_argument("--workers", default="1,2", help="worker counts to compare")
    parser.add_argument("--dtype", default="bfloat16")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = parser.parse_args()

    import torch

    from verifier.environment import device_label, environment

    runs = []
    for workers in [int(w) for w in args.workers.split(",")]:
        home = tempfile.mkdtemp(prefix=f"kzoo-scale-{workers}-")
        out = Path(home) / "out.json"
        cmd = [sys.executable, "-m", "agent", "optimize", "tasks/softmax.py", "--dtype", args.dtype,
               "--trials", "1000", "--time-budget", str(args.budget), "--workers", str(workers),
               "--no-promote", "--seed", "0", "--json", str(out)]
        proc = subprocess.run(cmd, cwd=ROOT, env=dict(os.environ, KZOO_HOME=home),
                              capture_output=True, text=True)
        print(proc.stdout[-600:], proc.stderr[-600:], sep="\n", flush=True)
        payload = json.loads(out.read_text())
        runs.append({"workers": workers, "throughput": payload["throughput"],
                     "trials": payload["trials"], "best": payload["best"]})
    base = runs[0]["throughput"]["candidates_per_minute"]
    for run in runs:
        run["speedup_vs_first"] = run["throughput"]["candidates_per_minute"] / base
    result = {"benchmark": "scaling", "environment": environment(),
              "gpus": torch.cuda.device_count(), "dtype": args.dtype, "budget_s": args.budget,
              "task": "tasks/softmax.py", "runs": runs}
    target = Path(args.out) / f"scaling-{device_label()}x{torch.cuda.device_count()}.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(result, indent=2) + "\n")
    for run in runs:
        tp = run["throughput"]
        print(f"{run['workers']} worker(s): {tp['verified']} verified in {tp['wall_s']:.0f} s = "
              f"{tp['candidates_per_minute']:.1f}/min ({run['speedup_vs_first']:.2f}x), idle "
              f"{tp['idle_fraction']:.0%}, GPUs {[w['gpu_ids'] for w in tp['workers']]}")
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
