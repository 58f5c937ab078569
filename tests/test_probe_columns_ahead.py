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


def test_looped_renders_take_the_looped_path_and_are_correct(probe, monkeypatch):
    """--looped's renders of the served params (tile_elems 8192): 1000 channels go to the looped
    column kernels, at the columns each render is named for, and give torch's softmax."""
    import tempfile
    from pathlib import Path

    from verifier.core import load_candidate

    for op in ("softmax", "log_softmax"):
        sources = probe.looped_sources(op)
        assert len(sources) == len(probe.LOOPED_COLUMNS) * len(probe.LOOPED_KNOBS)
        for name in ("c32_lp0_lb8192_lw8", "c64_lp2_lb4096_lw16"):
            module = load_candidate(sources[name], Path(tempfile.mkdtemp()))
            launched = []
            real = module._launch
            monkeypatch.setattr(module, "_launch", lambda kernel, grid, args, kwargs:
                                (launched.append((kernel.__name__, kwargs["BLOCK_I"])),
                                 real(kernel, grid, args, kwargs))[1])
            # 4 SMs: 16 tiles of 32 columns or 8 of 64 keep the grid at 2 programs an SM
            monkeypatch.setattr(module, "_sm_count", lambda index: 4)
            x = torch.randn(4, 1000, 128) * 4.0
            want = getattr(torch, op)(x.double(), dim=1)
            torch.testing.assert_close(module.ModelNew()(x).double(), want, rtol=1e-5,
                                       atol=1e-6)
            kernel = "_softmax_columns_grid_kernel" if "lp0" not in name else \
                "_softmax_columns_kernel"
            assert launched == [(kernel, int(name[1:3]))], (op, name, launched)


@pytest.mark.parametrize("op", ["copy", "softmax", "log_softmax"])
def test_parts_kernel_matches_torch_over_dim_1(probe, op):
    """--parts' kernel: the reduced dim in parts read in turn, the last written first, the
    others read again; ragged parts, a column of -inf and a partial column block."""
    torch.manual_seed(1)
    for shape, block_i, parts in (((3, 37, 40), 16, 2), ((2, 100, 33), 32, 4),
                                  ((1, 5, 16), 16, 8)):
        x = torch.randn(*shape) * 4.0
        x[0, :, 1] = float("-inf")
        want = x.double() if op == "copy" else getattr(torch, op)(x.double(), dim=1)
        launch, y = probe.columns_parts(x, op, block_i, parts, warps=4, cap=0)
        assert launch() is y
        torch.testing.assert_close(y.double(), want, rtol=1e-5, atol=1e-5, equal_nan=True,
                                   msg=str((shape, block_i, parts)))
