"""Load KernelBench-format task files.

A task file defines `class Model(nn.Module)`, `get_inputs()`, `get_init_inputs()` and its sizes as
module-level globals. An optional `KZOO = {...}` dict adds what KernelBench leaves implicit:

    KZOO = {
        "op": "softmax",                                  # the zoo op this task defines
        "shapes": [{"batch_size": 4096, "dim": 4097}],    # overrides of the size globals
        "cpu_shapes": [{"batch_size": 3, "dim": 4097}],   # small shapes for Triton's interpreter
        "dtypes": ["float32", "bfloat16", "float16"],
        "tolerances": {"bfloat16": {"rtol": 2e-2}},       # per dtype, over verifier defaults
        "bytes": lambda batch_size, dim, itemsize: 2 * batch_size * dim * itemsize,
        "flops": lambda batch_size, dim: 5 * batch_size * dim,
        "seeds": [0, 1],                                  # input draws checked per shape
    }

Formulas are called with the module's globals (after a shape's overrides) as keyword arguments, plus
`itemsize` (bytes per element of the dtype under test), matched by parameter name.

Because get_inputs reads the size globals when it is called, overriding them re-draws inputs at another
shape; sizes derived from others at import time would go stale, so derive them inside get_inputs.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import itertools
import math
import numbers
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

from kernel_zoo import store

DTYPES = store.DTYPES  # what the zoo dispatches for: one list for both
_KZOO_KEYS = {"op", "shapes", "cpu_shapes", "dtypes", "tolerances", "bytes", "flops", "seeds"}
_counter = itertools.count()


class TaskError(Exception):
    """A task file that cannot be used, with a message that says what to fix."""


@dataclass(frozen=True)
class Task:
    """A loaded task: the module, its source and the metadata the verifier and search need."""

    name: str
    path: Path
    source: str
    sha256: str
    module: ModuleType = field(repr=False, compare=False)
    op: str | None
    shapes: tuple[dict[str, Any], ...]
    cpu_shapes: tuple[dict[str, Any], ...]
    dtypes: tuple[str, ...]
    tolerances: dict[str, dict[str, float]]
    seeds: tuple[int, ...]
    bytes_formula: Callable[..., int] | None = field(repr=False, compare=False)
    flops_formula: Callable[..., int] | None = field(repr=False, compare=False)

    def shapes_for(self, interpreter: bool) -> tuple[dict[str, Any], ...]:
        return self.cpu_shapes if interpreter else self.shapes

    def apply_shape(self, shape: dict[str, Any]) -> None:
        """Set the size globals of the task module to one of its shapes."""
        for key, value in shape.items():
            setattr(self.module, key, value)

    def make_model(self):
        """`Model(*get_init_inputs())`, with any error turned into a TaskError."""
        init = _call(self, "get_init_inputs")
        if not isinstance(init, (list, tuple)):
            raise TaskError(
                f"{self.path}: get_init_inputs() returned {type(init).__name__}; it must return a "
                "list (use [] when Model takes no constructor arguments)."
            )
        try:
            return self.module.Model(*init)
        except (Exception, SystemExit) as exc:  # user code: report, never a traceback
            raise TaskError(
                f"{self.path}: Model(*get_init_inputs()) raised {type(exc).__name__}: {exc}. "
                "Fix the constructor or what get_init_inputs() returns."
            ) from exc

    def make_inputs(self) -> list:
        """`get_inputs()` at the current shape; the caller sets seed, device and dtype around it."""
        inputs = _call(self, "get_inputs")
        if not isinstance(inputs, (list, tuple)) or not inputs:
            raise TaskError(
                f"{self.path}: get_inputs() returned {inputs!r:.60}; it must return a non-empty "
                "list of the forward() arguments."
            )
        return list(inputs)

    def formula_value(self, which: str, itemsize: int) -> int | None:
        fn = self.bytes_formula if which == "bytes" else self.flops_formula
        if fn is None:
            return None
        params = inspect.signature(fn).parameters
        kwargs = {}
        for name in params:
            if name == "itemsize":
                kwargs[name] = itemsize
            elif hasattr(self.module, name):
                kwargs[name] = getattr(self.module, name)
            else:
                raise TaskError(
                    f"{self.path}: the KZOO['{which}'] formula takes '{name}', which is neither a "
                    "module-level global of the task nor 'itemsize'."
                )
        try:
            value = int(fn(**kwargs))
        except Exception as exc:  # the task's own formula: its file's fault, said so, not a bug
            raise TaskError(
                f"{self.path}: the KZOO['{which}'] formula failed with {kwargs}: "
                f"{type(exc).__name__}: {exc}; it must return the {which} as a finite number."
            ) from None
        return value


def _call(task: Task, fn_name: str):
    try:
        return getattr(task.module, fn_name)()
    except TaskError:
        raise
    except (Exception, SystemExit) as exc:  # sys.exit() in user code must not end the caller
        raise TaskError(
            f"{task.path}: {fn_name}() raised {type(exc).__name__}: {exc}. The verifier calls it "
            "once per shape and seed to draw inputs; make it run on its own."
        ) from exc


def _exec_module(path: Path, source: str) -> ModuleType:
    name = f"kzoo_task_{path.stem}_{next(_counter)}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise TaskError(f"{path}: cannot be imported as a Python file.")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling by reference look modules up here
    try:
        exec(compile(source, str(path), "exec"), module.__dict__)
    except SyntaxError as exc:
        raise TaskError(f"{path}:{exc.lineno}: syntax error: {exc.msg}.") from exc
    except (Exception, SystemExit) as exc:  # sys.exit() at import must not end the caller
        raise TaskError(
            f"{path}: importing the task raised {type(exc).__name__}: {exc}. A task file may only "
            "define Model, get_inputs, get_init_inputs, its size globals and KZOO."
        ) from exc
    return module


def _check_shapes(path: Path, module: ModuleType, key: str, shapes: Any) -> tuple[dict, ...]:
    if not isinstance(shapes, (list, tuple)) or not all(isinstance(s, dict) for s in shapes):
        raise TaskError(f"{path}: KZOO['{key}'] must be a list of dicts of size globals.")
    for shape in shapes:
        unknown = [k for k in shape if not hasattr(module, k)]
        if unknown:
            raise TaskError(
                f"{path}: KZOO['{key}'] overrides {', '.join(unknown)}, which the task does not "
                "define as module-level globals; a shape can only override existing size globals."
            )
    return tuple(dict(s) for s in shapes)


def _check_tolerances(path: Path, tolerances: Any, dtypes: tuple[str, ...]) -> dict:
    """KZOO['tolerances']: per dtype, overrides of the verifier's TOLERANCES, each a finite number
    above 0. Checked here: a string made every trial fail with a TypeError blamed on the candidate,
    and a negative bound rejected every correct kernel as wrong-values."""
    from verifier.tolerance import TOLERANCES

    names = sorted({k for entry in TOLERANCES.values() for k in entry})
    shape = f"dtype names ({', '.join(DTYPES)}) to dicts of {', '.join(names)}"
    if not isinstance(tolerances, dict):
        raise TaskError(f"{path}: KZOO['tolerances'] is a {type(tolerances).__name__}; it must be "
                        f"a dict mapping {shape}, e.g. {{'bfloat16': {{'rtol': 2e-2}}}}.")
    out: dict[str, dict[str, float]] = {}
    for dtype, entry in tolerances.items():
        key = f"KZOO['tolerances'][{dtype!r}]"
        if dtype not in DTYPES:
            declared = f"the task's dtypes {list(dtypes)} or " if dtypes else ""
            raise TaskError(f"{path}: {key}: {dtype!r} is not a dtype name; use {declared}one of "
                            f"{list(DTYPES)}.")
        if not isinstance(entry, dict):
            raise TaskError(f"{path}: {key} is a {type(entry).__name__}; it must be a dict of "
                            f"{', '.join(names)} (any of them), e.g. {{'rtol': 2e-2}}.")
        unknown = [k for k in entry if k not in names]
        if unknown:
            raise TaskError(f"{path}: {key} has unknown keys {unknown}; allowed: {names}.")
        for name, value in entry.items():
            if not _finite_positive(value):
                raise TaskError(
                    f"{path}: {key}[{name!r}] is {value!r:.40} ({type(value).__name__}); it must "
                    f"be a finite number above 0 (the default for {dtype} is "
                    f"{TOLERANCES[dtype][name]:g})."
                )
        out[dtype] = {name: float(value) for name, value in entry.items()}
    return out


def _finite_positive(value: Any) -> bool:
    """A real number (bool is none), finite and above 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return False
    try:
        return math.isfinite(value) and value > 0
    except OverflowError:  # an int too large for a float
        return False


