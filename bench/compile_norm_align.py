"""The norm and softmax templates' kernels for a row width that breaks 16-byte alignment, compiled
for sm_90.

A 4097-wide float32 row starts 4 bytes past a 16-byte boundary for 3 rows in 4. This renders
residual add + RMSNorm and softmax (their tasks' contexts) three ways each, runs each launcher on
CPU tensors of 4 rows of 4097 with its launches recorded, and compiles the launched kernels with
Triton's compiler and ptxas (no GPU): `plain` (neither knob: the one-pass tile), `align_rows` (the
tile starts at the aligned address below each row and masks its lanes by the row's shift) and
`align_edges` (each row's aligned body, its bound a multiple of the vector, and the edges apart),
and `body_tile` (align_edges with the tile as wide as the body, 4096, not the row, 8192); for
the norms also `edges_persist` (body_tile on a persistent grid whose programs' rows share one
shift, the affine vectors read once a program), `affine_table` (body_tile reading the affine
vectors from per-head tables, 16 bytes at a time; `_64`, `_80`: its registers capped by
`edges_maxnreg`) and `body_tile_80` (body_tile capped at 80 registers). Prints each kernel's
registers and global loads and stores by vector width. Counts, not timings:
bench/probe_norm_align.py times the norm's on the GPU (round 355), bench/tune_buckets.py the
variants.

    python bench/compile_norm_align.py [--dtype float32] [--ops add_rms_norm,softmax] [--json OUT]
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
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
from agent.plan import plan  # noqa: E402
from compile_pointwise import _import, compile_launches, record_launches  # noqa: E402

WIDTH = 4097
OPS = ("add_rms_norm", "softmax")
VARIANTS = {"plain": {}, "align_rows": {"align_rows": True}, "align_edges": {"align_edges": True},
            "body_tile": {"align_edges": True, "body_tile": True},
            "edges_persist": {"align_edges": True, "body_tile": True, "edges_persist": True,
                              "programs_per_sm": 8},
            # its row loop unpipelined (the others pipeline it 2 deep, the template's default:
            # the body's loads become asynchronous copies into shared memory)
            "edges_persist_1stage": {"align_edges": True, "body_tile": True,
                                     "edges_persist": True, "programs_per_sm": 8,
                                     "num_stages": 1},
            # body_tile with the affine values from per-head tables (16-byte loads)
            "affine_table": {"align_edges": True, "body_tile": True, "affine_table": True},
            # and its registers capped, for more programs an SM
            "affine_table_80": {"align_edges": True, "body_tile": True, "affine_table": True,
                                "edges_maxnreg": 80},
            "affine_table_64": {"align_edges": True, "body_tile": True, "affine_table": True,
                                "edges_maxnreg": 64},
            "body_tile_80": {"align_edges": True, "body_tile": True, "edges_maxnreg": 80}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dtype", default="float32", choices=("float32", "bfloat16", "float16"),
                        help="the rows' dtype (default float32)")
    parser.add_argument("--ops", default=",".join(OPS),
                        help="comma-separated, of add_rms_norm, rms_norm, layer_norm, softmax "
                             "(default %(default)s)")
    parser.add_argument("--json", type=Path, help="also write the rows to this JSON")
    args = parser.parse_args()
    ops = [op for op in args.ops.split(",") if op]
    unknown = sorted(set(ops) - {"add_rms_norm", "rms_norm", "layer_norm", "softmax"})
    if unknown:
        parser.error(f"unknown ops {unknown}: choose from add_rms_norm, rms_norm, layer_norm, "
                     "softmax")
    dtype = getattr(torch, args.dtype)
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for op in ops:
            found = plan(tasks.load(ROOT / "tasks" / f"{op}.py"))
            template = found.template_object()
            for variant, knobs in VARIANTS.items():
                if any(not hasattr(template.default, knob) for knob in knobs):
                    continue  # a knob this template lacks (softmax: the norms' affine ones)
                cfg = dataclasses.replace(template.default, single_pass_max=8192,
                                          tile_elems=8192, elems_per_thread=32, **knobs)
                module = _import(template.render(cfg, **found.context), Path(workdir),
                                 f"{op}_{variant}")
                launched = record_launches(module, 132)
                x = torch.randn(4, WIDTH, dtype=dtype)
                w = torch.randn(WIDTH, dtype=dtype)
                if op == "add_rms_norm":
                    module.launch_add_rms_norm(x, x, w)
                elif op == "rms_norm":
                    module.launch_rms_norm(x, (WIDTH,), w)
                elif op == "layer_norm":
                    module.launch_layer_norm(x, (WIDTH,), w, torch.randn(WIDTH, dtype=dtype))
                else:
                    module.launch_softmax(x, -1)
                for c in compile_launches(launched):
                    row = {"op": op, "variant": variant, "kernel": c["kernel"],
                           "num_warps": c["num_warps"], "registers": c["registers"],
                           "stack": c["stack"], "loads": c["loads"], "stores": c["stores"],
                           "async_copies": c["async_copies"],
                           "dynamic_shared": c["dynamic_shared"],
                           "sass_instructions": c["sass"]["instructions"]}
                    print(json.dumps(row), flush=True)
                    rows.append(row)
    if args.json:
        environment = {"target": "sm_90 (compiled here, no GPU)", "triton": triton.__version__,
                       "torch": torch.__version__, "python": platform.python_version(),
                       "date": datetime.datetime.now(datetime.timezone.utc).isoformat()}
        args.json.write_text(json.dumps({"benchmark": "compile-norm-align", "ops": ops,
                                         "dtype": args.dtype, "width": WIDTH,
                                         "environment": environment, "rows": rows},
                                        indent=1) + "\n")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
