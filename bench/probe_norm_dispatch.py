"""Probe: one norm's zoo kernel timed through `kernel_zoo.ops`, its launcher and its ModelNew,
before and after torch.compile has run in the process, beside eager PyTorch (verifier timer).

Written to find why bench/memory_bound.py timed rms_norm 8192x4096 slower than the verifier did.
Prints each measurement and writes OUT/probe-norm-dispatch-<device>.json (environment, shapes,
host microseconds per call, verifier-timer medians with eager and torch.compile beside them).

    python bench/probe_norm_dispatch.py [OUT]   (OUT defaults to bench/results/runs)
"""
import json
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import tasks  # noqa: E402
from agent.plan import plan  # noqa: E402
from kernel_zoo import buckets, ops, store  # noqa: E402
from verifier.core import load_candidate  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, bench  # noqa: E402

CASES = [("rms_norm", {"tokens": 8192, "hidden": 4096}),
         ("rms_norm", {"tokens": 4096, "hidden": 4097}),
         ("add_rms_norm", {"tokens": 4096, "hidden": 4097})]


def main() -> None:
    out_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "bench" / "results" / "runs"
    flusher = L2Flusher(torch.device("cuda"))
    rows = []
    for op, shape in CASES:
        task = tasks.load(ROOT / "tasks" / f"{op}.py")
        found = plan(task)
        task.apply_shape(shape)
        torch.manual_seed(0)
        with torch.device("cuda"):
            model, inputs = task.make_model(), task.make_inputs()
        model = model.to("cuda", torch.bfloat16).eval()
        inputs = [t.to("cuda", torch.bfloat16) for t in inputs]
        bucket = buckets.bucket_of(op, tuple(inputs[0].shape))
        found_config = store.find_config(op, "sm_90", "bfloat16", bucket=bucket)
        if found_config is None:
            print(f"{op} {shape} [{bucket}]: no zoo config (the reference runs); skipped")
            rows.append({"op": op, "shape": shape, "bucket": bucket, "skipped": "no zoo config"})
            continue
        manifest, config, entry_dir = found_config
        source = store.read_entry_file(entry_dir, manifest, config["file"]).decode()
        module = load_candidate(source, Path("/tmp/probe"))
        candidate = module.ModelNew(*task.module.get_init_inputs()).cuda()
        candidate.load_state_dict(model.state_dict(), strict=False, assign=True)
        weight, eps, n = model.get_parameter(found.context["weight_path"]), found.context["eps"], \
            inputs[0].shape[-1]
        if op == "rms_norm":
            fns = {"ops": lambda: ops.rms_norm(inputs[0], [n], weight, eps),
                   "launcher": lambda: module.launch_rms_norm(inputs[0], [n], weight, eps)}
        else:
            fns = {"ops": lambda: ops.add_rms_norm(inputs[0], inputs[1], weight, eps),
                   "launcher": lambda: module.launch_add_rms_norm(inputs[0], inputs[1], weight,
                                                                   eps)}
        fns["modelnew"] = lambda: candidate(*inputs)
        fns["eager"] = lambda: model(*inputs)
        row = {"op": op, "shape": shape, "bucket": bucket, "dtype": "bfloat16",
               "params": config["params"], "host_us_per_call": {}, "median_us": {}}
        with torch.no_grad():
            for name, fn in fns.items():
                fn()
                torch.cuda.synchronize()
                started = time.perf_counter()
                for _ in range(200):
                    fn()
                host = (time.perf_counter() - started) / 200 * 1e6
                torch.cuda.synchronize()
                print(f"{op} {shape} {name}: host {host:.1f} us per call")
                row["host_us_per_call"][name] = host
            for when in ("before", "after"):
                if when == "after":
                    torch._dynamo.reset()
                    compiled = torch.compile(model, dynamic=False)
                    compiled(*inputs)
                    fns["compile"] = lambda: compiled(*inputs)
                times = bench(fns, flusher=flusher, budget_ms=400.0, rounds=5)
                print(f"{op} {shape} [{bucket}] {when} torch.compile: "
                      + ", ".join(f"{k} {v.median_ms * 1e3:.1f} us" for k, v in times.items()),
                      flush=True)
                row["median_us"][f"{when}_torch_compile"] = {
                    k: v.median_ms * 1e3 for k, v in times.items()}
        rows.append(row)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"probe-norm-dispatch-{device_label()}.json"
    path.write_text(json.dumps({
        "benchmark": "probe-norm-dispatch", "environment": environment(),
        "method": "host: 200 calls without a flush, perf_counter, then one synchronize; GPU: the "
                  "verifier's timer (L2 flushed, CUDA events, medians), interleaved",
        "rows": rows}, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
