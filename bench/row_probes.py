"""What the float32 softmax row probes (probe_split_tma, probe_cluster_softmax, probe_split_lag)
share: the served split-row kernels' helpers to build on, timing variants beside
`kernel_zoo.ops.softmax` and a copy of the same bytes in one run, and one JSON of the shapes with
the run's environment.

    split = served_split_module("probe-split-lag")   # split._publish_pair, ._resident_per_sm, ...
    us, failed = time_beside_zoo_and_copy(x, fns, errors, flusher, ref)
    write_probe(out_dir, "probe-split-lag", what, shapes, variants="...")
"""

from __future__ import annotations

import dataclasses
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kernel_zoo import ops  # noqa: E402
from templates import get_template  # noqa: E402
from verifier.core import load_candidate  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, bench, graphed_where_possible  # noqa: E402


def served_split_module(prefix: str) -> ModuleType:
    """A render of the softmax template's split-row kernel a row ahead (16 programs a row), loaded:
    the served kernels' own helpers for a probe to build on (the slot word a program publishes
    its pair as, `_publish_pair` / `_gather_pairs`; a slice's statistics and outputs; how many
    programs of a compiled kernel an SM holds, `_resident_per_sm`, which a cooperative grid must
    not exceed)."""
    template = get_template("softmax")
    return load_candidate(
        template.render(dataclasses.replace(template.default, row_split=16, row_ahead=True),
                        op="softmax", log=False, dim=1, params=[]),
        Path(tempfile.mkdtemp(prefix=f"{prefix}-")))


def rel_err(got: torch.Tensor, ref: torch.Tensor) -> float:
    """Relative L2 error over the reference's finite entries (log-softmax's -inf where x is -inf
    would make it NaN); inf where the non-finite entries differ."""
    finite = torch.isfinite(ref)
    if not torch.equal(torch.isfinite(got), finite):
        return float("inf")
    return ((got.double()[finite] - ref[finite]).norm() / ref[finite].norm()).item()


def time_beside_zoo_and_copy(x: torch.Tensor, fns: dict[str, Callable[[], object]],
                             errors: dict, flusher: L2Flusher, ref: torch.Tensor,
                             op: str = "softmax") -> tuple[dict[str, float], list[str]]:
    """Add `kernel_zoo.ops.<op>` (softmax or log_softmax) over x's last dim (its relative L2 error
    against the float64 `ref` into `errors["zoo"]`) and a copy of x's bytes to `fns`; time them all
    as CUDA-graph replays, interleaved and L2-flushed; print each beside the copy. Returns the
    medians in us by name, and the names whose graph capture failed (timed as plain calls)."""
    rows, cols = x.shape
    zoo_op = getattr(ops, op)
    got = zoo_op(x, dim=-1)
    errors["zoo"] = rel_err(got, ref)
    return time_beside_copy(x, dict(fns, zoo=lambda: zoo_op(x, dim=-1)), flusher,
                            f"{op} {rows}x{cols}")


def time_beside_copy(x: torch.Tensor, fns: dict[str, Callable[[], object]], flusher: L2Flusher,
                     label: str) -> tuple[dict[str, float], list[str]]:
    """`fns` and a copy of x's bytes timed as CUDA-graph replays, interleaved and L2-flushed, each
    printed after `label` beside the copy. Returns the medians in us by name, and the names whose
    graph capture failed (timed as plain calls)."""
    out = torch.empty_like(x)
    fns = dict(fns, copy=lambda: out.copy_(x))
    graphs, failed = graphed_where_possible(fns)
    timed = bench(graphs, flusher=flusher, budget_ms=300.0, rounds=5)
    us = {name: round(t.median_ms * 1000, 2) for name, t in timed.items()}
    for name, value in us.items():
        print(f"{label} {name:32s} {value:8.2f} us  {us['copy'] / value:5.2f} of copy",
              flush=True)
    return us, failed


def write_probe(out_dir: str | Path, stem: str, what: str, shapes: list[dict],
                **extra) -> Path:
    """<out_dir>/<stem>-<device>.json: `what`, `extra`, the run's environment and the shapes."""
    path = Path(out_dir) / f"{stem}-{device_label()}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"what": what, **extra, "environment": environment(),
                                "dtype": "float32", "shapes": shapes}, indent=1) + "\n")
    print("wrote", path)
    return path
