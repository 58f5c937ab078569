"""Why does bench/tune_buckets.py time a stored norm kernel slower than bench/memory_bound.py does?
(one GPU run)

GPU round 356's sweeps timed LayerNorm's stored bfloat16 kernel for `cols_le_16384` (layer_norm
1.18.0, an H100 config: a persistent grid of 8 programs per SM) at 67.6 us at 4096x4097, where
the tables of rounds 351-352 had timed the same file, called through `kernel_zoo.ops`, at 47.1.
The sweep promoted an `align_edges` config (57.7 us in both), a loss to users of 10 us. Residual
add + RMSNorm's stored 16-bit kernel read 78.6 in the sweep against the table's 55.1. This probe
times, as CUDA-graph replays with the verifier's timer (L2 discarded before each call,
interleaved), each stored kernel file at 4096x4097 three ways: its launcher called directly (as
`kernel_zoo.ops` does), its ModelNew (as the sweep does: the task's Model's state loaded into
it), and the launcher with the weight and bias the sweep's ModelNew holds; and each launch's grid,
block and registers from a profiler trace.
Writes bench/results/runs/probe-norm-paths-<device>.json.

    python bench/probe_norm_paths.py [OUT_DIR]
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import tasks  # noqa: E402
from kernel_zoo import store  # noqa: E402
from probe_inductor_glu import launch_dims  # noqa: E402
from verifier.core import load_candidate  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, bench, graphed  # noqa: E402

# (task, dtype, [(label, version)]) at 4096x4097
CASES = (
    ("layer_norm", "bfloat16", (("stored-1.18.0", "1.18.0"), ("stored-1.21.0", "1.21.0"))),
    ("add_rms_norm", "bfloat16", (("stored-1.22.0", "1.22.0"), ("stored-1.25.0", "1.25.0"))),
    ("layer_norm", "float32", (("stored-1.18.0", "1.18.0"), ("stored-1.21.0", "1.21.0"))),
)
SHAPE = {"tokens": 4096, "hidden": 4097}


def stored_source(op: str, version: str | None, arch: str, dtype: str, bucket: str,
                  gpu: str) -> tuple[str, str]:
    """(version, source) of the kernel file `op`'s zoo entry `version` (None: the newest that
    serves) serves (arch, dtype, bucket) with on the GPU model `gpu`, its bytes checked against
    the manifest's sha256."""
    if version is None:
        manifest, config, entry_dir = store.find_config(op, arch, dtype, bucket=bucket, device=gpu)
    else:
        entry_dir = ROOT / "kernel_zoo" / "entries" / op / version
        manifest = store.read_manifest(entry_dir)
        config = store.select_config(manifest, arch, dtype, bucket, gpu)
    return manifest["version"], store.read_entry_file(entry_dir, manifest, config["file"]).decode()


def main() -> int:
    if not torch.cuda.is_available():
        print("probe_norm_paths.py: needs a CUDA GPU (run it on the device machine)",
              file=sys.stderr)
        return 2
    device = torch.device("cuda")
    flusher = L2Flusher(device)
    env = environment()
    record = {"benchmark": "probe-norm-paths", "environment": env, "shape": SHAPE,
              "method": "CUDA-graph replays timed by verifier.timing.bench (L2 discarded before "
              "each call, medians, interleaved); launch dims from a profiler trace", "rows": []}
    cache = Path(tempfile.mkdtemp())
    for op, dtype_name, versions in CASES:
        dtype = getattr(torch, dtype_name)
        task = tasks.load(ROOT / "tasks" / f"{op}.py")
        task.apply_shape(SHAPE)
        torch.manual_seed(0)
        with torch.device(device):
            inputs = [v.to(device, dtype) for v in task.make_inputs()]
        init = task.module.get_init_inputs()
        model = task.module.Model(*init).to(device).eval().to(dtype)
        state = model.state_dict()
        fns = {}
        for label, version in versions:
            _, source = stored_source(op, version, env["arch"], dtype_name, "cols_le_16384",
                                      env["gpu"])
            module = load_candidate(source, cache)
            new = module.ModelNew(*init).to(device).to(dtype)
            new.load_state_dict(state, strict=False, assign=True)
            weight, bias = model.norm.weight, getattr(model.norm, "bias", None)
            eps = model.norm.eps
            if op == "layer_norm":
                fns[f"{label}-launcher"] = (lambda m, w, b, e: lambda: m.launch_layer_norm(
                    inputs[0], (SHAPE["hidden"],), w, b, e))(module, weight, bias, eps)
            else:
                fns[f"{label}-launcher"] = (lambda m, w, e: lambda: m.launch_add_rms_norm(
                    inputs[0], inputs[1], w, e))(module, weight, eps or 1e-6)
            fns[f"{label}-modelnew"] = (lambda n: lambda: n(*inputs))(new)
        with torch.no_grad():
            dims = {k: launch_dims(v) for k, v in fns.items()}
            timed = bench({k: graphed(v) for k, v in fns.items()}, flusher=flusher,
                          budget_ms=400.0, rounds=5)
        us = {k: t.median_ms * 1e3 for k, t in timed.items()}
        record["rows"].append({"op": op, "dtype": dtype_name, "us": us, "launches": dims})
        print(f"{op} {dtype_name}: " + ", ".join(f"{k} {v:.1f} us" for k, v in us.items()),
              flush=True)
        for k, launches in dims.items():
            print(f"    {k}: {launches}", flush=True)
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "bench" / "results" / "runs"
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"probe-norm-paths-{device_label()}.json"
    path.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
