"""Prepare a candidate away from the GPU: static guards, an import check and, for a GPU, compilation.

The prepare stage (agent.cluster.PreparePool) runs this in CPU-only processes while the verifier
actors time other candidates. It gives one kind of verdict only: a guard rejection, made by the very
function the verifier calls (verifier.core.guard_verdict), so such a candidate never takes a GPU
slot. Everything else it finds is advice the verifier does not rely on: the verifier runs the guards
again, imports the candidate itself and runs every check.

Compiling without a GPU. A launcher picks its constexprs (BLOCK, ROWS, num_warps...) from the input
shapes at run time, so the faithful way to compile what the verifier will run is to run the
candidate's own launcher on the task's GPU shapes with Triton in a compile-only mode:

- inputs on PyTorch's `meta` device: shapes, strides and dtypes, no memory and no GPU. A meta
  tensor's data_ptr() is 0, which Triton specializes as 16-byte aligned, as it does the caching
  allocator's blocks; integer arguments (sizes, strides) are the real values, so they specialize
  (i32/i64, equal to 1, multiple of 16) exactly as on the GPU;
- every `JITFunction.run` gets `warmup=True`, the path behind `kernel.warmup(...)`: Triton binds and
  specializes the arguments, compiles into its on-disk cache and returns without launching;
- a stand-in driver names the GPU target (backend, arch, warp size, as the verifier actor that will
  run the kernel reports it), because this process sees no GPU: agent.cluster empties
  CUDA_VISIBLE_DEVICES for it whatever Ray's default for num_gpus=0 workers is (Ray has emptied it,
  and newer releases leave it alone), and compiling for an explicit target needs none.

Triton's cache key hashes the kernel's source and what it depends on, that specialization, the
compile options, the target, ptxas's version and the cache-affecting environment; not the module's
name nor the process. So the verifier's first call at the same shape finds the binary under
TRITON_CACHE_DIR (the prepare worker writes into the verifier actor's cache directory, on its node)
and only loads it. The calls used here (`driver.set_active`, `JITFunction.run(*args, grid, warmup,
**kwargs)`, `knobs.compilation.listener`) are the same in triton 3.6 and 3.9.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verifier.worker import TaskCache


@dataclass(frozen=True)
class CompileTarget:
    """What Triton compiles for: triton.backends.compiler.GPUTarget as plain, picklable data."""

    backend: str
    arch: Any  # an int for CUDA (90 for sm_90), a string for HIP
    warp_size: int

    @classmethod
    def of_current_device(cls) -> "CompileTarget":
        from triton.runtime.driver import driver

        target = driver.active.get_current_target()
        return cls(target.backend, target.arch, target.warp_size)

    def gpu_target(self):
        from triton.backends.compiler import GPUTarget

        return GPUTarget(self.backend, self.arch, self.warp_size)


def triton_cache_dir() -> str:
    """The directory this process's Triton reads and writes compiled kernels in."""
    try:
        from triton import knobs

        return str(knobs.cache.dir)
    except (ImportError, AttributeError):
        return os.environ.get("TRITON_CACHE_DIR") or os.path.join(
            os.path.expanduser("~"), ".triton", "cache")


@dataclass(frozen=True)
class PrepareRequest:
    task_path: str
    task_source: str
    source: str  # the candidate module's source
    dtype: str


MAX_BUILT = 16  # builds a CompileCounter names


def _built_text(src) -> str:
    """A built kernel: its name, then what Triton specialized it on: its constants (constexprs)
    and the arguments' attributes (16-byte divisibility), by argument name."""
    fn = getattr(src, "fn", None)
    names = list(getattr(fn, "arg_names", ()))

    def named(index):  # Triton keys an argument by a path, (i,) for the i-th
        i = index[0] if isinstance(index, tuple) and index else index
        return names[i] if isinstance(i, int) and 0 <= i < len(names) else str(index)

    constants = getattr(src, "constants", None) or {}
    attrs = getattr(src, "attrs", None) or {}
    parts = [f"{named(k)}={v}" for k, v in constants.items()]
    parts += [f"{named(k)}:{v}" for k, v in attrs.items() if v]  # divisibility and the like
    return " ".join([getattr(fn, "__name__", "?"), *parts])[:600]


class CompileCounter:
    """Counts this process's Triton compilations of candidates' kernels: binaries built, and
    binaries found in the cache. Kernels of anything else (Inductor's, for the torch.compile
    baseline) are not counted.

    Chains to any listener already installed; a Triton without `knobs.compilation.listener` leaves
    the counts at zero and `available` False.
    """

    def __init__(self) -> None:
        from verifier.core import CANDIDATE_MODULE_PREFIX

        self.compiled = 0
        self.cache_hits = 0
        self.compile_s = 0.0
        # what was built, the first few: a kernel's name and the specialization it was built
        # for, so a build the prepare stage should have made says which one it was
        self.built: list[str] = []
        try:
            from triton import knobs

            previous = knobs.compilation.listener
        except (ImportError, AttributeError):
            self.available = False
            return
        self.available = True

        def listener(*, src, metadata, metadata_group, times, cache_hit, **extra) -> None:
            module = getattr(getattr(src, "fn", None), "__module__", None) or ""
            if not module.startswith(CANDIDATE_MODULE_PREFIX):
                pass
            elif cache_hit:
                self.cache_hits += 1
            else:
                self.compiled += 1
                self.compile_s += getattr(times, "total", 0) / 1e6  # microseconds
                if len(self.built) < MAX_BUILT:
                    self.built.append(_built_text(src))
            if previous is not None:
                previous(src=src, metadata=metadata, metadata_group=metadata_group, times=times,
                         cache_hit=cache_hit, **extra)

        knobs.compilation.listener = listener

    def counts(self) -> dict[str, Any]:
        return {"compiled": self.compiled, "cache_hits": self.cache_hits,
                "compile_s": round(self.compile_s, 3)}


