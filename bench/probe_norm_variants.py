"""Which kernel structure takes RMSNorm at 16384x8192 (16-bit) where torch.compile does? (one GPU run)

On an H200 the zoo's RMSNorm trails torch.compile by 3-3.5% at 16384x8192 in bfloat16 and float16
(GPU rounds 332-338: 129.9 against 124.9 us), and neither the norm template's one-pass configs nor
its looped kernel (`loop_full_from`, round 338: 134.0) close it, though Inductor's kernel is a
looped two-pass kernel too (bench/results/probe-inductor-norm-h200.json). This probe times, as
CUDA-graph replays with the verifier's timer (L2 discarded before each call, interleaved, medians):
- torch.compile(Model), the zoo (`kernel_zoo.ops.rms_norm`) and eager;
- Inductor's own kernel source (from that JSON) launched directly at other block sizes and warps
  than its autotuner picked;
- kernels written here, not templates: the one pass with the width a compile-time constant (no
  masks), the weight loaded before x or after the row's sum, x's load hinted evict_first or not;
  and the two-pass loop with a constant width, unrolled (as Inductor's constant bounds make it)
  or not, the first read hinted evict_last and the second evict_first;
- with `--served`: the zoo's served file's launcher and its looped kernel launched directly, and
  the two-pass loop with one of the template's looped kernel's differences at a time.
Each is checked against a float32 reference first. Writes
bench/results/runs/probe-norm-variants-<device>.json.

GPU round 455 (float32 16384x8192, runs/probe-norm-variants-h200-round455.json): the served
looped kernel launched directly took 254.6 us (the zoo 254.8), the two-pass loop 250.5 and
torch.compile 250.5; that loop with its row stride a runtime argument took 254.4, with its width
runtime and masked 255.2: the norm template's `loop_const_stride` since.

    python bench/probe_norm_variants.py [--dtypes bfloat16,float16,float32] [--served] [--out DIR]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import tempfile
from pathlib import Path

import torch
import triton
import triton.language as tl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import tasks  # noqa: E402
from kernel_zoo import ops  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, bench, graphed  # noqa: E402

SHAPES = ((16384, 8192), (8192, 4096))
EPS = 1e-6
INDUCTOR_JSON = ROOT / "bench" / "results" / "probe-inductor-norm-h200.json"


@triton.jit
def _one_pass(x_ptr, w_ptr, y_ptr, eps, N: tl.constexpr, W_LATE: tl.constexpr,
              EVICT: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, N)
    if not W_LATE:
        w = tl.load(w_ptr + cols)
    if EVICT:
        x = tl.load(x_ptr + row * N + cols, eviction_policy="evict_first").to(tl.float32)
    else:
        x = tl.load(x_ptr + row * N + cols).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / N + eps)
    if W_LATE:
        w = tl.load(w_ptr + cols)
    tl.store(y_ptr + row * N + cols, (x * rstd * w.to(tl.float32)).to(y_ptr.dtype.element_ty))


@triton.jit
def _two_pass(x_ptr, w_ptr, y_ptr, eps, N: tl.constexpr, BLOCK: tl.constexpr,
              UNROLL: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = x_ptr + row * N
    cols = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    if UNROLL:
        for start in tl.static_range(0, N, BLOCK):
            x = tl.load(base + start + cols, eviction_policy="evict_last").to(tl.float32)
            acc += x * x
    else:
        for start in tl.range(0, N, BLOCK):
            x = tl.load(base + start + cols, eviction_policy="evict_last").to(tl.float32)
            acc += x * x
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / N + eps)
    out = y_ptr + row * N
    if UNROLL:
        for start in tl.static_range(0, N, BLOCK):
            x = tl.load(base + start + cols, eviction_policy="evict_first").to(tl.float32)
            w = tl.load(w_ptr + start + cols, eviction_policy="evict_last").to(tl.float32)
            tl.store(out + start + cols, (x * rstd * w).to(y_ptr.dtype.element_ty))
    else:
        for start in tl.range(0, N, BLOCK):
            x = tl.load(base + start + cols, eviction_policy="evict_first").to(tl.float32)
            w = tl.load(w_ptr + start + cols, eviction_policy="evict_last").to(tl.float32)
            tl.store(out + start + cols, (x * rstd * w).to(y_ptr.dtype.element_ty))


@triton.jit
def _two_pass_parts(x_ptr, w_ptr, y_ptr, eps, n_cols, stride, N: tl.constexpr,
                    BLOCK: tl.constexpr, RUNTIME_STRIDE: tl.constexpr, MASKS: tl.constexpr,
                    W_HINT: tl.constexpr, ACC_2D: tl.constexpr):
    """`_two_pass` (not unrolled) with one of the norm template's looped kernel's differences
    at a time: the row stride a runtime argument, the width a runtime bound with masks, the
    weight's load unhinted, the accumulator [1, BLOCK] summed over axis 1."""
    row = tl.program_id(0).to(tl.int64)
    if RUNTIME_STRIDE:
        base = x_ptr + row * stride
        out = y_ptr + row * stride
    else:
        base = x_ptr + row * N
        out = y_ptr + row * N
    if MASKS:
        width = n_cols
    else:
        width = N
    if ACC_2D:
        cols = tl.arange(0, BLOCK)[None, :]
        acc = tl.zeros([1, BLOCK], tl.float32)
    else:
        cols = tl.arange(0, BLOCK)
        acc = tl.zeros([BLOCK], tl.float32)
    for start in tl.range(0, width, BLOCK):
        if MASKS:
            x = tl.load(base + start + cols, mask=start + cols < width, other=0.0,
                        eviction_policy="evict_last").to(tl.float32)
        else:
            x = tl.load(base + start + cols, eviction_policy="evict_last").to(tl.float32)
        acc += x * x
    if ACC_2D:
        rstd = (1.0 / tl.sqrt(tl.sum(acc, axis=1) / width + eps))[:, None]
    else:
        rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / width + eps)
    for start in tl.range(0, width, BLOCK):
        m = start + cols < width
        if MASKS:
            x = tl.load(base + start + cols, mask=m, other=0.0,
                        eviction_policy="evict_first").to(tl.float32)
        else:
            x = tl.load(base + start + cols, eviction_policy="evict_first").to(tl.float32)
        if W_HINT:
            w = tl.load(w_ptr + start + cols, mask=m, other=0.0,
                        eviction_policy="evict_last").to(tl.float32)
        else:
            w = tl.load(w_ptr + start + cols, mask=m, other=0.0).to(tl.float32)
        if MASKS:
            tl.store(out + start + cols, (x * rstd * w).to(y_ptr.dtype.element_ty), mask=m)
        else:
            tl.store(out + start + cols, (x * rstd * w).to(y_ptr.dtype.element_ty))


