"""Does a wider column block lift softmax and log-softmax over dim 1 at 32x1000x1024?

Both read 0.84 of the copy bandwidth on an H200 (the standing after round 399), two of the seven
large rows under issue #3's 90%. Their served kernels (softmax 1.30.0, log_softmax 1.32.0,
`inner_dim`) take the one-pass column kernel there: a program holds all 1000 rows (1024 with the
mask) of BLOCK_I adjacent columns, and TILE_ELEMS (16384, the template's largest) makes BLOCK_I 16,
so each of its loads is a 64-byte run of a row, 4 KB from the next. Neither `tile_elems` nor
`one_pass_block_inner` (which only narrows the block) reaches 32 or 64 columns, 128- and 256-byte
runs. This probe times the stored kernels as they are beside probe-only rewrites of their
one-pass launch (not templates: a finding here becomes a template knob, tested and tuned): BLOCK_I
and the warps set outright, with the served cap of 64 registers a thread or without it. Every
variant is checked against float64 before it is timed (a wrong one is recorded, not timed);
timed as CUDA-graph replays under the L2 flush, interleaved, with eager PyTorch; the compiled
column kernel's registers and spills beside each. Writes
bench/results/probe-inner-block-<device>.json.

Round 403 (float32): no rewrite beat the served kernel (72.8-73.1 us; 32 columns 78.6-80.8, 64
columns spilled, 163-165). `--dtype bfloat16` or `float16` asks the same of the 16-bit rows,
which read 0.52-0.55 of copy there (rounds 404-405) with the same 16 columns: 32-byte runs, and
half a float32 tile's bytes for the same registers (the kernel holds the tile as float32,
bench/compile_softmax_columns.py), so 32 columns hold what float32's 16 do. The float16 configs
served have no register cap; a variant's cap is set or not as it names, whatever the served
kernel has. Writes bench/results/probe-inner-block-<device>-<dtype>.json for those.

    python bench/probe_inner_block.py [--shape 32,1000,1024] [--dtype float32]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

SHAPE = (32, 1000, 1024)
OPS = ("softmax", "log_softmax")
WARPS_LINE = "        warps = max(1, min(block_r * block_i // (32 * ELEMS_PER_THREAD), 16))\n"
CAP = "                                             maxnreg=64))\n"
# how the served one-pass launch ends, with the cap (float32, bfloat16) or without (float16)
_INDENT = " " * 45
UNCAPPED_TAIL = _INDENT + "num_warps=warps, num_stages=NUM_STAGES))\n"
CAPPED_TAIL = _INDENT + "num_warps=warps, num_stages=NUM_STAGES,\n" + CAP
DTYPES = ("float32", "bfloat16", "float16")
# name -> (BLOCK_I, warps, cap the registers at 64 a thread): at 1024 rows a program of BLOCK_I
# columns holds 1024 * BLOCK_I values (as float32), BLOCK_I * 32 / warps a thread
VARIANTS = {
    "bi16_w16": (16, 16, True),     # what the served launch computes, set outright
    "bi16_w32": (16, 32, True),     # 16 values a thread, 1024 threads a program
    "bi32_w32": (32, 32, True),     # 128-byte runs, 32 values a thread (64 registers: 1 a SM)
    "bi32_w16": (32, 16, False),    # 64 values a thread, uncapped
    "bi32_w32_free": (32, 32, False),
    "bi64_w32": (64, 32, True),     # 256-byte runs, 64 values a thread under the cap: spills
    "bi16_w16_free": (16, 16, False),
    "bi32_w16_capped": (32, 16, True),  # two programs an SM, spilling (16-bit: 64-byte runs)
}


def served_source(op: str, dtype: str = "float32") -> tuple[str, str]:
    """(version, source): the kernel file the zoo serves an H200 for `op` over dim 1."""
    from kernel_zoo import store

    found = store.find_config(op, "sm_90", dtype, bucket="inner_dim", device="NVIDIA H200")
    if found is None:
        raise SystemExit(f"the zoo serves no {op} {dtype} inner_dim config to an H200")
    manifest, config, entry_dir = found
    return manifest["version"], store.read_entry_file(entry_dir, manifest, config["file"]).decode()


def rewrite(source: str, block_i: int, warps: int, capped: bool) -> str:
    """The served source with its one-pass launch's BLOCK_I and warps set outright (the grid
    follows BLOCK_I), and its registers capped at 64 a thread where `capped`, uncapped where
    not, whichever the served launch did."""
    if source.count(WARPS_LINE) != 1:
        raise ValueError(f"the served source has not one {WARPS_LINE.strip()!r}: the template "
                         "changed; update the probe's anchors")
    start = source.index(WARPS_LINE)
    end = source.index("        return y\n", start)
    launch = source[start:end]
    if launch.count(CAPPED_TAIL) + launch.count(UNCAPPED_TAIL) != 1:
        raise ValueError("the served one-pass launch ends neither capped nor uncapped as the "
                         "probe knows it: the template changed; update the probe's anchors")
    launch = launch.replace(WARPS_LINE, f"        block_i, warps = {block_i}, {warps}\n")
    launch = launch.replace(CAPPED_TAIL, UNCAPPED_TAIL)
    if capped:
        launch = launch.replace(UNCAPPED_TAIL, CAPPED_TAIL)
    return source[:start] + launch + source[end:]


def sources(dtype: str = "float32") -> dict[str, tuple[str, str]]:
    """name -> (op, source): each op's served kernel for `dtype` and its rewrites."""
    out = {}
    for op in OPS:
        version, source = served_source(op, dtype)
        out[f"{op}_served_{version}"] = (op, source)
        for name, (block_i, warps, capped) in VARIANTS.items():
            out[f"{op}_{name}"] = (op, rewrite(source, block_i, warps, capped))
    return out