class _CompileOnlyDriver:
    """Answers the questions JITFunction.run asks the driver, for a GPU this process cannot see."""

    def __init__(self, target) -> None:
        self._target = target

    def get_current_device(self) -> int:
        return 0

    def get_current_stream(self, device: int | None = None) -> int:
        return 0

    def get_current_target(self):
        return self._target


def _enter_compile_only(target: CompileTarget) -> None:
    """From now on in this process, a kernel launch compiles for `target` and launches nothing.

    Process-wide and for good: prepare workers are processes of their own and do nothing else.
    """
    from triton.runtime.driver import driver
    from triton.runtime.jit import JITFunction

    driver.set_active(_CompileOnlyDriver(target.gpu_target()))
    if getattr(JITFunction.run, "__kzoo_compile_only__", False):
        return
    launch = JITFunction.run

    def compile_only_run(self, *args, grid, warmup, **kwargs):
        kernel = launch(self, *args, grid=grid, warmup=True, **kwargs)
        # A warm-up gets its compiled kernel (the GEMM launcher reads its shared memory). A launch
        # launched nothing here and returns None, as in Triton's interpreter: a launcher that keeps
        # the compiled kernel's own launcher for repeats (templates/_model.jinja's `_direct`)
        # would otherwise ask the driver to load it onto a GPU this process cannot see.
        return kernel if warmup else None

    compile_only_run.__kzoo_compile_only__ = True
    JITFunction.run = compile_only_run


class Preparer:
    """Prepares candidates in this process; `prepare` returns a plain dict (see its doc)."""

    def __init__(self, mode: str, cache_dir: str, target: CompileTarget | None = None,
                 cache_dir_triton: str | None = None, device_name: str | None = None):
        if mode == "interpreter":
            # Read by triton.jit when a candidate's kernels are decorated, i.e. at import.
            os.environ["TRITON_INTERPRET"] = "1"
        elif target is None:
            raise ValueError("preparing for a GPU needs the target to compile for")
        if mode == "gpu" and cache_dir_triton:
            os.environ["TRITON_CACHE_DIR"] = cache_dir_triton
        if mode == "gpu":
            _enter_compile_only(target)
        self.mode = mode
        self.cache_dir = Path(cache_dir)
        self.target = target
        self.device_name = device_name
        self.counter = CompileCounter()
        self._task = TaskCache()

    def prepare(self, request: PrepareRequest) -> dict[str, Any]:
        """Guard, import and (GPU) compile one candidate.

        Returns `verdict`: the guard rejection as a verdict dict, or None; `import_error` and
        `warmup_error`: what failed here, for the record (the verifier decides); `compiled` and
        `cache_hits`: Triton compilations this candidate caused; `shapes_warmed`; `patched`: names
        the candidate's import rebound in this process (the worker is then replaced); `seconds`.
        """
        from verifier import runtime
        from verifier.core import CandidateError, guard_verdict, load_candidate

        started = time.monotonic()
        out: dict[str, Any] = {"verdict": None, "import_error": None, "warmup_error": None,
                               "compiled": 0, "cache_hits": 0, "compile_s": 0.0,
                               "shapes_warmed": 0, "patched": []}
        rejected = guard_verdict(request.source, self.mode, request.dtype, self.device_name,
                                 self._task(request.task_path, request.task_source))
        if rejected is not None:
            out["verdict"] = rejected.to_dict()
        else:
            before = runtime.snapshot()
            counts_before = self.counter.counts()
            try:
                module = load_candidate(request.source, self.cache_dir)
            except CandidateError as exc:
                out["import_error"] = str(exc)
            else:
                if self.mode == "gpu":
                    task = self._task(request.task_path, request.task_source)
                    self._warm_up(task, module, request.dtype, out)
            out["patched"] = runtime.patched_since(before)
            counts = self.counter.counts()
            for key in ("compiled", "cache_hits", "compile_s"):
                out[key] = round(counts[key] - counts_before[key], 3)
        out["seconds"] = time.monotonic() - started
        return out

    def _warm_up(self, task, module, dtype_name: str, out: dict[str, Any]) -> None:
        """Run the candidate on meta tensors at every GPU shape: its launches compile, none runs."""
        import torch

        from verifier.core import DTYPES, _brief, _cast_floating

        dtype = DTYPES[dtype_name]
        meta = torch.device("meta")
        try:
            for shape in task.shapes_for(False):
                task.apply_shape(shape)
                with torch.device(meta):
                    init = task.module.get_init_inputs()
                    inputs = _cast_floating(task.make_inputs(), dtype, meta)
                    candidate = module.ModelNew(*init)
                candidate = candidate.to(meta, dtype).eval()
                with torch.no_grad():
                    candidate(*inputs)
                out["shapes_warmed"] += 1
        except Exception as exc:  # the verifier will meet it too and judge it; here it is a note
            out["warmup_error"] = _brief(exc)