def parts_variants(x: torch.Tensor, w: torch.Tensor) -> dict:
    """`_two_pass_parts` at 4096-element blocks and 16 warps: the fast two-pass kernel, then
    each of the looped kernel's differences alone, then all of them."""
    n_rows, n = x.shape
    base = dict(RUNTIME_STRIDE=False, MASKS=False, W_HINT=True, ACC_2D=False)
    forms = {"parts base": base,
             "parts runtime stride": dict(base, RUNTIME_STRIDE=True),
             "parts masks": dict(base, MASKS=True),
             "parts w unhinted": dict(base, W_HINT=False),
             "parts acc 2d": dict(base, ACC_2D=True),
             "parts all": dict(RUNTIME_STRIDE=True, MASKS=True, W_HINT=False, ACC_2D=True)}

    def run(flags):
        y = torch.empty_like(x)
        _two_pass_parts[(n_rows,)](x, w, y, EPS, n, x.stride(0), N=n, BLOCK=4096, **flags,
                                   num_warps=16, num_stages=1)
        return y

    return {name: (lambda flags=flags: run(flags)) for name, flags in forms.items()}


def _inductor_kernel(workdir: Path, dtype_name: str = "bfloat16"):
    """Inductor's RMSNorm kernel at 16384x8192 in `dtype_name`, as round 337 printed it (its sizes
    are constants in the source: it serves only that shape and dtype), as a plain @triton.jit
    function."""
    rows = json.loads(INDUCTOR_JSON.read_text())["rows"]
    source = next(r for r in rows if r["dtype"] == dtype_name and r["shape"] == [16384, 8192])
    text = source["inductor_sources"][0]
    body = text[text.index("@triton.jit"):text.index("''', device_str")]
    path = workdir / f"inductor_rms_norm_{dtype_name}.py"
    path.write_text("import triton\nimport triton.language as tl\n"
                    "from torch._inductor.runtime.triton_helpers import libdevice\n" + body)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.triton_red_fused__fused_rms_norm_0


