"""bench/probe_gluon_gemm.py: the warp-specialized Gluon GEMM builds for sm_90a on a machine with no
GPU (with the installed Triton, whose Gluon names differ from the GPU machine's 3.6), and on a GPU
it is right where a program runs several tiles, the case its consumers' turn barrier exists for."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
PROBE = ROOT / "bench" / "probe_gluon_gemm.py"


def test_probe_compiles_for_hopper_without_a_gpu():
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    done = subprocess.run([sys.executable, str(PROBE), "--compile-only"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [line for line in done.stdout.splitlines() if "compiled" in line]
    assert len(lines) == 5, done.stdout
    for line in lines:
        # two consumer warp groups and a producer: registers moved between them, every wgmma
        # of both consumers' 128x128 tiles present, and shared memory within an H100's 227 KB
        found = re.search(r"setmaxnreg: \[([^]]*)\]", line).group(1)
        regs = set(found.replace("'", "").split(", "))
        assert {"232", "40"} <= regs or {"240", "24"} <= regs, line
        assert int(re.search(r"wgmma: (\d+)", line).group(1)) == 16, line
        assert int(re.search(r"shared: (\d+)", line).group(1)) <= 232448, line


def test_probe_refuses_compile_only_under_the_interpreter():
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    done = subprocess.run([sys.executable, str(PROBE), "--compile-only"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    assert "unset TRITON_INTERPRET" in done.stderr


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
@pytest.mark.parametrize("programs", [None, 4, 32])
def test_probe_kernel_is_right_with_many_tiles_a_program(programs):
    # GPU round 242: with two or more tiles a program, consumer 1 read a stage's earlier lap as
    # its own before the turn barrier; 4 and 32 programs at 1024^3 give 16 and 2 tiles each
    sys.path.insert(0, str(ROOT / "bench"))
    import torch.nn.functional as F

    import probe_gluon_gemm as probe

    for tokens, k_in, n_out in ((1024, 1024, 1024), (1000, 1024, 3000)):
        torch.manual_seed(0)
        x = torch.randn(tokens, k_in, device="cuda", dtype=torch.bfloat16)
        w = (torch.randn(n_out, k_in, device="cuda") / k_in ** 0.5).to(torch.bfloat16)
        b = torch.randn(n_out, device="cuda", dtype=torch.bfloat16)
        ref = F.gelu(x.double() @ w.double().T + b.double())
        eager = ((F.gelu(F.linear(x, w, b)).double() - ref).norm() / ref.norm()).item()
        got = probe.launch(x, w, b, programs=programs)[1]
        torch.cuda.synchronize()
        err = ((got.double() - ref).norm() / ref.norm()).item()
        assert err <= eager, (tokens, k_in, n_out, programs, err, eager)
