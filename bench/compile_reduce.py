"""Compile the reduce template's kernels for sm_90 as an H100 launch would take them: no GPU needed.

For each op, shape and config (the default, the default with `packed_keys`, and for argmax the
default with `max_then_index`; `--params` starts from other params than the default's, a served
config's say, and `--const-cols` adds the config with `const_cols`), the launcher runs on
CPU tensors with its launches recorded (an H100's 132 SMs assumed), and each launched kernel is
compiled by Triton's compiler and ptxas (`compile_pointwise.compile_launches`). Prints a table of
SASS instructions, warp shuffles, barriers, global loads (in all and masked) and registers per
kernel, and with `--json OUT` writes the rows. A count of instructions, not a timing: what the
GPU makes of it is measured by `bench/vector_rows.py --packed-keys` on the GPU machine (and, for
`const_cols`, by `bench/tune_buckets.py --knobs const_cols`).

    python bench/compile_reduce.py [--ops argmax,amax,amin] [--dtype bfloat16] [--json OUT]
        [--shapes rows_4096x4097] [--params '{"align_rows": false, ...}'] [--const-cols]
"""

from __future__ import annotations

import argparse
import dataclasses
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

from compile_pointwise import compile_launches, record_launches  # noqa: E402
from templates import get_template  # noqa: E402
from templates.base import InvalidConfig, params_of  # noqa: E402

H100_SMS = 132
# (name, shape, dim): rows of 1000 (reduction-bound: the argmax behind torch.compile), 8192-wide
# rows (one tile per row) and a reduction over the middle dim (the column kernel)
SHAPES = [("rows_4099x1000", (4099, 1000), 1), ("rows_4096x8192", (4096, 8192), 1),
          ("columns_32x1000x1024", (32, 1000, 1024), 1), ("rows_4096x4097", (4096, 4097), 1)]


def _launches(source: str, workdir: Path, tag: str, shape, dim: int, op: str,
              dtype: torch.dtype = torch.bfloat16) -> list:
    path = workdir / f"{tag}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(tag, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[tag] = module
    spec.loader.exec_module(module)
    launched = record_launches(module, H100_SMS)
    x = torch.zeros(shape, dtype=dtype)
    getattr(module, f"launch_{op}")(x, dim)
    return launched


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ops", default="argmax,amax,amin", help="comma-separated reduce ops")
    parser.add_argument("--dtype", default="bfloat16", choices=("bfloat16", "float16", "float32"))
    parser.add_argument("--json", type=Path, help="write the rows here")
    parser.add_argument("--shapes", default=",".join(name for name, _, _ in SHAPES),
                        help="comma-separated, from " + ",".join(name for name, _, _ in SHAPES))
    parser.add_argument("--params", default="{}",
                        help="JSON params over the template's default (a served config's, say)")
    parser.add_argument("--const-cols", action="store_true",
                        help="also compile each config with const_cols (the width a constant)")
    args = parser.parse_args()
    template = get_template("reduce")
    shapes = [row for row in SHAPES if row[0] in args.shapes.split(",")]
    if len(shapes) != len([n for n in args.shapes.split(",") if n]):
        parser.error(f"unknown shapes in {args.shapes!r}; choose from "
                     + ",".join(name for name, _, _ in SHAPES))
    try:
        base = template.config({**dataclasses.asdict(template.default), **json.loads(args.params)})
    except (InvalidConfig, ValueError, TypeError) as exc:
        parser.error(f"--params: {exc}")
    ops = [o for o in args.ops.split(",") if o]
    unknown = [o for o in ops if o not in ("sum", "mean", "amax", "amin", "argmax")]
    if unknown:
        parser.error(f"unknown ops {unknown}; choose from sum, mean, amax, amin, argmax")
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for op in ops:
            variants = [("plain", {}), ("packed_keys", {"packed_keys": True})]
            if op == "argmax":
                variants.append(("max_then_index", {"max_then_index": True}))
            if args.const_cols:
                variants.append(("const_cols", {"const_cols": True}))
            for name, shape, dim in shapes:
                for variant, knobs in variants:
                    cfg = dataclasses.replace(base, **knobs)
                    if template.violations(cfg):
                        continue
                    source = template.render(cfg, op=op, dim=dim, rank=len(shape), params=[])
                    tag = f"reduce_{op}_{name}_{variant}"
                    for c in compile_launches(_launches(source, Path(workdir), tag, shape, dim,
                                                        op, getattr(torch, args.dtype))):
                        row = {"op": op, "shape": name, "variant": variant,
                               "packed_keys": cfg.packed_keys, "kernel": c["kernel"],
                               "num_warps": c["num_warps"], "registers": c["registers"],
                               "stack": c["stack"], **c["sass"]}
                        rows.append(row)
                        print(f"{op:7} {name:22} {variant:14} {c['kernel']:18} "
                              f"warps={c['num_warps']:2} regs={c['registers']:3} "
                              f"sass={c['sass']['instructions']:5} "
                              f"shfl={c['sass']['shuffles']:3} bar={c['sass']['barriers']:2} "
                              f"ldg={c['sass']['global_loads']:3} "
                              f"masked={c['sass']['guarded_global_loads']:3}", flush=True)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({
            "what": "reduce kernels compiled for sm_90 offline (no GPU): SASS counts per kernel",
            "environment": {"host": platform.node(), "python": platform.python_version(),
                            "torch": torch.__version__, "triton": triton.__version__,
                            "target": "sm_90 (ptxas shipped with Triton)",
                            "sms_assumed": H100_SMS},
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "dtype": args.dtype, "params": params_of(base), "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
