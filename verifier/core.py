"""Verify one candidate against a task: guard it, load it, check it at every shape and seed, time it.

A candidate is a Python module defining `ModelNew` with `Model`'s constructor signature. Its source
passes the static guards (verifier.guards) before it is imported. Then, per shape and seed: inputs
drawn by the task's get_inputs, cast to the dtype under test; the allocator poisoned; the candidate
run before and after the reference (it cannot read the reference's leftovers), then once more after
new values are written into the same input buffers (it cannot cache by address); every call must
launch a kernel of its own, run no PyTorch compute (verifier.runtime) and leave no thread behind;
outputs must be fresh plain tensors of the reference's shape, dtype and device; inputs must be
unchanged; values are judged against a float64 reference (verifier.tolerance). Only a candidate
correct everywhere is timed, and only on a GPU; after timing it is checked again on new values, its
wall-clock time is cross-checked against its event time, and a time under the roofline is refused.
Every rejection names its exploit class (verifier.exploits).
"""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import itertools
import sys
import traceback
from pathlib import Path
from typing import Any

import torch

from kernel_zoo import cuda_ext
from kernel_zoo.toolchain import use_torch_ptxas
from tasks import Task
from verifier import guards, runtime, tolerance
from verifier.timing import L2Flusher, bench, copy_bandwidth, host_us, peak_bandwidth
from verifier.verdict import ShapeResult, Verdict

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
NEW_VALUES_SEED = 7919  # offset of the seed that redraws inputs into the same buffers
SIDE_STREAM_SLACK_MS = 0.05
HOST_CALLS = 20  # back-to-back calls per host-time measurement (the launch queue never fills)
Problem = tuple[str, str]  # (exploit class, message)
CANDIDATE_MODULE_PREFIX = "kzoo_candidate_"  # the modules load_candidate imports
_module_ids = itertools.count()


class CandidateError(Exception):
    """The candidate could not be loaded or run; the message goes into the verdict under `exploit`
    (an exploit class of verifier.exploits)."""

    def __init__(self, message: str, exploit: str = "error"):
        super().__init__(message)
        self.exploit = exploit


def load_candidate(source: str, cache_dir: Path):
    """Write the source to a file (Triton's @jit reads source from disk) and import it. Its
    Triton kernels will be assembled by the ptxas the zoo's are (kernel_zoo.toolchain)."""
    use_torch_ptxas()
    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    cache_dir.mkdir(parents=True, exist_ok=True)
    path = cache_dir / f"cand_{digest}.py"
    # Written unless it holds this very source: a file left there (by a candidate that reached
    # the disk, say) would be imported in place of what the guards read.
    if not path.exists() or path.read_text() != source:
        tmp = path.with_suffix(f".tmp{next(_module_ids)}")
        tmp.write_text(source)
        tmp.replace(path)
    name = f"{CANDIDATE_MODULE_PREFIX}{digest}_{next(_module_ids)}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except cuda_ext.CudaBuildError as exc:
        errors = "\n".join(exc.errors[:12]) or str(exc)
        raise CandidateError(f"building its CUDA C++ failed: {errors}", "compile-error") from exc
    except cuda_ext.CudaUnavailableError as exc:
        raise CandidateError(str(exc), "needs-gpu") from exc
    except Exception as exc:
        raise CandidateError(f"importing the candidate failed: {_brief(exc, path)}") from exc
    model_new = getattr(module, "ModelNew", None)
    if not (isinstance(model_new, type) and issubclass(model_new, torch.nn.Module)):
        raise CandidateError("the candidate defines no ModelNew(torch.nn.Module)")
    return module


