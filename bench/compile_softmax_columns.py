"""Compile the softmax template's one-pass column kernel (softmax and log-softmax over dim 1)
for sm_90 with Triton's own compiler and ptxas, no GPU needed, and read registers and spills.

At 32x1000x1024 over dim 1 the float32 rows read 0.84 of copy on an H200 and the 16-bit rows
0.52-0.55 (GPU rounds 403-405), with one kernel: a program holds 1024 rows of 16 adjacent
columns, converted to float32. The guess: a thread's registers bound the bytes an SM has in
flight, and a 16-bit value takes a float32 register here, so the 16-bit rows have half the
bytes in flight. This compiles the kernel for float32 and bfloat16 pointers at 16 and 32
columns, 16 and 32 warps, with and without the 64-register cap the served configs set, as the
template renders it ("as_rendered") and rewritten to keep the loaded tile in the input's dtype,
converting it at each use ("convert_at_use"), and, for bfloat16, holding adjacent columns in
pairs as 32-bit words unpacked at each use ("bf16_pairs"): rewrites here, not template knobs.
Writes bench/results/runs/compile-softmax-columns-sm90.json (the compiling Triton and ptxas are
this machine's, which may differ from the GPU machine's: read the counts as indicative).

    python bench/compile_softmax_columns.py [--out FILE]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import tempfile
from pathlib import Path

os.environ.pop("TRITON_INTERPRET", None)  # before triton is imported: real JITFunctions

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from compile_pointwise import (  # noqa: E402
    _import, compile_kernel, programs_per_sm, write_compiled)
from softmax_columns_rewrites import bf16_pairs, convert_at_use  # noqa: E402
from templates import get_template  # noqa: E402

BLOCK_R = 1024  # 1000 channels reduced, as at 32x1000x1024
LAUNCHES = ((16, 16, 64), (16, 16, 0), (32, 16, 0), (32, 16, 64), (32, 32, 64))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "runs"
                                             / "compile-softmax-columns-sm90.json"))
    args = parser.parse_args()
    template = get_template("softmax")
    cfg = dataclasses.replace(template.default, tile_elems=16384)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for op, log in (("softmax", False), ("log_softmax", True)):
            rendered = template.render(cfg, op=op, log=log, dim=1, params=[])
            for form, source in (("as_rendered", rendered),
                                 ("convert_at_use", convert_at_use(rendered, log)),
                                 ("bf16_pairs", bf16_pairs(rendered, log))):
                module = _import(source, Path(tmp), f"{op}_{form}")
                for pointer in ("*fp32", "*bf16"):
                    if form == "bf16_pairs" and pointer != "*bf16":
                        continue
                    for block_i, warps, cap in LAUNCHES:
                        options = type("Options", (), dict(num_warps=warps, num_stages=3,
                                                           maxnreg=cap or None))
                        found = compile_kernel(
                            module._softmax_columns_kernel,
                            dict(x_ptr=pointer, y_ptr=pointer, n_red="i32", n_inner="i32"),
                            dict(BLOCK_R=BLOCK_R, BLOCK_I=block_i, ONE_PASS=True),
                            ["x_ptr", "y_ptr", "n_inner"], options)
                        itemsize = 4 if pointer == "*fp32" else 2
                        row = dict(op=op, form=form, dtype=pointer[1:], block_i=block_i,
                                   num_warps=warps, maxnreg=cap, registers=found["registers"],
                                   stack=found["stack"], loads=found["loads"],
                                   programs_per_sm=programs_per_sm(found["registers"], warps),
                                   tile_kib=BLOCK_R * block_i * itemsize // 1024)
                        row["kib_in_flight_per_sm"] = row["programs_per_sm"] * row["tile_kib"]
                        rows.append(row)
                        print(json.dumps(row), flush=True)
    write_compiled(args.out, "the softmax template's one-pass column kernel (dim 1, 1024 rows a "
                   "tile) compiled for sm_90: registers a thread, spill stack, programs per SM "
                   "by registers, and the tile bytes those programs hold", rows)


if __name__ == "__main__":
    main()
