"""bench/probe_columns_ahead.py's kernels in Triton's interpreter: the persistent column walk
(each chunk's registers loaded from the next tile as it is stored, or the whole next tile first)
and the served tile's copy give what torch does over dim 1, at ragged shapes, with a column of
-inf, and with grids of one program up to more programs than tiles."""

import pytest
import torch

import bench_scripts


@pytest.fixture(scope="module")
def probe():
    if torch.cuda.is_available():
        pytest.skip("the interpreter's path (CPU tensors)")
    return bench_scripts.load("probe_columns_ahead")


@pytest.mark.parametrize("shape", [(3, 37, 40), (2, 64, 16), (1, 5, 33)])
@pytest.mark.parametrize("early", [False, True])
def test_walk_matches_torch_over_dim_1(probe, shape, early):
    torch.manual_seed(0)
    x = torch.randn(*shape) * 4.0
    x[0, :, 1] = float("-inf")  # a column of -inf: NaN out of both softmaxes, as torch gives
    want = {"copy": x.double(), "softmax": torch.softmax(x.double(), dim=1),
            "log_softmax": torch.log_softmax(x.double(), dim=1)}
    for op, ref in want.items():
        for programs in (1, 2, 7, 100):  # one walks every tile; 100 is more than there are
            launch, y = probe.columns_ahead(x, op, programs, warps=4, early=early)
            out = launch()
            assert out is y
            assert torch.allclose(out.double(), ref, rtol=1e-5, atol=1e-6, equal_nan=True), \
                (op, programs)
            assert torch.isnan(out[0, :, 1]).all() == (op != "copy")


def test_served_tile_copy(probe):
    x = torch.randn(3, 37, 40)
    launch, y = probe.columns_copy(x, warps=4, cap=0)
    assert torch.equal(launch(), x)


def test_every_copy_geometry_copies(probe):
    x = torch.randn(2, 37, 40)
    for block_i, block_r, _, _ in probe.COPIES.values():
        launch, y = probe.columns_copy(x, warps=1, cap=0, block_i=min(block_i, 64),
                                       block_r=min(block_r, 16))
        assert torch.equal(launch(), x), (block_i, block_r)
