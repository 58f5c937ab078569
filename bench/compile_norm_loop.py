"""The norm template's looped kernel compiled for sm_90, the row width a runtime value or a constant.

`loop_const_cols` passes a width that is a whole number of the loop's blocks as a compile-time
constant, so the loops unroll and their masks fold away, as in round 341's probe kernel
(bench/probe_norm_variants.py) that ran RMSNorm 16384x8192 bfloat16 at torch.compile's time. This
compiles the looped kernel of RMSNorm, LayerNorm and residual add + RMSNorm at an 8192-wide
bfloat16 row (16 warps over 4096-element blocks, the weight hinted) with the knob off and on, with
Triton's compiler and ptxas (no GPU), and prints registers, SASS instructions and global
accesses. Counts, not timings: the GPU decides (bench/gpu_round342.sh).

    python bench/compile_norm_loop.py [--out bench/results/compile-norm-loop-sm90-bf16.json]
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

WIDTH = 8192


def rows_for(name: str, workdir: Path) -> list[dict]:
    found = plan(tasks.load(ROOT / "tasks" / f"{name}.py"))
    norm = found.template_object()
    rows = []
    for const in (False, True):
        cfg = dataclasses.replace(norm.default, loop_full_from=WIDTH, loop_block=4096,
                                  loop_warps=16, num_stages=1, hint_affine=True,
                                  loop_const_cols=const)
        module = _import(norm.render(cfg, **found.context), workdir, f"{name}_{int(const)}")
        launched = record_launches(module, 132)
        x = torch.randn(4, WIDTH, dtype=torch.bfloat16)
        w = torch.randn(WIDTH, dtype=torch.bfloat16)
        if name == "layer_norm":
            module.launch_layer_norm(x, (WIDTH,), w, w)
        elif name == "add_rms_norm":
            module.launch_add_rms_norm(x, x, w)
        else:
            module.launch_rms_norm(x, (WIDTH,), w)
        for c in compile_launches(launched):
            rows.append({"op": name, "loop_const_cols": const, "kernel": c["kernel"],
                         "const_cols": c["constexprs"].get("CONST_COLS"),
                         "num_warps": c["num_warps"], "registers": c["registers"],
                         "stack": c["stack"], "sass_instructions": c["sass"]["instructions"],
                         "loads": c["loads"], "stores": c["stores"]})
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="also write the rows to this JSON")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for name in ("rms_norm", "layer_norm", "add_rms_norm"):
            for row in rows_for(name, Path(workdir)):
                print(json.dumps(row), flush=True)
                rows.append(row)
    if args.out:
        environment = {"target": "sm_90 (compiled here, no GPU)", "triton": triton.__version__,
                       "torch": torch.__version__, "python": platform.python_version(),
                       "date": datetime.datetime.now(datetime.timezone.utc).isoformat()}
        args.out.write_text(json.dumps({"benchmark": "compile-norm-loop", "dtype": "bfloat16",
                                        "width": WIDTH, "environment": environment,
                                        "rows": rows}, indent=1) + "\n")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