def variants(x: torch.Tensor, w: torch.Tensor, inductor) -> dict:
    """name -> callable returning the normalized rows (a fresh output each call)."""
    n_rows, n = x.shape
    found = {}
    for warps in (8, 16):
        for w_late in (False, True):
            for evict in (False, True):
                found[f"one_pass w{warps}{' w_late' if w_late else ''}"
                      f"{' evict' if evict else ''}"] = (
                    lambda warps=warps, w_late=w_late, evict=evict: _launch(
                        _one_pass, x, w, (n_rows,), dict(N=n, W_LATE=w_late, EVICT=evict,
                                                         num_warps=warps, num_stages=1)))
        for block in (1024, 2048, 4096):
            for unroll in (False, True):
                found[f"two_pass b{block} w{warps}{' unrolled' if unroll else ''}"] = (
                    lambda warps=warps, block=block, unroll=unroll: _launch(
                        _two_pass, x, w, (n_rows,), dict(N=n, BLOCK=block, UNROLL=unroll,
                                                         num_warps=warps, num_stages=1)))
            if inductor is not None and (n_rows, n) == SHAPES[0]:
                found[f"inductor_src r{block} w{warps}"] = (
                    lambda warps=warps, block=block: _inductor_launch(inductor, x, w, block,
                                                                      warps))
    return found


def served_variants(x: torch.Tensor, w: torch.Tensor, workdir: Path) -> dict:
    """The zoo's served RMSNorm file for x's dtype and width on this GPU, called three ways: its
    launcher, and its looped kernel launched here as `_two_pass` is, with the width a runtime
    multiple of 4 (as the launcher passes it) and masks, or as the kernel's CONST_COLS (and, x
    being contiguous, CONST_ROWS) where the file has those knobs. Where the zoo and `_two_pass`
    part, this says whether the kernel or the call around it does."""
    sys.path.insert(0, str(ROOT / "bench"))
    from kernel_zoo._home import SHIPPED_ZOO
    from kernel_zoo.buckets import bucket_of
    from tune_buckets import served_file
    from verifier.core import load_candidate

    n_rows, n = x.shape
    bucket = bucket_of("rms_norm", tuple(x.shape))
    found = served_file(SHIPPED_ZOO, "rms_norm", "sm_90", str(x.dtype).split(".")[-1], bucket,
                        torch.cuda.get_device_name(x.device))
    if found is None:
        return {}
    params, source = found
    module = load_candidate(source, workdir)
    kernel = module._norm_looped_kernel
    meta = dict(BLOCK=params["loop_block"], HAS_W=True, HAS_B=False, UNIT=4,
                num_warps=params["loop_warps"], num_stages=params["num_stages"])

    def direct(const: bool):
        # a file with loop_const_cols (loop_const_stride) takes CONST_COLS (CONST_ROWS) always:
        # 0 (False) is the runtime width (stride)
        y = torch.empty_like(x)
        const = const and n % params["loop_block"] == 0
        extra = {}
        if "CONST_COLS" in kernel.arg_names:
            extra["CONST_COLS"] = n if const else 0
        if "CONST_ROWS" in kernel.arg_names:
            extra["CONST_ROWS"] = const
        kernel[(n_rows,)](x, x, w, w, y, y, n // 4, x.stride(0) // 4, x.stride(0) // 4, EPS,
                          **meta, **extra)
        return y

    found = {"served launcher": lambda: module.launch_rms_norm(x, [n], w, EPS),
             "served looped kernel direct": lambda: direct(False)}
    if "CONST_COLS" in kernel.arg_names:
        found["served looped kernel direct const"] = lambda: direct(True)
    print(f"served rms_norm {bucket}: {params}", flush=True)
    return found