def load(path: str | Path) -> Task:
    """Load a task file, raising TaskError with a one-paragraph explanation on any problem."""
    path = Path(path)
    if path.is_dir():
        raise TaskError(f"{path}: is a folder; pass one KernelBench-format .py file from it.")
    if not path.is_file():
        raise TaskError(f"{path}: no such task file. Pass the path to a KernelBench-format .py file.")
    try:
        source = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise TaskError(f"{path}: not UTF-8 text (byte {err.start}); a task is a Python source "
                        "file, saved as UTF-8.") from None
    except OSError as err:
        raise TaskError(f"{path}: cannot read it ({err.strerror or err}).") from None
    return load_source(source, path)


def load_source(source: str, path: Path) -> Task:
    module = _exec_module(path, source)
    missing = [n for n in ("Model", "get_inputs", "get_init_inputs") if not hasattr(module, n)]
    if missing:
        raise TaskError(
            f"{path}: the task defines no {', '.join(missing)}. A KernelBench-format task file needs "
            "`class Model(nn.Module)` with the reference forward(), `get_inputs()` returning the "
            "forward() arguments and `get_init_inputs()` returning the constructor arguments."
        )
    import torch.nn as nn

    if not (isinstance(module.Model, type) and issubclass(module.Model, nn.Module)):
        raise TaskError(f"{path}: Model must be a subclass of torch.nn.Module.")
    for fn in ("get_inputs", "get_init_inputs"):
        if not callable(getattr(module, fn)):
            raise TaskError(f"{path}: {fn} must be a function.")

    meta = getattr(module, "KZOO", {})
    if not isinstance(meta, dict):
        raise TaskError(f"{path}: KZOO must be a dict.")
    unknown = set(meta) - _KZOO_KEYS
    if unknown:
        raise TaskError(
            f"{path}: unknown KZOO keys {sorted(unknown)}; known: {sorted(_KZOO_KEYS)}."
        )
    default_shape = [{}]
    shapes = _check_shapes(path, module, "shapes", meta.get("shapes", default_shape))
    cpu_shapes = _check_shapes(path, module, "cpu_shapes", meta.get("cpu_shapes", shapes))
    if not shapes or not cpu_shapes:
        raise TaskError(f"{path}: KZOO shape lists must not be empty.")
    dtypes = tuple(meta.get("dtypes", ("float32",)))
    bad = [d for d in dtypes if d not in DTYPES]
    if bad:
        raise TaskError(f"{path}: unsupported dtypes {bad} in KZOO['dtypes']; use {list(DTYPES)}.")
    tolerances = _check_tolerances(path, meta.get("tolerances", {}), dtypes)
    seeds = meta.get("seeds", (0, 1))
    if not isinstance(seeds, (list, tuple)) or not seeds or not all(
        isinstance(x, int) for x in seeds
    ):
        raise TaskError(f"{path}: KZOO['seeds'] must be a non-empty list of integers.")
    for key in ("bytes", "flops"):
        if key in meta and not callable(meta[key]):
            raise TaskError(f"{path}: KZOO['{key}'] must be a function (a lambda is fine).")

    return Task(
        name=path.stem,
        path=path.resolve(),
        source=source,
        sha256=hashlib.sha256(source.encode()).hexdigest(),
        module=module,
        op=meta.get("op"),
        shapes=shapes,
        cpu_shapes=cpu_shapes,
        dtypes=dtypes,
        tolerances=tolerances,
        seeds=tuple(seeds),
        bytes_formula=meta.get("bytes"),
        flops_formula=meta.get("flops"),
    )
