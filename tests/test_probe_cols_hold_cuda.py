"""bench/probe_cols_hold_cuda.py: its CUDA C++ builds for sm_90 (nvcc needs no GPU), and on a GPU
every variant gives torch's softmax and log-softmax over dim 1 at a small shape, a column of -inf
only (NaN, as torch gives), a run of -inf, a +inf and a NaN included, judged as the verifier
judges a candidate (verifier.tolerance.compare: float64 reference, float32 tolerance, torch's own
float32 result for the norm-wise bound), and its copy (the same walk, no arithmetic) gives the
input bit for bit.

Round 460 held them to allclose(rtol=1e-5, atol=1e-6) instead: log-softmax's largest outputs are
~15 in magnitude here, and torch's own float32 log-softmax misses that bound by 3x on the CPU."""

import pytest
import torch

import bench_scripts
from kernel_zoo import cuda_ext
from verifier.tolerance import compare, tolerance_for


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
    if mode != "copy":
        ref = getattr(torch, mode)(x.double(), dim=1)
        same_dtype = getattr(torch, mode)(x, dim=1)
    for name in probe.VARIANTS:
        entry = probe.entry_name(name, mode)
        y = torch.full_like(x, float("nan"))
        kernels.run(entry, x, y)
        torch.cuda.synchronize()
        if mode == "copy":
            assert torch.equal(y.view(torch.int32), x.view(torch.int32)), entry
            continue
        verdict = compare(y, ref, same_dtype, tolerance_for("float32"))
        assert verdict.ok, (entry, verdict)
        # a column of -inf only gives NaN, as torch does
        assert torch.isnan(y[0, :, 3]).all() and torch.isfinite(y[:, :, :3]).all(), entry
    wide = next(name for name, variant in probe.VARIANTS.items() if variant[0] == 64)
    with pytest.raises(ValueError, match="contiguous float32"):  # 96 columns: not 64-wide tiles
        kernels.run(probe.entry_name(wide, mode), x[:, :, :96], x[:, :, :96])
