"""bench/probe_inner_block.py without a GPU: its rewrites of the served dim-1 softmax and
log-softmax kernels run under Triton's interpreter and match float64 (so the GPU run times right
answers), set the column block they name, and refuse a source the template has changed under
them."""

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def probe():
    spec = importlib.util.spec_from_file_location("probe_inner_block",
                                                  ROOT / "bench" / "probe_inner_block.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["probe_inner_block"] = module
    spec.loader.exec_module(module)
    return module


def test_every_variant_is_right_on_a_small_input(probe, tmp_path):
    # 100 rows reduced (a one-pass tile of 128), 96 columns: BLOCK_I 64 leaves a masked half block
    rows, fns, _ = probe.check((2, 100, 96), "cpu", tmp_path)
    assert set(rows) == set(fns) == set(probe.sources())
    assert len(rows) == len(probe.OPS) * (1 + len(probe.VARIANTS))
    for name, row in rows.items():
        assert row["rel_l2_err"] < 1e-5, name


def test_a_rewrite_sets_the_block_and_warps_and_the_cap(probe):
    _, source = probe.served_source("softmax")
    assert probe.CAP in source and probe.WARPS_LINE in source
    wide = probe.rewrite(source, 32, 32, keep_cap=False)
    assert "        block_i, warps = 32, 32\n" in wide and probe.WARPS_LINE not in wide
    assert "maxnreg=64" not in wide.split("def _softmax_inner_dim")[1].split("return y")[0]
    capped = probe.rewrite(source, 64, 32, keep_cap=True)
    assert "        block_i, warps = 64, 32\n" in capped and probe.CAP in capped
    with pytest.raises(ValueError, match="template changed"):
        probe.rewrite(source.replace(probe.CAP, ""), 32, 32, keep_cap=True)


def test_a_bad_shape_is_a_usage_error_not_a_traceback(probe, capsys):
    for bad in ("32,1000", "a,b,c", "0,10,10"):
        with pytest.raises(SystemExit) as exit_:
            probe.main(["--shape", bad])
        assert exit_.value.code == 2 and "--shape" in capsys.readouterr().err
