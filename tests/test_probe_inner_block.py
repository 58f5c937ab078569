"""bench/probe_inner_block.py without a GPU: its rewrites of the served dim-1 softmax and
log-softmax kernels run under Triton's interpreter and match float64 (so the GPU run times right
answers), set the column block they name, and refuse a source the template has changed under
them."""


import pytest

import bench_scripts
from verifier.tolerance import TOLERANCES


@pytest.fixture(scope="module")
def probe():
    # it imports bench/probe_log_softmax_dim1.py when a variant runs
    return bench_scripts.load("probe_inner_block", restore_path=False)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
def test_every_variant_is_right_on_a_small_input(probe, tmp_path, dtype):
    # 100 rows reduced (a one-pass tile of 128), 96 columns: BLOCK_I 64 leaves a masked half block
    rows, fns, x = probe.check((2, 100, 96), "cpu", tmp_path, dtype)
    assert str(x.dtype) == f"torch.{dtype}"
    assert set(rows) == set(fns) == set(probe.sources(dtype))
    assert len(rows) == len(probe.OPS) * (1 + len(probe.VARIANTS))
    for name, row in rows.items():
        assert row["rel_l2_err"] < row["tolerance"] and row["n_bad"] == 0, name
        # the verifier's bound: float32's 1e-5, and in 16 bits its rel_l2 (eager's own rounding
        # at this size is under it)
        assert row["tolerance"] == TOLERANCES[dtype]["rel_l2"], name


def test_a_rewrite_sets_the_block_and_warps_and_the_cap(probe):
    _, source = probe.served_source("softmax")
    assert probe.CAP in source and probe.WARPS_LINE in source
    wide = probe.rewrite(source, 32, 32, capped=False)
    assert "        block_i, warps = 32, 32\n" in wide and probe.WARPS_LINE not in wide
    assert "maxnreg=64" not in wide.split("def _softmax_inner_dim")[1].split("return y")[0]
    capped = probe.rewrite(source, 64, 32, capped=True)
    assert "        block_i, warps = 64, 32\n" in capped and probe.CAP in capped
    with pytest.raises(ValueError, match="template changed"):
        probe.rewrite(source.replace(probe.CAP, ""), 32, 32, capped=True)


def test_a_served_kernel_without_the_cap_gets_it_where_a_variant_asks(probe):
    # float16's served inner_dim configs launch the one-pass kernel uncapped (rounds 404-405)
    _, source = probe.served_source("softmax", "float16")
    assert probe.UNCAPPED_TAIL in source.split(probe.WARPS_LINE)[1].split("return y")[0]
    capped = probe.rewrite(source, 32, 16, capped=True)
    launch = capped.split("        block_i, warps = 32, 16\n")[1].split("return y")[0]
    assert "maxnreg=64" in launch
    assert "maxnreg=64" not in probe.rewrite(source, 32, 16, capped=False).split(
        "        block_i, warps = 32, 16\n")[1].split("return y")[0]


def test_a_bad_shape_is_a_usage_error_not_a_traceback(probe, capsys):
    for bad in ("32,1000", "a,b,c", "0,10,10"):
        with pytest.raises(SystemExit) as exit_:
            probe.main(["--shape", bad])
        assert exit_.value.code == 2 and "--shape" in capsys.readouterr().err
