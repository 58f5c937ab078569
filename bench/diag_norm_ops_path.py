"""Diagnostic (GPU round 360): layer_norm 1.18.0's stored bfloat16 kernel at 4096x4097 read 47 us
in bench/memory_bound.py's table but 68 us in bench/tune_buckets.py and bench/probe_norm_paths.py.
Times it through kernel_zoo.ops alone, then beside eager and torch.compile as the table does,
as CUDA-graph replays with the verifier's timer. Run with layer_norm's newer entries moved away.
Writes diag-norm-ops-path-<device>.json into the folder given (bench/results/runs by default).

    python bench/diag_norm_ops_path.py [OUT_DIR]
"""
import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import tasks  # noqa: E402
from kernel_zoo import ops  # noqa: E402
from memory_bound import task_case  # noqa: E402
from probe_inductor_glu import launch_dims  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, bench, graphed  # noqa: E402

if not torch.cuda.is_available():
    sys.exit("bench/diag_norm_ops_path.py needs a CUDA GPU: it measures time")
task = tasks.load(Path(__file__).resolve().parents[1] / "tasks" / "layer_norm.py")
model, (x,) = task_case(task, {"tokens": 4096, "hidden": 4097}, torch.bfloat16,
                        torch.device("cuda"))
w, b = model.norm.weight, model.norm.bias
record = {"benchmark": "diag-norm-ops-path", "environment": environment(),
          "shape": [4096, 4097], "dtype": "bfloat16", "method": "CUDA-graph replays timed by "
          "verifier.timing.bench (L2 discarded before each call, medians, interleaved)"}
flusher = L2Flusher(torch.device("cuda"))
with torch.no_grad():
    compiled = torch.compile(model, dynamic=False)
    zoo = lambda: ops.layer_norm(x, [4097], w, b, 1e-5)  # noqa: E731
    record["zoo_launches"] = launch_dims(zoo)
    print("zoo", record["zoo_launches"])
    for label, fns in (("alone", {"zoo": zoo, "zoo_again": zoo}),
                       ("as the table", {"zoo": zoo, "eager": lambda: model(x),
                                         "compile": lambda: compiled(x)})):
        t = bench({k: graphed(v) for k, v in fns.items()}, flusher=flusher, budget_ms=400.0,
                  rounds=5)
        record[label] = {k: v.median_ms * 1e3 for k, v in t.items()}
        print(label, {k: round(v.median_ms * 1e3, 1) for k, v in t.items()}, flush=True)
out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent / "results/runs"
out.mkdir(parents=True, exist_ok=True)
path = out / f"diag-norm-ops-path-{device_label()}.json"
path.write_text(json.dumps(record, indent=1) + "\n")
print(f"wrote {path}")
