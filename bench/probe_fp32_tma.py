"""Probe: `gelu(linear)` through the GEMM's descriptor (TMA) kernel in float32 and float16, at the
default 128x256x64 tiles and at 128x128x32, at an odd shape (K = 1000, N = 3073) and an aligned one.
Prints per case the path tma_plan chose and the max abs and relative L2 error against float64, or
the error raised (float32 at the default tiles needs more shared memory than an H100 has). Run
from the repository root on a CUDA GPU; bench/gpu_round12.sh and gpu_round17.sh keep its output.

    python bench/probe_fp32_tma.py
"""

from __future__ import annotations

import dataclasses
import importlib.util
import pathlib
import sys
import tempfile

import torch
import torch.nn.functional as F

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import tasks  # noqa: E402
from agent.plan import plan  # noqa: E402
from templates import get_template  # noqa: E402
from templates.gemm import TILED as DEFAULT  # noqa: E402 - the tiles it probed

CONFIGS = {"default+tma": dataclasses.replace(DEFAULT, use_tma=True),
           "128x128x32+tma": dataclasses.replace(DEFAULT, BLOCK_N=128, BLOCK_K=32, use_tma=True)}
SHAPES = ((515, 1000, 3073), (1024, 512, 768))  # (M, K, N)


def load(source: str):
    path = pathlib.Path(tempfile.mkdtemp()) / "probe_gemm.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    if not torch.cuda.is_available():
        sys.exit("bench/probe_fp32_tma.py needs a CUDA GPU")
    found = plan(tasks.load(ROOT / "tasks" / "linear_bias_gelu.py"))
    for name, cfg in CONFIGS.items():
        module = load(get_template("gemm").render(cfg, **found.context))
        for m, k, n in SHAPES:
            for dtype in (torch.float32, torch.float16):
                torch.manual_seed(0)
                x = torch.randn(m, k, device="cuda", dtype=dtype)
                w = torch.randn(n, k, device="cuda", dtype=dtype) / k ** 0.5
                b = torch.randn(n, device="cuda", dtype=dtype)
                path = module.tma_plan(x.unsqueeze(0), w.t().unsqueeze(0))
                try:
                    got = module.launch_linear_bias_gelu(x, w, b).double()
                    ref = F.gelu(F.linear(x.double(), w.double(), b.double()))
                    err = ((got - ref).abs().max().item(), ((got - ref).norm() / ref.norm()).item())
                except Exception as exc:  # a probe: the error is the finding
                    err = f"{type(exc).__name__}: {str(exc)[:200]}"
                print(name, (m, k, n), dtype, path, err, flush=True)


if __name__ == "__main__":
    main()
