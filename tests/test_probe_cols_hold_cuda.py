"""bench/probe_cols_hold_cuda.py: its CUDA C++ builds for sm_90 (nvcc needs no GPU), and on a GPU
every variant gives torch's softmax and log-softmax over dim 1 (float64 reference) at a small
shape, a column of -inf only (NaN, as torch gives) and a run of -inf included, and its copy
(the same walk, no arithmetic) gives the input."""

import pytest
import torch

import bench_scripts
from kernel_zoo import cuda_ext


@pytest.fixture(scope="module")
def probe():
    return bench_scripts.load("probe_cols_hold_cuda")


@pytest.mark.skipif(cuda_ext.find_nvcc() is None, reason="nvcc not found (CUDA_HOME, PATH, "
                    "/usr/local/cuda*/bin)")
def test_the_probe_builds_for_sm90(probe, tmp_path, monkeypatch):
    monkeypatch.setenv("KZOO_HOME", str(tmp_path / "home"))  # a real nvcc run, not a cached one
    path = cuda_ext.compile_source(probe.source(), arch="90")
    assert path.is_file() and path.name.endswith("_sm90.so")


@pytest.mark.gpu
@pytest.mark.parametrize("mode", ["softmax", "log_softmax", "copy"])
def test_every_variant_matches_torch(probe, mode):
    kernels = probe.Probe()
    x = probe.probe_input(probe.SHAPES[-1])
    ref = x.double() if mode == "copy" else getattr(torch, mode)(x.double(), dim=1)
    for name in probe.VARIANTS:
        entry = probe.entry_name(name, mode)
        y = torch.full_like(x, float("nan"))
        kernels.run(entry, x, y)
        torch.cuda.synchronize()
        assert torch.allclose(y.double(), ref, rtol=1e-5, atol=1e-6, equal_nan=True), entry
        if mode != "copy":  # a column of -inf only gives NaN, as torch does
            assert torch.isnan(y[0, :, 3]).all() and torch.isfinite(y[:, :, :3]).all(), entry
    with pytest.raises(ValueError, match="contiguous float32"):
        kernels.run(probe.entry_name("w64_t512_r16", mode), x[:, :, :96], x[:, :, :96])
