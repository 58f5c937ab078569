"""Verify one candidate against a task: load it, check it at every shape and seed, then time it.

A candidate is a Python module defining `ModelNew` with `Model`'s constructor signature. It is judged
per shape: inputs drawn by the task's get_inputs at that shape and seed, cast to the dtype under test;
the candidate runs before and after the reference (so it cannot read the reference's leftovers);
outputs must be fresh tensors of the reference's shape, dtype and device; inputs must be unchanged;
values are compared against a float64 reference (verifier.tolerance). Only a candidate correct at
every shape and seed is timed, and only on a GPU.
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

from tasks import Task
from verifier import tolerance
from verifier.timing import L2Flusher, bench, copy_bandwidth, peak_bandwidth
from verifier.verdict import ShapeResult, Verdict

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
_module_ids = itertools.count()


class CandidateError(Exception):
    """The candidate could not be loaded or run; the message goes into the verdict."""


def load_candidate(source: str, cache_dir: Path):
    """Write the source to a file (Triton's @jit reads source from disk) and import it."""
    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    cache_dir.mkdir(parents=True, exist_ok=True)
    path = cache_dir / f"cand_{digest}.py"
    if not path.exists():
        tmp = path.with_suffix(f".tmp{next(_module_ids)}")
        tmp.write_text(source)
        tmp.replace(path)
    name = f"kzoo_candidate_{digest}_{next(_module_ids)}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        raise CandidateError(f"importing the candidate failed: {_brief(exc, path)}") from exc
    model_new = getattr(module, "ModelNew", None)
    if not (isinstance(model_new, type) and issubclass(model_new, torch.nn.Module)):
        raise CandidateError("the candidate defines no ModelNew(torch.nn.Module)")
    return module


def _brief(exc: BaseException, path: Path | None = None) -> str:
    """One error line plus, for the candidate's own file, where it happened (file:line)."""
    text = f"{type(exc).__name__}: {exc}".strip()
    lines = text.splitlines()
    text = "\n".join(lines[:12]) + ("\n..." if len(lines) > 12 else "")
    if path is not None:
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == str(path)]
        if frames:
            text += f" (at {path.name}:{frames[-1].lineno})"
    return text


def _as_list(out: Any) -> list:
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _storages(tensors: list) -> set[int]:
    return {t.untyped_storage().data_ptr() for t in tensors if isinstance(t, torch.Tensor)}


def _same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and bool(((a == b) | (a.isnan() & b.isnan())).all())


