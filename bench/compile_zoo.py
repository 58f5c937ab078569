"""What the zoo's kernels compile to for sm_90, at every GPU shape of their tasks: no GPU needed.

For each memory-bound task, each of its GPU shapes is dispatched as `kernel_zoo.ops` would (the
newest entry's config for the shape's bucket), the served kernel file runs on CPU tensors with its
launches recorded (an H100's 132 SMs assumed), and every launched kernel is compiled by Triton's
compiler and ptxas (`compile_pointwise.compile_launches`). Each row: registers, spills, global
loads and stores by vector width, 2-byte accesses, async copies. A kernel with 2-byte global
accesses beyond a few gathers, or with spills, is flagged: the shipped softmax 1.4.0 at 1000 wide (rendered before `_unit`) and
cross_entropy 1.1.0 at a 50257 vocabulary (`align_rows` off) were found this way. Static counts
of the code, not of what runs: the flat pointwise kernel at an odd element count is flagged for
its masked tail tile, which one program runs once. Counts, not timings: `bench/memory_bound.py` times on the GPU. A new Triton that loses a vectorization shows
here before any GPU run.

    python bench/compile_zoo.py [--tasks softmax,cross_entropy] [--json OUT]
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import platform
import sys
import tempfile
from pathlib import Path

os.environ.pop("TRITON_INTERPRET", None)  # before triton is imported: real JITFunctions

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import torch  # noqa: E402
import triton  # noqa: E402

import tasks  # noqa: E402
from compile_pointwise import compile_launches, record_launches  # noqa: E402
from kernel_zoo import buckets, store  # noqa: E402

H100_SMS = 132
SCALAR_LIMIT = 4  # 2-byte global accesses a kernel may have before it is flagged
ARCH, DTYPE = "sm_90", "bfloat16"
TASKS = ("rms_norm", "layer_norm", "add_rms_norm", "softmax", "log_softmax", "softmax_dim1",
         "log_softmax_dim1", "sum", "mean", "amax", "amin", "argmax", "cross_entropy", "geglu",
         "swiglu")


def _dim_of(task, shape: dict, init: list) -> int | None:
    """The reduced dim of a dim op's call at this shape, as kernel_zoo.ops would be called."""
    if task.op not in buckets.DIM_OPS:
        return None
    if "reduce_dim" in shape:
        return shape["reduce_dim"]
    return int(init[0]) if init else -1


def rows_for(name: str, workdir: Path) -> list[dict]:
    task = tasks.load(ROOT / "tasks" / f"{name}.py")
    rows = []
    for n, shape in enumerate(task.shapes):
        task.apply_shape(shape)
        torch.manual_seed(0)
        init = task.module.get_init_inputs()
        inputs = [x.to(torch.bfloat16) if isinstance(x, torch.Tensor) and x.is_floating_point()
                  else x for x in task.module.get_inputs()]
        bucket = buckets.bucket_of(task.op, tuple(inputs[0].shape), _dim_of(task, shape, init))
        found = store.find_config(task.op, ARCH, DTYPE, bucket=bucket)
        row = {"task": name, "op": task.op, "shape": shape, "bucket": bucket}
        if found is None:
            rows.append({**row, "served": None, "note": "no zoo config: the reference serves it"})
            continue
        manifest, config, entry_dir = found
        row["served"] = {"version": manifest["version"], "bucket": config["shape_bucket"],
                         "file": config["file"]}
        source = store.read_entry_file(entry_dir, manifest, config["file"]).decode()
        path = workdir / f"{name}_{n}.py"
        path.write_text(source)
        spec = importlib.util.spec_from_file_location(f"zoo_{name}_{n}", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        launched = record_launches(module, H100_SMS)
        reference = task.module.Model(*init).to(torch.bfloat16)
        model = module.ModelNew(*init)
        model.load_state_dict(reference.state_dict(), strict=False, assign=True)
        try:
            with torch.no_grad():
                model(*inputs)
        except Exception:  # noqa: BLE001 - outputs were never computed; the launches are recorded
            pass
        if not launched:
            rows.append({**row, "note": "no Triton launch recorded"})
            continue
        for c in compile_launches(launched):
            # a lone 2-byte access is a gather (a target logit) or a 0-d result; more is a tile
            # whose vector accesses went scalar
            flagged = bool(c["loads_16bit_count"] + c["stores_16bit_count"] > SCALAR_LIMIT
                           or c["stack"])
            rows.append({**row, "kernel": c["kernel"], "num_warps": c["num_warps"],
                         "constexprs": {k: v for k, v in c["constexprs"].items()
                                        if isinstance(v, (bool, int, float, str))},
                         "registers": c["registers"], "stack": c["stack"], "loads": c["loads"],
                         "stores": c["stores"], "loads_16bit": c["loads_16bit_count"],
                         "stores_16bit": c["stores_16bit_count"],
                         "async_copies": c["async_copies"], "flagged": flagged})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", default=",".join(TASKS), help="comma-separated task names")
    parser.add_argument("--json", type=Path, help="write the rows here")
    args = parser.parse_args()
    names = [n for n in args.tasks.split(",") if n]
    unknown = [n for n in names if not (ROOT / "tasks" / f"{n}.py").is_file()]
    if unknown:
        parser.error(f"no task file for {unknown}; choose from {', '.join(TASKS)}")
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for name in names:
            for row in rows_for(name, Path(workdir)):
                rows.append(row)
                served = row.get("served") or {}
                where = f"{name:16} {str(row['shape']):58} {served.get('version', '-'):6} " \
                        f"{served.get('bucket', '-'):14}"
                if "kernel" not in row:
                    print(f"{where} {row['note']}", flush=True)
                    continue
                print(f"{where} {row['kernel']:30} regs={row['registers']:3} "
                      f"stack={row['stack']} loads={row['loads']} stores={row['stores']} "
                      f"2-byte={row['loads_16bit']}/{row['stores_16bit']} "
                      f"async={row['async_copies']}" + ("  <-- flagged" if row["flagged"] else ""),
                      flush=True)
    flagged = [r for r in rows if r.get("flagged")]
    print(f"{len(flagged)} of {sum('kernel' in r for r in rows)} kernels flagged (more than "
          f"{SCALAR_LIMIT} 2-byte global accesses, or spills)")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({
            "what": "zoo kernels compiled for sm_90 offline at their tasks' GPU shapes (no GPU)",
            "environment": {"host": platform.node(), "python": platform.python_version(),
                            "torch": torch.__version__, "triton": triton.__version__,
                            "target": "sm_90 (ptxas shipped with Triton)",
                            "sms_assumed": H100_SMS},
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "dtype": DTYPE, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