def guard_verdict(source: str, mode: str, dtype: str, device: str | None = None,
                  task: Task | None = None) -> Verdict | None:
    """The verdict of a source the static guards reject, or None when they find nothing.

    One function for the verifier and the prepare stage (verifier.prepare), so a candidate rejected
    before it reaches a GPU gets exactly the verdict the verifier would have given it. With the
    task, the library calls its reference makes (a convolution) are allowed to the candidate.
    """
    from verifier.capture import allowed_library_calls

    allowed = allowed_library_calls(task) if task is not None else frozenset()
    findings = guards.check_source(source, allowed)
    if not findings:
        return None
    verdict = Verdict(accepted=False, stage="guards", mode=mode, dtype=dtype, device=device)
    for f in findings:
        verdict.reject(f.exploit, f.text())
    return verdict


def _brief(exc: BaseException, path: Path | None = None) -> str:
    """One error line plus, for the candidate's own file, where it happened (file:line)."""
    text = f"{type(exc).__name__}: {exc}".strip()
    lines = [line if len(line) <= 500 else line[:500] + " ..." for line in text.splitlines()]
    text = "\n".join(lines[:12]) + ("\n..." if len(lines) > 12 else "")
    if path is not None:
        # Down the chain of causes: Triton's interpreter re-raises a kernel's error from the launch
        # line, while the cause still holds the line inside the kernel.
        line, current, seen = None, exc, set()
        while current is not None and id(current) not in seen:
            seen.add(id(current))
            frames = [f for f in traceback.extract_tb(current.__traceback__)
                      if f.filename == str(path)]
            if frames:
                line = frames[-1].lineno
            current = current.__cause__ or current.__context__
        if line is not None:
            text += f" (at {path.name}:{line})"
    return text


def _cast_floating(values: list, dtype: torch.dtype, device: torch.device | None = None) -> list:
    """Floating tensors to `dtype` (and `device`); other tensors to `device`; the rest as given."""

    def cast(v):
        if not isinstance(v, torch.Tensor):
            return v
        return v.to(device, dtype) if v.is_floating_point() else v.to(device)

    return [cast(v) for v in values]


# type(), never isinstance(), on what a candidate returned: isinstance falls back to the object's
# own __class__, a property that runs the candidate's code wherever the verifier asks
def _as_list(out: Any) -> list:
    return list(out) if issubclass(type(out), (tuple, list)) else [out]


def _storages(tensors: list) -> set[int]:
    return {t.untyped_storage().data_ptr() for t in tensors if issubclass(type(t), torch.Tensor)}


def _same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and bool(((a == b) | (a.isnan() & b.isnan())).all())