class Verifier:
    """Stateful per worker process: caches tasks, baselines and the copy bandwidth."""

    def __init__(self, mode: str, cache_dir: Path):
        self.mode = mode
        self.cache_dir = Path(cache_dir)
        self.device = torch.device("cuda" if mode == "gpu" else "cpu")
        self._baselines: dict[tuple, tuple[float, float]] = {}
        self._flusher: L2Flusher | None = None
        self.copy_gbps: float | None = None
        if mode == "gpu":
            # fp32 compares IEEE against IEEE: TF32 on either side would hide or fake errors.
            torch.backends.cuda.matmul.allow_tf32 = False
            torch.backends.cudnn.allow_tf32 = False
            import torch._dynamo as dynamo

            dynamo.config.cache_size_limit = 64  # one static compile per shape and dtype

    # ---- entry point -------------------------------------------------------------------------
    def verify(
        self, task: Task, source: str, dtype: str, *, time: bool = True,
        refresh_baselines: bool = False,
    ) -> Verdict:
        verdict = Verdict(accepted=False, stage="load", mode=self.mode, dtype=dtype)
        if self.mode == "gpu":
            verdict.device = torch.cuda.get_device_name(self.device)
        try:
            module = load_candidate(source, self.cache_dir)
        except CandidateError as exc:
            verdict.reasons.append(str(exc))
            return verdict

        verdict.stage = "correctness"
        for shape in task.shapes_for(self.mode == "interpreter"):
            result = self._check_shape(task, module, dtype, shape)
            verdict.shapes.append(result)
            if not result.correct:
                verdict.reasons.extend(f"{_shape_str(shape)}: {r}" for r in result.reasons)
                return verdict
        if self.mode != "gpu" or not time:
            verdict.accepted, verdict.stage = True, "done"
            return verdict

        verdict.stage = "timing"
        try:
            self._time_shapes(task, module, dtype, verdict, refresh_baselines)
        except Exception as exc:  # a failure while timing is the candidate's, recorded as data
            verdict.reasons.append(f"failed while timing: {_brief(exc)}")
            return verdict
        if not verdict.reasons:
            verdict.accepted, verdict.stage = True, "done"
        return verdict

    # ---- correctness -------------------------------------------------------------------------
    def _instantiate(self, task: Task, module, dtype: torch.dtype, seed: int):
        torch.manual_seed(seed)
        with torch.device(self.device):
            model = task.make_model()
            task_init = task.module.get_init_inputs()
            torch.manual_seed(seed)
            inputs = task.make_inputs()
        inputs = [
            t.to(self.device, dtype) if isinstance(t, torch.Tensor) and t.is_floating_point()
            else (t.to(self.device) if isinstance(t, torch.Tensor) else t)
            for t in inputs
        ]
        model = model.to(self.device, dtype).eval()
        torch.manual_seed(seed)
        with torch.device(self.device):
            candidate = module.ModelNew(*task_init)
        candidate = candidate.to(self.device, dtype).eval()
        # Parameters (a Linear's weight, say) must be the reference's, not a re-draw.
        candidate.load_state_dict(model.state_dict(), strict=False)
        return model, candidate, inputs

    def _poison(self, like: list) -> None:
        """Hand the allocator NaN-filled blocks of the outputs' sizes: unwritten outputs show."""
        if self.device.type != "cuda":
            return
        blocks = [torch.full_like(t, float("nan")) if t.is_floating_point() else
                  torch.full_like(t, -1) for t in like if isinstance(t, torch.Tensor)]
        del blocks

    def _check_shape(self, task: Task, module, dtype_name: str, shape: dict) -> ShapeResult:
        result = ShapeResult(shape=dict(shape), correct=False)
        tol = tolerance.tolerance_for(dtype_name, task.tolerances.get(dtype_name))
        task.apply_shape(shape)
        for seed in task.seeds:
            reasons = self._check_seed(task, module, DTYPES[dtype_name], tol, seed,
                                       result.comparisons)
            if reasons:
                result.reasons.extend(f"seed {seed}: {r}" for r in reasons)
                return result
        result.correct = True
        return result

    def _check_seed(self, task: Task, module, dtype: torch.dtype, tol: dict, seed: int,
                    comparisons: list) -> list[str]:
        """One seed's inputs: run, reference, run again; then structure, inputs and values."""
        model, candidate, inputs = self._instantiate(task, module, dtype, seed)
        originals = [t.clone() if isinstance(t, torch.Tensor) else t for t in inputs]
        with torch.no_grad():
            self._poison(_as_list(model(*inputs)))
            first, error = self._run(candidate, inputs)
            if error:
                return [f"the candidate raised {error}"]
            ref_same = _as_list(model(*inputs))
            model64 = copy.deepcopy(model).to(torch.float64)
            ref64 = _as_list(model64(*[
                t.to(torch.float64) if isinstance(t, torch.Tensor) and t.is_floating_point()
                else t for t in originals
            ]))
            self._poison(ref_same)
            second, error = self._run(candidate, inputs)
            if error:
                return [f"the run after the reference raised {error}"]
        problems = self._structure_problems(first, second, ref_same, inputs)
        changed = [i for i, (a, b) in enumerate(zip(originals, inputs))
                   if isinstance(a, torch.Tensor) and not _same_bits(a, b)]
        if changed:
            problems.append(f"the candidate modified input(s) {changed}")
        if problems:
            return problems
        for run, outs in (("first run", first), ("run after the reference", second)):
            for i, (got, exp64, same) in enumerate(zip(outs, ref64, ref_same)):
                comp = tolerance.compare(got, exp64, same, tol)
                comparisons.append(comp)
                if not comp.ok:
                    return [_mismatch_text(run, i, comp)]
        return []

    def _run(self, candidate, inputs: list) -> tuple[list | None, str | None]:
        """The candidate's outputs, or the error it raised (as text: a verdict is data)."""
        try:
            outputs = _as_list(candidate(*inputs))
            self._sync()
        except Exception as exc:
            return None, _brief(exc)
        return outputs, None

    def _structure_problems(self, first, second, ref, inputs) -> list[str]:
        problems = []
        if len(first) != len(ref) or len(second) != len(ref):
            return [f"returned {len(first)} output(s); the reference returns {len(ref)}"]
        for i, (a, r) in enumerate(zip(first, ref)):
            if type(a) is not torch.Tensor:
                problems.append(f"output {i} is a {type(a).__name__}, not a plain torch.Tensor")
            elif a.shape != r.shape or a.dtype != r.dtype or a.device != r.device:
                problems.append(
                    f"output {i} is {tuple(a.shape)} {a.dtype} on {a.device}; expected "
                    f"{tuple(r.shape)} {r.dtype} on {r.device}"
                )
        if problems:
            return problems
        if _storages(first) & _storages(inputs) or _storages(second) & _storages(inputs):
            problems.append("an output shares memory with an input (outputs must be fresh tensors)")
        if _storages(first) & _storages(second):
            problems.append("two calls returned the same memory (outputs must be fresh per call)")
        return problems

    def _sync(self) -> None:
        if self.device.type == "cuda":
            torch.cuda.synchronize()

    # ---- timing ------------------------------------------------------------------------------
    def _time_shapes(self, task: Task, module, dtype_name: str, verdict: Verdict, refresh: bool):
        if self._flusher is None:
            self._flusher = L2Flusher(self.device)
            self.copy_gbps = copy_bandwidth(self.device, self._flusher) / 1e9
        verdict.copy_gbps = self.copy_gbps
        peak = peak_bandwidth(verdict.device or "", self.copy_gbps * 1e9)
        dtype = DTYPES[dtype_name]
        itemsize = torch.empty((), dtype=dtype).element_size()
        for result in verdict.shapes:
            task.apply_shape(result.shape)
            model, candidate, inputs = self._instantiate(task, module, dtype, task.seeds[0])
            key = (task.sha256, dtype_name, tuple(sorted(result.shape.items())))
            fns = {"candidate": lambda: candidate(*inputs)}
            if refresh or key not in self._baselines:
                compiled = torch.compile(model, dynamic=False)
                fns["eager"] = lambda: model(*inputs)
                fns["compile"] = lambda: compiled(*inputs)
            with torch.no_grad():
                times = bench(fns, flusher=self._flusher)
            if "eager" in times:
                self._baselines[key] = (times["eager"].median_ms, times["compile"].median_ms)
            t = times["candidate"]
            result.ms, result.spread_ms = t.median_ms, t.p80_ms - t.p20_ms
            result.eager_ms, result.compile_ms = self._baselines[key]
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
                verdict.reasons.append(
                    f"{_shape_str(result.shape)}: impossible time {result.ms:.4f} ms: it implies "
                    f"{result.gbps:.0f} GB/s, over the device's peak {peak / 1e9:.0f} GB/s "
                    "(a measurement or cheating fault)"
                )


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
    return head + (f"; e.g. {shown}" if shown else "")
