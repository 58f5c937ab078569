"""Compile rendered pointwise kernels for sm_90 with Triton's own compiler and ptxas: no GPU needed.

For each task's render context and a few configs, prints one JSON object per kernel: registers,
stack (spills), shared memory, and the global loads and stores with their vector width, read from
the PTX and the cubin. It shows what the interpreter cannot: that full tiles load 16 bytes at a time
and that nothing spills. Must run without TRITON_INTERPRET (it is removed here).

    python bench/compile_pointwise.py [--tasks swiglu,bias_gelu_scale] [--dtype bf16]
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

os.environ.pop("TRITON_INTERPRET", None)  # before triton is imported: real JITFunctions

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.backends.nvidia.compiler import CUDABackend  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

from templates import get_template  # noqa: E402
from tune_pointwise import CONTEXTS  # noqa: E402

TARGET = GPUTarget("cuda", 90, 32)
_LOAD = re.compile(r"ld\.global[.\w:]*?(?:\.(v[248]))?\.(?:b|u|f|s)\d+")
_STORE = re.compile(r"st\.global[.\w:]*?(?:\.(v[248]))?\.(?:b|u|f|s)\d+")
# a 16-bit element moved alone: what a bf16/fp16 tile gets where the compiler cannot prove alignment
_LOAD_16 = re.compile(r"ld\.global[\w:.]*\.b16\b")
_STORE_16 = re.compile(r"st\.global[\w:.]*\.b16\b")
# a pipelined loop's global -> shared copies (16 bytes each where the alignment is known)
_ASYNC = re.compile(r"cp\.async\.c[ag]\.shared\.global")


def _import(source: str, directory: Path, tag: str):
    path = directory / f"{tag}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(tag, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[tag] = module
    spec.loader.exec_module(module)
    return module


def _resources(cubin: bytes) -> dict:
    tool = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(cubin)
        f.flush()
        out = subprocess.run([str(tool), "--dump-resource-usage", f.name], capture_output=True,
                             text=True, check=True).stdout
    found = re.search(r"REG:(\d+).*?STACK:(\d+).*?SHARED:(\d+)", out, re.S)
    return {"registers": int(found[1]), "stack": int(found[2]), "static_shared": int(found[3])}


# SASS instructions ("/*0a40*/   SHFL.BFLY PT, R5, R4, 0x10, 0x1f ;"), by opcode; the guard
# ("@!P2") in its own group
_SASS = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)")


def _sass_counts(cubin: bytes) -> dict:
    """Instructions of the cubin's SASS: in all, warp shuffles, barriers (what a cross-lane
    reduction costs: shuffles, or one REDUX per warp for a 32-bit integer min or max on sm_80+),
    and global loads (LDG), in all and under a guard (a masked load)."""
    tool = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(cubin)
        f.flush()
        out = subprocess.run([str(tool), "-sass", f.name], capture_output=True, text=True,
                             check=True).stdout
    found = [(m.group(1), m.group(2)) for m in _SASS.finditer(out)]
    ops = [op for _, op in found]
    return {"instructions": len(ops), "shuffles": sum(op == "SHFL" for op in ops),
            "barriers": sum(op in ("BAR", "BAR.SYNC") for op in ops),
            "warp_reductions": sum(op == "REDUX" for op in ops),
            "global_loads": sum(op == "LDG" for op in ops),
            "guarded_global_loads": sum(op == "LDG" and bool(guard) for guard, op in found)}


def _widths(pattern: re.Pattern, ptx: str) -> dict:
    counts: dict[str, int] = {}
    for match in pattern.finditer(ptx):
        width = match.group(1) or "v1"
        counts[width] = counts.get(width, 0) + 1
    return counts


def compiled_for_sm90(fn, types: dict, constexprs: dict, divisible: list[str], cfg):
    """`fn` compiled for sm_90 (`types`: each non-constexpr argument's Triton type; `divisible`:
    the arguments marked divisible by 16, as Triton's launcher would; `cfg`: num_warps and
    num_stages, and maxnreg where set): the compiled kernel, its PTX and cubin in `.asm`."""
    backend = CUDABackend(TARGET)
    signature = {name: "constexpr" if name in constexprs else types[name] for name in fn.arg_names}
    attrs = {(fn.arg_names.index(n),): backend.parse_attr("D") for n in divisible}
    options = {"num_warps": cfg.num_warps, "num_stages": cfg.num_stages}
    if getattr(cfg, "maxnreg", None):  # a launch's register cap (Triton's `maxnreg`)
        options["maxnreg"] = cfg.maxnreg
    return triton.compile(ASTSource(fn, signature, constexprs, attrs), target=TARGET,
                          options=options)


def compile_kernel(fn, types: dict, constexprs: dict, divisible: list[str], cfg) -> dict:
    """Compile `fn` for sm_90 (`compiled_for_sm90`) and read its resources and global accesses."""
    kernel = compiled_for_sm90(fn, types, constexprs, divisible, cfg)
    ptx = kernel.asm["ptx"]
    return {**_resources(kernel.asm["cubin"]), "dynamic_shared": kernel.metadata.shared,
            "sass": _sass_counts(kernel.asm["cubin"]),
            "loads": _widths(_LOAD, ptx), "stores": _widths(_STORE, ptx),
            "loads_16bit": sorted(set(_LOAD_16.findall(ptx))),
            "stores_16bit": sorted(set(_STORE_16.findall(ptx))),
            "loads_16bit_count": len(_LOAD_16.findall(ptx)),
            "stores_16bit_count": len(_STORE_16.findall(ptx)),
            "async_copies": len(_ASYNC.findall(ptx))}


_POINTER_TYPES = {"bfloat16": "*bf16", "float16": "*fp16", "float32": "*fp32", "int64": "*i64",
                  "int32": "*i32"}


REGS_PER_SM = 65536  # an sm_90 SM's register file, 32-bit registers
QUADRANTS = 4  # its sub-partitions, each with a quarter of the registers
BLOCKS_PER_SM = 32


def programs_per_sm(registers: int, warps: int) -> int:
    """How many programs of `warps` warps at `registers` a thread fit an SM's register file, as
    CUDA's occupancy calculator counts (and the templates' `_resident_per_sm`): a warp's registers
    come in units of 256 from one quadrant's quarter of the file, so a quadrant holds whole warps."""
    per_warp = -(-registers * 32 // 256) * 256
    return min(QUADRANTS * (REGS_PER_SM // QUADRANTS // per_warp) // warps, BLOCKS_PER_SM)


def write_compiled(path: str | Path, what: str, rows: list) -> None:
    """Write compile-only rows to `path` as JSON, with the date and the compiling Triton and
    ptxas (this machine's, which may differ from the GPU machine's)."""
    import datetime
    import json

    ptxas = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "ptxas"
    version = subprocess.run([str(ptxas), "--version"], capture_output=True, text=True,
                             check=True).stdout
    result = {"what": what,
              "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "triton": triton.__version__, "ptxas": version.strip().splitlines()[-1],
              "target": "sm_90", "rows": rows}
    Path(path).write_text(json.dumps(result, indent=1) + "\n")
    print("wrote", path)


def record_launches(module, sm_count: int | None = None) -> list:
    """Make a rendered module record its kernel launches instead of running them; returns the
    list they are appended to as `(kernel, args, kwargs)` (constexprs and launch options in
    kwargs). A module with a launch helper `_launch(kernel, grid, args, kwargs)` has it replaced;
    one that launches `kernel[grid](...)` directly (older zoo files) has its `*_kernel` JIT
    functions wrapped. Given `sm_count` (132 for an H100), `_sm_count` reports it (without a GPU
    it reports the interpreter's small machine)."""
    import inspect

    launched: list = []

    class _Recorder:
        def __init__(self, kernel):
            self.kernel = kernel

        def __getitem__(self, grid):
            def launch(*args, **kwargs):
                names = self.kernel.arg_names
                bound = {**dict(zip(names, args)),
                         **{n: v for n, v in kwargs.items() if n in names}}
                options = {n: v for n, v in kwargs.items() if n not in names}
                options.update({p.name: bound[p.name] for p in self.kernel.params
                                if p.is_constexpr and p.name in bound})
                launched.append((self.kernel, [bound.get(n) for n in names], options))
            return launch

    helper = getattr(module, "_launch", None)
    if helper is not None and list(inspect.signature(helper).parameters)[:2] == ["kernel", "grid"]:
        module._launch = lambda kernel, grid, args, kwargs: launched.append((kernel, args, kwargs))
    else:
        for name, value in list(vars(module).items()):
            if isinstance(value, triton.runtime.jit.JITFunction) and name.endswith("_kernel"):
                setattr(module, name, _Recorder(value))
    if sm_count is not None and hasattr(module, "_sm_count"):
        module._sm_count = lambda device_index: sm_count
    return launched


def compile_launches(launched: list) -> list[dict]:
    """Compile each captured launch `(kernel, args, kwargs)` of a rendered launcher (its module's
    `_launch` replaced by a recorder) as Triton's launcher would specialize it: tensors as
    pointers (aligned: CUDA allocations are), ints divisible by 16 marked so, constexprs and
    num_warps / num_stages (and maxnreg) from the launch."""
    import torch
    from types import SimpleNamespace

    found = []
    for kernel, args, kwargs in launched:
        types, consts, divisible = {}, {}, []
        for i, param in enumerate(kernel.params):
            if param.is_constexpr:
                # launches recorded on CPU tensors pass ON_GPU=False (the interpreter's path);
                # compiled for sm_90, a kernel takes its GPU path (inline PTX, say)
                consts[param.name] = True if param.name == "ON_GPU" else kwargs[param.name]
                continue
            value = args[i]
            if isinstance(value, torch.Tensor):
                types[param.name] = _POINTER_TYPES[str(value.dtype).removeprefix("torch.")]
                divisible.append(param.name)
            elif isinstance(value, float):
                types[param.name] = "fp32"
            elif value == 1:
                # Triton's launcher makes an int equal to 1 a constant (a unit stride, say):
                # typed as a runtime int instead, a GEMM's column-major B loads 2 bytes at a
                # time and its K loop is not pipelined, which the real launch never compiles
                consts[param.name] = 1
            else:
                types[param.name] = "i32" if -2**31 <= value < 2**31 else "i64"
                if value % 16 == 0:
                    divisible.append(param.name)
        options = SimpleNamespace(num_warps=kwargs.get("num_warps", 4),
                                  num_stages=kwargs.get("num_stages", 3),
                                  maxnreg=kwargs.get("maxnreg"))
        found.append({"kernel": kernel.__name__, "constexprs": consts,
                      "num_warps": options.num_warps,
                      **compile_kernel(kernel, types, consts, divisible, options)})
    return found


def report(task: str, cfg, dtype: str, workdir: Path) -> list[dict]:
    """Compile the flat kernel (and the rows kernel where the context has a row input)."""
    template = get_template("pointwise")
    context = CONTEXTS[task]
    tag = f"pw_{task}_{abs(hash(cfg))}"
    module = _import(template.render(cfg, op=task, **context), workdir, tag)
    inputs = context["inputs"]
    types = {f"in{i}": f"*{dtype}" for i in range(len(inputs))}
    types.update(out_ptr=f"*{dtype}", n_elements="i32", n_cols="i32", n_full_blocks="i32",
                 tail_base="i32", n_rows="i32")
    flags = {f"S{i}_PTR": True for i, spec in enumerate(inputs) if spec["kind"] == "scalar"}
    pointers = [f"in{i}" for i in range(len(inputs))] + ["out_ptr"]
    rows_of = {"task": task, "dtype": dtype, "params": dataclasses.asdict(cfg)}
    out = [{**rows_of, "kernel": "flat", **compile_kernel(
        module._flat_kernel, types, {"BLOCK": cfg.block, "ONE_WRAP": True, **flags},
        pointers + ["n_elements", "n_cols", "tail_base"], cfg)}]
    if hasattr(module, "_rows_kernel"):
        block_n = min(cfg.col_block, cfg.block)
        out.append({**rows_of, "kernel": "rows", **compile_kernel(
            module._rows_kernel, types,
            {"ROWS": cfg.block // block_n, "BLOCK_N": block_n, "EVEN": True, **flags},
            pointers + ["n_cols"], cfg)})
    return out


def configs() -> list:
    default = get_template("pointwise").default
    return [
        default,
        dataclasses.replace(default, block=16384, num_warps=16),
        dataclasses.replace(default, programs_per_sm=2, num_stages=2, stream_hint=True),
        # torch.compile's GeGLU launch shape, with libdevice's erf and with erfc's fit
        dataclasses.replace(default, block=1024, num_warps=4, col_block=1024),
        dataclasses.replace(default, block=1024, num_warps=4, col_block=1024, gelu_erf_fit=True),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", default=",".join(CONTEXTS), help="comma-separated tasks")
    parser.add_argument("--dtype", default="bf16", choices=("bf16", "fp16", "fp32"))
    parser.add_argument("--out", type=Path,
                        help="also write the rows, with the compiler's versions, to this JSON")
    args = parser.parse_args()
    names = [n for n in args.tasks.split(",") if n]
    unknown = [n for n in names if n not in CONTEXTS]
    if unknown:
        parser.error(f"unknown tasks {unknown}; choose from {list(CONTEXTS)}")
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for name in names:
            for cfg in configs():
                for row in report(name, cfg, args.dtype, Path(workdir)):
                    print(json.dumps(row), flush=True)
                    rows.append(row)
    if args.out:
        import datetime
        import platform

        environment = {"target": "sm_90 (compiled here, no GPU)", "triton": triton.__version__,
                       "python": platform.python_version(),
                       "date": datetime.datetime.now(datetime.timezone.utc).isoformat()}
        args.out.write_text(json.dumps({"benchmark": "compile-pointwise", "dtype": args.dtype,
                                        "environment": environment, "rows": rows}, indent=1))
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