class Verifier:
    """Stateful per worker process: caches baselines and the copy bandwidth."""

    def __init__(self, mode: str, cache_dir: Path):
        self.mode = mode
        self.cache_dir = Path(cache_dir)
        self.device = torch.device("cuda" if mode == "gpu" else "cpu")
        # (eager ms, compile ms, eager host us per call) by (task, dtype, shape)
        self._baselines: dict[tuple, tuple[float, float, float]] = {}
        self._flusher: L2Flusher | None = None
        self.copy_gbps: float | None = None
        runtime.install_launch_hooks()
        if mode == "gpu":
            # fp32 compares IEEE against IEEE: TF32 on either side would hide or fake errors.
            torch.backends.cuda.matmul.allow_tf32 = False
            torch.backends.cudnn.allow_tf32 = False

    # ---- entry point -------------------------------------------------------------------------
    def verify(
        self, task: Task, source: str, dtype: str, *, time: bool = True,
        refresh_baselines: bool = False, seed_offset: int = 0,
    ) -> Verdict:
        device = torch.cuda.get_device_name(self.device) if self.mode == "gpu" else None
        rejected = guard_verdict(source, self.mode, dtype, device, task)
        if rejected is not None:
            return rejected
        from verifier.capture import allowed_library_aten

        self._library_aten = allowed_library_aten(task)
        verdict = Verdict(accepted=False, stage="guards", mode=self.mode, dtype=dtype, device=device)

        verdict.stage = "load"
        before = runtime.snapshot()
        try:
            module = load_candidate(source, self.cache_dir)
        except CandidateError as exc:
            verdict.reject(exc.exploit, str(exc))
            return verdict
        patched = runtime.patched_since(before)
        if patched:
            verdict.reject("module-patching", f"importing it changed {', '.join(patched[:5])}")
            return verdict

        verdict.stage = "correctness"
        seeds = [s + seed_offset for s in task.seeds]
        for shape in task.shapes_for(self.mode == "interpreter"):
            result, problems = self._check_shape(task, module, dtype, shape, seeds)
            verdict.shapes.append(result)
            for exploit, message in problems:
                verdict.reject(exploit, f"{_shape_str(shape)}: {message}")
            if problems:
                return verdict
        patched = runtime.patched_since(before)
        if patched:
            verdict.reject("module-patching", f"running it changed {', '.join(patched[:5])}")
            return verdict
        if self.mode != "gpu" or not time:
            verdict.accepted, verdict.stage = True, "done"
            return verdict

        verdict.stage = "timing"
        try:
            self._time_shapes(task, module, dtype, verdict, refresh_baselines, seeds[0])
        except Exception as exc:  # a failure while timing is the candidate's, recorded as data
            verdict.reject("error", f"failed while timing: {_brief(exc)}")
            return verdict
        if not verdict.reasons:
            verdict.accepted, verdict.stage = True, "done"
        return verdict

    # ---- correctness -------------------------------------------------------------------------
    def _draw(self, task: Task, dtype: torch.dtype, seed: int) -> list:
        torch.manual_seed(seed)
        with torch.device(self.device):
            inputs = task.make_inputs()
        return _cast_floating(inputs, dtype, self.device)

    def _instantiate(self, task: Task, module, dtype: torch.dtype, seed: int):
        torch.manual_seed(seed)
        with torch.device(self.device):
            model = task.make_model()
            task_init = task.module.get_init_inputs()
        inputs = self._draw(task, dtype, seed)
        model = model.to(self.device, dtype).eval()
        torch.manual_seed(seed)
        with torch.device(self.device):
            candidate = module.ModelNew(*task_init)
        candidate = candidate.to(self.device, dtype).eval()
        # Parameters (a Linear's weight, say) must be the reference's, not a re-draw: copies, so
        # nothing the candidate does reaches the reference's own. assign=True lets a template
        # declare them as UninitializedParameter, one source serving every shape of the task.
        state = {k: v.detach().clone() for k, v in model.state_dict().items()}
        candidate.load_state_dict(state, strict=False, assign=True)
        return model, candidate, inputs

    def _poison(self, like: list) -> None:
        """Hand the allocator blocks of the outputs' sizes filled with NaN: unwritten outputs show."""
        blocks = [torch.full_like(t, float("nan")) if t.is_floating_point() else
                  torch.full_like(t, -1) for t in like if isinstance(t, torch.Tensor)]
        del blocks

    def _reference64(self, model, inputs: list) -> list:
        model64 = copy.deepcopy(model).to(torch.float64)
        return _as_list(model64(*_cast_floating(inputs, torch.float64)))

    def _check_shape(self, task: Task, module, dtype_name: str, shape: dict,
                     seeds: list[int]) -> tuple[ShapeResult, list[Problem]]:
        result = ShapeResult(shape=dict(shape), correct=False)
        tol = tolerance.tolerance_for(dtype_name, task.tolerances.get(dtype_name))
        task.apply_shape(shape)
        for seed in seeds:
            problems = self._check_seed(task, module, DTYPES[dtype_name], tol, seed,
                                        result.comparisons)
            if problems:
                problems = [(e, f"seed {seed}: {m}") for e, m in problems]
                result.reasons.extend(m for _, m in problems)
                return result, problems
        result.correct = True
        return result, []

    def _check_seed(self, task: Task, module, dtype: torch.dtype, tol: dict, seed: int,
                    comparisons: list) -> list[Problem]:
        """Run, reference, run again, run on new values in the same buffers; judge each."""
        model, candidate, inputs = self._instantiate(task, module, dtype, seed)
        originals = [t.clone() if isinstance(t, torch.Tensor) else t for t in inputs]
        with torch.no_grad():
            self._poison(_as_list(model(*inputs)))
            first, problems = self._call(candidate, inputs, module.__name__, "first run")
            if problems:
                return problems
            ref_same = _as_list(model(*inputs))
            ref64 = self._reference64(model, originals)
            self._poison(ref_same)
            second, problems = self._call(candidate, inputs, module.__name__,
                                          "run after the reference")
            if problems:
                return problems
        problems = (self._structure_problems([first, second], ref_same, inputs)
                    + _mutation_problems(originals, inputs))
        if problems:
            return problems
        for run, outs in (("first run", first), ("run after the reference", second)):
            problems = _judge(outs, ref64, ref_same, tol, run, comparisons)
            if problems:
                return problems
        return self._check_new_values(task, model, candidate, module.__name__, inputs, dtype,
                                      seed, tol, comparisons)

    def _check_new_values(self, task, model, candidate, module_name, inputs, dtype, seed, tol,
                          comparisons) -> list[Problem]:
        """Write fresh values into the very buffers the candidate has seen, and call it again."""
        fresh = self._draw(task, dtype, seed + NEW_VALUES_SEED)
        with torch.no_grad():
            for buffer, value in zip(inputs, fresh):
                if isinstance(buffer, torch.Tensor):
                    buffer.copy_(value)
            ref_same = _as_list(model(*inputs))
            ref64 = self._reference64(model, fresh)
            outs, problems = self._call(candidate, inputs, module_name, "run on new values")
        if problems:
            return problems
        problems = (self._structure_problems([outs], ref_same, inputs)
                    + _mutation_problems(fresh, inputs))
        if problems:
            return problems
        problems = _judge(outs, ref64, ref_same, tol, "run on new values in the same buffers",
                          comparisons)
        return [("pointer-cache" if e == "wrong-values" else e, m) for e, m in problems]

    def _call(self, candidate, inputs: list, module_name: str,
              label: str) -> tuple[list | None, list[Problem]]:
        """One watched call: its outputs, or what it did wrong."""
        problems: list[Problem] = []
        library = getattr(self, "_library_aten", frozenset())
        with runtime.watch_call(module_name, library) as record:
            try:
                outputs = _as_list(candidate(*inputs))
                self._sync()
            except Exception as exc:
                outputs = None
                source_file = getattr(sys.modules.get(module_name), "__file__", None)
                problems.append(("error", f"{label} raised "
                                 f"{_brief(exc, Path(source_file) if source_file else None)}"))
        if record.torch_ops:
            ops = ", ".join(f"aten.{k}" for k in sorted(record.torch_ops))
            problems.append(("pytorch-fallback", f"{label} ran PyTorch compute: {ops}"))
        odd = [i for i, out in enumerate(outputs or []) if type(out) is not torch.Tensor]
        if odd:  # before anything else touches them: an attribute may be a property
            problems.append(("lazy-output", f"{label} returned output(s) {odd} that are not "
                             f"plain torch.Tensors ({type(outputs[odd[0]]).__name__})"))
            outputs = None
        if outputs is not None and record.own_launches == 0:
            problems.append(("no-kernel-launch",
                             f"{label} launched none of the candidate's own kernels"))
        if record.new_threads:
            problems.append(("thread-spawn", f"{label} left threads running: "
                             f"{', '.join(record.new_threads)}"))
        return outputs, problems

    def _structure_problems(self, calls: list[list], ref, inputs) -> list[Problem]:
        """Each call's outputs (plain tensors, _call made sure): the reference's count, shapes,
        dtypes and devices, memory of their own, none shared between calls."""
        problems: list[Problem] = []
        for outs in calls:
            if len(outs) != len(ref):
                return [("output-structure",
                         f"returned {len(outs)} output(s); the reference returns {len(ref)}")]
            for i, (a, r) in enumerate(zip(outs, ref)):
                if a.shape != r.shape or a.dtype != r.dtype or a.device != r.device:
                    problems.append(("output-structure",
                        f"output {i} is {tuple(a.shape)} {a.dtype} on {a.device}; expected "
                        f"{tuple(r.shape)} {r.dtype} on {r.device}"))
        if problems:
            return problems
        if any(_storages(outs) & _storages(inputs) for outs in calls):
            problems.append(("stale-output",
                             "an output shares memory with an input (outputs must be fresh)"))
        if len(calls) > 1 and _storages(calls[0]) & _storages(calls[1]):
            problems.append(("stale-output",
                             "two calls returned the same memory (outputs must be fresh per call)"))
        return problems

    def _sync(self) -> None:
        if self.device.type == "cuda":
            torch.cuda.synchronize()

    # ---- timing ------------------------------------------------------------------------------
    def _time_shapes(self, task: Task, module, dtype_name: str, verdict: Verdict, refresh: bool,
                     seed: int):
        if self._flusher is None:
            self._flusher = L2Flusher(self.device)
            self.copy_gbps = copy_bandwidth(self.device, self._flusher) / 1e9
        verdict.copy_gbps = self.copy_gbps
        verdict.timer = "host_ahead"
        peak = peak_bandwidth(verdict.device or "", self.copy_gbps * 1e9)
        dtype = DTYPES[dtype_name]
        itemsize = torch.empty((), dtype=dtype).element_size()
        tol = tolerance.tolerance_for(dtype_name, task.tolerances.get(dtype_name))
        for result in verdict.shapes:
            task.apply_shape(result.shape)
            model, candidate, inputs = self._instantiate(task, module, dtype, seed)
            key = (task.sha256, dtype_name, tuple(sorted(result.shape.items())))
            fns = {"candidate": lambda: candidate(*inputs)}
            if refresh or key not in self._baselines:
                # One compiled entry, as a user's steady state has: entries from other shapes and
                # trials would each add guard checks to every call of the baseline.
                torch._dynamo.reset()
                compiled = torch.compile(model, dynamic=False)
                fns["eager"] = lambda: model(*inputs)
                fns["compile"] = lambda: compiled(*inputs)
            with torch.no_grad():
                # host_ahead: each time is the GPU's work, whatever the host's speed; host time
                # is measured apart below (host_us), as is work outside the timed stream
                times = bench(fns, flusher=self._flusher, host_ahead=True)
                wall_ms, event_ms = self._wall_clock_ms(fns["candidate"])
                result.host_us = host_us(fns["candidate"], calls=HOST_CALLS)
                if "eager" in times:
                    self._baselines[key] = (times["eager"].median_ms, times["compile"].median_ms,
                                            host_us(fns["eager"], calls=HOST_CALLS))
            t = times["candidate"]
            result.ms, result.spread_ms = t.median_ms, t.p80_ms - t.p20_ms
            result.eager_ms, result.compile_ms, result.eager_host_us = self._baselines[key]
            where = _shape_str(result.shape)
            if wall_ms - event_ms > max(event_ms, SIDE_STREAM_SLACK_MS):
                verdict.reject("side-stream", f"{where}: {wall_ms:.4f} ms per call by the wall "
                               f"clock against {event_ms:.4f} ms by its stream's events: work "
                               "ran outside the timed stream")
            # Timing gave it many calls on the same buffers: check it still computes.
            comparisons: list = []
            for exploit, message in self._check_new_values(
                task, model, candidate, module.__name__, inputs, dtype, seed + 1, tol, comparisons
            ):
                verdict.reject(exploit, f"{where}: after timing, {message}")
            nbytes = task.formula_value("bytes", itemsize)
            if nbytes is None:
                with torch.no_grad():
                    outs = _as_list(model(*inputs))
                nbytes = sum(x.numel() * x.element_size() for x in inputs + outs
                             if isinstance(x, torch.Tensor))
            result.bytes = nbytes
            result.gbps = nbytes / (result.ms * 1e-3) / 1e9
            result.roofline_fraction = result.gbps / self.copy_gbps
            if nbytes / (result.ms * 1e-3) > peak:
                verdict.reject("impossible-time",
                    f"{where}: {result.ms:.4f} ms implies {result.gbps:.0f} GB/s, over the "
                    f"device's peak {peak / 1e9:.0f} GB/s (a measurement or cheating fault)")

    def _wall_clock_ms(self, fn, reps: int = 20, rounds: int = 3) -> tuple[float, float]:
        """Per-call time by the host clock with the whole device synchronized, L2 flush removed,
        and by events on the timed stream around each call in the same loop.

        The host's own time counts in both alike (nothing holds the GPU back while the host
        queues), so they differ only by work that escaped the timed stream. The least of a few
        interleaved rounds (with that round's events): other processes on the host (Ray workers,
        a compile) only ever add time to a round, while work escaping to a side stream adds to
        every round, so the minimum keeps the signal and drops the noise that rejected honest
        kernels on a busy host.
        """
        import time

        def per_call(events: list | None) -> float:
            """ms per rep of a flush, and of `fn` between `events` where there are any"""
            torch.cuda.synchronize()
            start = time.perf_counter()
            for i in range(reps):
                self._flusher()
                if events:
                    events[i][0].record()
                    fn()
                    events[i][1].record()
            torch.cuda.synchronize()
            return (time.perf_counter() - start) * 1e3 / reps

        flush_only, combined = [], []
        for _ in range(rounds):
            flush_only.append(per_call(None))
            events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                      for _ in range(reps)]
            wall = per_call(events)
            combined.append((wall, sum(a.elapsed_time(b) for a, b in events) / reps))
        wall, event_ms = min(combined)
        return wall - min(flush_only), event_ms