def _launch(kernel, x, w, grid, meta):
    y = torch.empty_like(x)
    kernel[grid](x, w, y, EPS, **meta)
    return y


def _inductor_launch(kernel, x, w, block, warps):
    y = torch.empty_like(x)
    kernel[(x.shape[0],)](x, w, y, x.shape[0], x.shape[1], XBLOCK=1, R0_BLOCK=block,
                          num_warps=warps, num_stages=1)
    return y


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dtypes", default="bfloat16,float16")
    parser.add_argument("--served", action="store_true",
                        help="also the zoo's served file: its launcher and its looped kernel "
                        "launched directly (served_variants)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "runs")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("probe_norm_variants.py: needs a CUDA GPU (run it on the device machine)",
              file=sys.stderr)
        return 2
    task = tasks.load(ROOT / "tasks" / "rms_norm.py")
    device = torch.device("cuda")
    flusher = L2Flusher(device)
    workdir = Path(tempfile.mkdtemp())
    record = {"benchmark": "probe-norm-variants", "environment": environment(),
              "method": "CUDA-graph replays timed by verifier.timing.bench (L2 discarded before "
              "each call, medians, interleaved); compile = torch.compile(Model), default mode, "
              "dynamic=False; every variant checked against a float32 reference first",
              "rows": []}
    for dtype_name in [d for d in args.dtypes.split(",") if d]:
        dtype = getattr(torch, dtype_name)
        # Inductor's kernel of this dtype at 16384x8192 (round 337 printed bfloat16's and
        # float32's), launched at other block sizes and warps than its autotuner picked
        inductor = _inductor_kernel(workdir, dtype_name) if dtype_name in (
            "bfloat16", "float32") else None
        for tokens, hidden in SHAPES:
            torch.manual_seed(0)
            model = task.module.Model(hidden, EPS).to(device=device, dtype=dtype)
            with torch.no_grad():
                model.norm.weight.copy_(torch.rand(hidden, device=device) + 0.5)
            x = (torch.randn(tokens, hidden, device=device) * 2.0 + 0.5).to(dtype)
            weight = model.norm.weight.detach()
            torch._dynamo.reset()
            compiled = torch.compile(model, dynamic=False)
            fns = {"compile": lambda: compiled(x),
                   "zoo": lambda: ops.rms_norm(x, [hidden], weight, EPS),
                   "eager": lambda: model(x), **variants(x, weight, inductor)}
            if args.served:
                fns.update(served_variants(x, weight, workdir))
                fns.update(parts_variants(x, weight))
            with torch.no_grad():
                expected = torch.nn.functional.rms_norm(x.float(), [hidden], weight.float(), EPS)
                wrong = {}
                for name in list(fns):
                    err = ((fns[name]().float() - expected).norm() / expected.norm()).item()
                    if not err < 1e-2:
                        wrong[name] = err
                        del fns[name]
                timed = bench({k: graphed(v) for k, v in fns.items()}, flusher=flusher,
                              max_reps=100)
            us = {k: t.median_ms * 1e3 for k, t in sorted(timed.items(),
                                                           key=lambda kv: kv[1].median_ms)}
            record["rows"].append({"dtype": dtype_name, "shape": [tokens, hidden], "us": us,
                                   "wrong": wrong})
            print(f"rms_norm {dtype_name} {tokens}x{hidden}"
                  + (f" (wrong: {wrong})" if wrong else ""), flush=True)
            for name, value in us.items():
                print(f"    {value:7.1f} us  {name}", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"probe-norm-variants-{device_label()}.json"
    path.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
