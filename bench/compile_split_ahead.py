"""Compile the softmax template's split-row kernel a row ahead and two rows ahead (`ahead_depth`)
for sm_90 with Triton's own compiler and ptxas, no GPU needed, and read registers and spills.

Round 373 timed `ahead_depth` 2 on an H200 and it lost (float32 256x128256: 93.3 us at best
against the served one-ahead kernel's 81.7). This shows the likely why without a GPU: the third
slice in registers lifts a thread from ~128 registers to ~165, so two programs no longer share an
SM, and the bytes in flight per SM (bounded by the register file, where a load lands) do not
grow. Writes bench/results/runs/compile-split-ahead-sm90.json (the compiling Triton and ptxas
are this machine's, which may differ from the GPU machine's: read the counts as indicative).

`--lag-hold` compiles the `row_lag` kernel instead, at the served geometries (32 programs a row,
16 or 32 elements a thread), with `lag_hold` 0-4 quarters held and `lag_hold_exp` off and on, and
adds the SASS's barriers and global loads and stores: round 459's first `lag_hold` took four
reductions a quarter, 16 barriers a step where the whole-slice kernel has 4, and lost by 20-25 us
on an H200 (bench/results/runs/tune-buckets-h200-round459-barriers/); this shows the form that
replaced it has the whole-slice kernel's 4. Writes compile-split-lag-hold-sm90.json there.

    python bench/compile_split_ahead.py [--out FILE] [--lag-hold]
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
from templates import get_template  # noqa: E402

COLS = 128256  # the float32 row that reads 0.75-0.79 of copy on an H200
DEFAULT_OUT = str(ROOT / "bench" / "results" / "runs" / "compile-split-ahead-sm90.json")
TYPES = dict(x_ptr="*fp32", y_ptr="*fp32", slot_ptr="*i64", n_rows="i32", n_cols_u="i32",
             x_stride_u="i32", y_stride_u="i32", slice_u="i32")


def lag_hold(out: str) -> None:
    """The row_lag kernel at 32 programs a row with lag_hold 0-4 and lag_hold_exp off and on,
    softmax and log-softmax (which ignores lag_hold_exp), compiled for sm_90."""
    template = get_template("softmax")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for op in ("softmax", "log_softmax"):
            for per_thread in (16, 32):
                for hold in range(5):
                    for hold_exp in ((False, True) if hold and op == "softmax" else (False,)):
                        cfg = dataclasses.replace(template.default, row_split=32, row_ahead=True,
                                                  row_lag=True, elems_per_thread=per_thread,
                                                  lag_hold=hold, lag_hold_exp=hold_exp)
                        source = template.render(cfg, op=op, log=op == "log_softmax", dim=1,
                                                 params=[])
                        module = _import(source, Path(tmp),
                                         f"lag_{op}_{per_thread}_{hold}_{int(hold_exp)}")
                        block = 1 << (-(-COLS // 32) - 1).bit_length()
                        warps = max(1, min(block // (32 * per_thread), 32))
                        options = type("Options", (), dict(num_warps=warps, num_stages=1))
                        found = compile_kernel(
                            module._softmax_split_ahead_kernel, TYPES,
                            dict(SPLIT=32, BLOCK=block, UNIT=4, SYNC=True, PHASE=0),
                            ["x_ptr", "y_ptr", "slot_ptr"], options)
                        row = dict(op=op, elems_per_thread=per_thread, num_warps=warps,
                                   lag_hold=hold, lag_hold_exp=hold_exp,
                                   registers=found["registers"], stack=found["stack"],
                                   programs_per_sm=programs_per_sm(found["registers"], warps),
                                   barriers=found["sass"]["barriers"],
                                   global_loads=found["sass"]["global_loads"],
                                   loads=found["loads"], stores=found["stores"])
                        rows.append(row)
                        print(json.dumps(row), flush=True)
    write_compiled(out, "the softmax row_lag kernel (float32, rows of 128256, 32 programs a row) "
                   "compiled for sm_90 with lag_hold quarters held and lag_hold_exp: registers, "
                   "spill stack, programs per SM by registers, SASS barriers and global loads, "
                   "PTX loads and stores by width", rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=DEFAULT_OUT)
    parser.add_argument("--lag-hold", action="store_true",
                        help="the row_lag kernel with lag_hold 0-4 and lag_hold_exp off and on")
    args = parser.parse_args()
    if args.lag_hold:
        lag_hold(args.out if args.out != DEFAULT_OUT else
                 str(Path(DEFAULT_OUT).with_name("compile-split-lag-hold-sm90.json")))
        return
    template = get_template("softmax")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for depth in (1, 2):
            for split, per_thread in ((8, 32), (16, 16), (16, 32), (32, 32)):
                cfg = dataclasses.replace(template.default, row_split=split, row_ahead=True,
                                          elems_per_thread=per_thread, ahead_depth=depth)
                source = template.render(cfg, op="softmax", log=False, dim=1, params=[])
                module = _import(source, Path(tmp), f"split_{depth}_{split}_{per_thread}")
                slice_len = -(-COLS // split)
                block = 1 << (slice_len - 1).bit_length()
                warps = max(1, min(block // (32 * per_thread), 32))  # as _split_rows picks
                types = TYPES
                constexprs = dict(SPLIT=split, BLOCK=block, UNIT=4, SYNC=True, PHASE=0)
                options = type("Options", (), dict(num_warps=warps, num_stages=1))
                found = compile_kernel(module._softmax_split_ahead_kernel, types, constexprs,
                                       ["x_ptr", "y_ptr", "slot_ptr"], options)
                row = dict(ahead_depth=depth, row_split=split, elems_per_thread=per_thread,
                           block=block, num_warps=warps, registers=found["registers"],
                           stack=found["stack"],
                           programs_per_sm=programs_per_sm(found["registers"], warps),
                           slice_kib=round(slice_len * 4 / 1024, 1))
                rows.append(row)
                print(json.dumps(row), flush=True)
    write_compiled(args.out, "the softmax split-row kernel (float32, rows of 128256) compiled "
                   "for sm_90 a row ahead and two rows ahead: registers a thread, spill stack, "
                   "programs per SM by registers", rows)


if __name__ == "__main__":
    main()
