"""kernel_zoo.toolchain: the zoo's Triton kernels are assembled by torch's ptxas where torch ships
one, chosen before anything of ours compiles, so a kernel's code does not depend on whether
torch.compile ran first in the process."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from kernel_zoo import toolchain

ROOT = Path(__file__).resolve().parents[1]


def _unset_ptxas_env(monkeypatch) -> None:
    """TRITON_PTXAS_PATH unset for the test and restored after it, whatever the test sets (a
    plain delenv of an absent variable records nothing to restore)."""
    monkeypatch.setenv(toolchain.PTXAS_ENV, "")
    monkeypatch.delenv(toolchain.PTXAS_ENV)


def _fake_torch_with_ptxas(tmp_path: Path, monkeypatch) -> Path:
    """A torch install root holding an executable bin/ptxas that answers --version, as torch's
    CUDA wheels do (its CPU wheel, this machine's, ships none)."""
    import torch

    root = tmp_path / "torch"
    (root / "bin").mkdir(parents=True)
    ptxas = root / "bin" / "ptxas"
    ptxas.write_text("#!/bin/sh\necho 'Cuda compilation tools, release 13.0, V13.0.88'\n")
    ptxas.chmod(0o755)
    monkeypatch.setattr(torch, "__file__", str(root / "__init__.py"))
    return ptxas


def test_torch_ptxas_is_used_unless_triton_ptxas_path_is_set(tmp_path, monkeypatch):
    _unset_ptxas_env(monkeypatch)
    ptxas = _fake_torch_with_ptxas(tmp_path, monkeypatch)
    assert toolchain.torch_ptxas() == ptxas.resolve()
    assert toolchain.use_torch_ptxas() == str(ptxas.resolve())
    assert os.environ[toolchain.PTXAS_ENV] == str(ptxas.resolve())
    # a path already set (the user's, or torch.compile's) is left as it is
    monkeypatch.setenv(toolchain.PTXAS_ENV, "/opt/cuda/bin/ptxas")
    assert toolchain.use_torch_ptxas() == "/opt/cuda/bin/ptxas"
    assert os.environ[toolchain.PTXAS_ENV] == "/opt/cuda/bin/ptxas"


def test_a_ptxas_torch_cannot_run_is_not_chosen(tmp_path, monkeypatch):
    _unset_ptxas_env(monkeypatch)
    ptxas = _fake_torch_with_ptxas(tmp_path, monkeypatch)
    ptxas.chmod(0o644)
    assert toolchain.torch_ptxas() is None
    assert toolchain.use_torch_ptxas() is None
    assert toolchain.PTXAS_ENV not in os.environ


def test_loading_a_candidate_or_a_zoo_kernel_chooses_the_ptxas_first(tmp_path, monkeypatch):
    """Both ways a kernel file enters a process (the verifier's load_candidate, the zoo's
    load_kernel) make the choice before the file's kernels can compile."""
    import torch

    from kernel_zoo import store
    from verifier.core import load_candidate

    source = "import torch\n\nclass ModelNew(torch.nn.Module):\n    pass\n"
    for load in ("candidate", "zoo"):
        _unset_ptxas_env(monkeypatch)
        ptxas = _fake_torch_with_ptxas(tmp_path / load, monkeypatch)
        if load == "candidate":
            load_candidate(source, tmp_path / "cache")
        else:
            entry = tmp_path / "entry"
            entry.mkdir(exist_ok=True)
            (entry / "k.py").write_text(source)
            manifest = {"schema": 1, "files": {"k.py": store.sha256_bytes(source.encode())}}
            store.load_kernel(entry, {"file": "k.py"}, manifest)
        assert os.environ[toolchain.PTXAS_ENV] == str(ptxas.resolve()), load
        monkeypatch.setattr(torch, "__file__", torch.__spec__.origin)


def test_without_torch_ptxas_the_environment_names_tritons_own(monkeypatch):
    """This machine's torch (a CPU wheel) ships no ptxas: nothing is set, and the JSON every
    bench script writes names the ptxas Triton assembles with."""
    from verifier.environment import environment

    _unset_ptxas_env(monkeypatch)
    if toolchain.torch_ptxas() is not None:
        pytest.skip("this torch ships a ptxas")
    env = environment()
    assert toolchain.PTXAS_ENV not in os.environ
    assert env["ptxas"] is not None
    assert Path(env["ptxas"]["path"]).name == "ptxas"
    assert "triton" in env["ptxas"]["path"]
    assert env["ptxas"]["version"][0].isdigit()


@pytest.mark.gpu
def test_zoo_kernels_compile_with_torch_ptxas_before_torch_compile_runs():
    """In a fresh process, a zoo op called before torch.compile has compiled anything is already
    assembled by torch's ptxas (where torch ships one), and torch.compile then keeps that choice."""
    script = textwrap.dedent("""
        import os, torch
        from kernel_zoo import ops, toolchain
        assert "TRITON_PTXAS_PATH" not in os.environ
        x = torch.randn(64, 4097, device="cuda", dtype=torch.bfloat16)
        torch.testing.assert_close(ops.softmax(x, -1), torch.softmax(x, -1))
        chosen = os.environ.get("TRITON_PTXAS_PATH")
        torch.compile(lambda t: torch.softmax(t * 2, -1))(x)
        print(chosen, os.environ.get("TRITON_PTXAS_PATH"), toolchain.torch_ptxas())
    """)
    env = {k: v for k, v in os.environ.items() if k != "TRITON_PTXAS_PATH"}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    chosen, after, torch_ptxas = done.stdout.split()[-3:]
    if torch_ptxas == "None":
        assert chosen == after == "None"
    else:
        assert chosen == after == torch_ptxas