def check(shape: tuple[int, ...], device: str, cache: Path,
          dtype: str = "float32") -> tuple[dict, dict, object]:
    """Each source run once on a (shape) input in `dtype`: rows of its error against float64
    (and compile stats), the callables of the correct ones, and the input. Correct: as the
    verifier judges an output (`verifier.tolerance.compare`: element-wise, and norm-wise within
    the dtype's `rel_l2` or `SAME_DTYPE_FACTOR` times eager PyTorch's own error, if more)."""
    import torch
    from probe_log_softmax_dim1 import _kernel_stats  # the column kernel's registers, spills

    from verifier.core import load_candidate
    from verifier.tolerance import compare, tolerance_for

    torch.manual_seed(0)
    x = (torch.randn(*shape, device=device) * 4.0).to(getattr(torch, dtype))
    ref = {"softmax": torch.softmax(x.double(), dim=1),
           "log_softmax": torch.log_softmax(x.double(), dim=1)}
    eager = {"softmax": torch.softmax(x, dim=1), "log_softmax": torch.log_softmax(x, dim=1)}
    rows, fns = {}, {}
    for name, (op, source) in sources(dtype).items():
        module = load_candidate(source, cache)
        model = module.ModelNew()
        out = model(x)
        judged = compare(out, ref[op], eager[op], tolerance_for(dtype))
        rows[name] = {"op": op, "rel_l2_err": judged.rel_l2_err,
                      "tolerance": judged.rel_l2_bound, "n_bad": judged.n_bad,
                      **_kernel_stats(module)}
        if out.dtype == x.dtype and judged.ok:  # a wrong one is recorded, not timed
            fns[name] = (lambda m=model: m(x))
    return rows, fns, x


def parse_shape(parser: argparse.ArgumentParser, text: str) -> tuple[int, int, int]:
    """--shape's batch,channels,positions, or the parser's named error (exit 2)."""
    try:
        shape = tuple(int(v) for v in text.split(","))
    except ValueError:
        parser.error(f"--shape {text!r}: expected three integers, e.g. 32,1000,1024")
    if len(shape) != 3 or min(shape) < 1:
        parser.error(f"--shape {text!r}: expected three positive integers")
    return shape


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shape", default=",".join(map(str, SHAPE)),
                        help="batch,channels,positions (default %(default)s)")
    parser.add_argument("--dtype", default="float32", choices=DTYPES,
                        help="the input's dtype and the served configs' (default %(default)s)")
    args = parser.parse_args(argv)
    shape = parse_shape(parser, args.shape)

    import torch
    from probe_log_softmax_dim1 import time_rows

    from verifier.environment import device_label, environment

    if not torch.cuda.is_available():
        print("bench/probe_inner_block.py needs a CUDA GPU: it measures time", file=sys.stderr)
        return 2
    device = torch.device("cuda")
    rows, fns, x = check(shape, "cuda", Path(tempfile.mkdtemp()), args.dtype)
    fns["eager_softmax"] = lambda: torch.softmax(x, dim=1)
    fns["eager_log_softmax"] = lambda: torch.log_softmax(x, dim=1)
    copy, failed = time_rows(fns, rows, x, device, width=32)
    for name, row in rows.items():
        if "us" not in row:
            print(f"{name:32s} wrong: rel_l2_err {row['rel_l2_err']:.1e}, not timed")
    result = {"probe": f"softmax and log-softmax over dim 1, {args.dtype}: the one-pass column "
                       "block", "shape": list(shape), "dtype": args.dtype,
              "environment": environment(),
              "date": dt.datetime.now(dt.timezone.utc).isoformat(), "copy_gbps": copy / 1e9,
              "variants": {k: dict(zip(("block_i", "warps", "capped"), v))
                           for k, v in VARIANTS.items()},
              "graph_capture_failed": failed, "rows": rows}
    suffix = "" if args.dtype == "float32" else f"-{args.dtype}"  # round 403's file: float32
    out = ROOT / "bench" / "results" / f"probe-inner-block-{device_label()}{suffix}.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
