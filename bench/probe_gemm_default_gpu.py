"""Which of the GEMM DEFAULT's knobs the verifier rejects on the GPU (GPU round 45: the contract
rows of seven GEMM tasks failed in float32/float16 under the new DEFAULT). For `matmul` and
`linear_bias_gelu` at their GPU shapes, verifies DEFAULT and DEFAULT less one knob at a time
(correctness only) and prints each verdict's first reasons. Writes nothing.

    python bench/probe_gemm_default_gpu.py
"""

from __future__ import annotations

import dataclasses
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import tasks  # noqa: E402
from agent.plan import plan  # noqa: E402
from templates.gemm import DEFAULT  # noqa: E402
from verifier.core import Verifier  # noqa: E402

VARIANTS = {
    "default": {},
    "unflattened": {"flatten": False},
    "one_slice": {"EPILOGUE_SPLIT": 1},
    "libdevice_gelu": {"gelu_erf_fit": False},
    "per_tile": {"persistent": 0, "flatten": False},
    "pointer_loads": {"use_tma": False},
}


def main() -> None:
    verifier = Verifier("gpu", Path(tempfile.mkdtemp(prefix="kzoo-probe-default-")))
    for name in ("matmul", "linear_bias_gelu"):
        task = tasks.load(ROOT / "tasks" / f"{name}.py")
        found = plan(task)
        template = found.template_object()
        for label, changes in VARIANTS.items():
            cfg = dataclasses.replace(DEFAULT, **changes)
            source = template.render(cfg, **found.context)
            for dtype in ("float16", "float32"):
                verdict = verifier.verify(task, source, dtype, time=False)
                print(f"{name:18s} {label:16s} {dtype:8s} accepted={verdict.accepted} "
                      f"{[r[:220] for r in verdict.reasons[:2]]}", flush=True)


if __name__ == "__main__":
    main()