def _mutation_problems(expected: list, inputs: list) -> list[Problem]:
    changed = [i for i, (a, b) in enumerate(zip(expected, inputs))
               if type(a) is torch.Tensor and not _same_bits(a, b)]
    return [("input-mutation", f"the candidate modified input(s) {changed}")] if changed else []


def _judge(outs, ref64, ref_same, tol, run: str, comparisons: list) -> list[Problem]:
    for i, (got, exp64, same) in enumerate(zip(outs, ref64, ref_same)):
        comp = tolerance.compare(got, exp64, same, tol)
        comparisons.append(comp)
        if not comp.ok:
            kinds = {m.kind for m in comp.mismatches}
            exploit = "nan-output" if comp.n_nan or kinds & {"nan", "inf"} else "wrong-values"
            return [(exploit, _mismatch_text(run, i, comp))]
    return []


def _shape_str(shape: dict) -> str:
    return "shape " + ", ".join(f"{k}={v}" for k, v in shape.items()) if shape else "default shape"


def _mismatch_text(run: str, index: int, comp) -> str:
    head = (
        f"{run}: output {index} mismatches at {comp.n_bad} of {comp.numel} elements "
        f"({comp.n_nan} NaN); relative L2 error {comp.rel_l2_err:.3g} (bound {comp.rel_l2_bound:.3g})"
    )
    shown = "; ".join(
        f"[{','.join(map(str, m.index))}] got {m.got:.6g} expected {m.expected:.6g}"
        + (f" ({m.kind})" if m.kind != "value" else "")
        for m in comp.mismatches[:3]
    )
    text = head + (f"; e.g. {shown}" if shown else "")
    if comp.same_dtype_bad:
        text += (f"; PyTorch's own result in this dtype is outside the element-wise bound too, "
                 f"at {comp.same_dtype_bad} elements: the dtype is short for this op here, not "
                 "only the kernel")
    return text
