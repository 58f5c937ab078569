"""bench/tune_buckets.py's choices, without a GPU: which config wins a bucket, and when none does."""

import importlib.util
import sys
from pathlib import Path

import pytest

from templates import get_template

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def tune_buckets():
    spec = importlib.util.spec_from_file_location("tune_buckets", ROOT / "bench" / "tune_buckets.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["tune_buckets"] = module
    spec.loader.exec_module(module)
    return module


def _result(shapes, rows):
    return {"shapes": [{"bucket": b, "eager_ms": e, "compile_ms": c} for b, e, c in shapes],
            "rows": [{"ms": ms} for ms in rows]}


def test_a_bucket_goes_to_the_best_geomean_over_its_own_shapes(tune_buckets):
    result = _result(
        [("cols_le_1024", 10.0, 8.0), ("cols_le_16384", 50.0, 40.0), ("cols_le_16384", 30.0, 30.0)],
        [[7.0, 45.0, 29.0],   # wins cols_le_1024 (8/7); below 1x over cols_le_16384
         [9.0, 38.0, 28.0],   # cols_le_16384: (40/38 * 30/28) ** 0.5 > 1, faster than eager at both
         [6.0, 39.0, None]],  # the fastest at one shape, but failed another: never chosen
    )
    choices = tune_buckets.choose(result)
    assert choices["cols_le_1024"]["config"] == 0
    assert choices["cols_le_16384"]["config"] == 1
    assert choices["cols_le_16384"]["speedup_vs_best_baseline"] == pytest.approx(
        ((40 / 38) * (30 / 28)) ** 0.5)


def test_no_config_where_eager_wins_a_shape_or_the_best_baseline_the_geomean(tune_buckets):
    result = _result(
        [("cols_le_1024", 10.0, 20.0), ("cols_le_1024", 50.0, 100.0), ("inner_dim", 20.0, 10.0)],
        [[11.0, 20.0, 12.0]],  # 2.27x compile in cols_le_1024 but slower than eager at 10 us
    )
    choices = tune_buckets.choose(result)
    assert choices["cols_le_1024"]["config"] is None
    assert "eager" in choices["cols_le_1024"]["why"]
    assert choices["cols_le_1024"]["best_rejected"] == 0
    assert choices["inner_dim"]["config"] is None  # 12 us against compile's 10
    assert "geometric mean" in choices["inner_dim"]["why"]


@pytest.mark.parametrize("template", ["norm", "reduce"])
def test_candidates_are_valid_distinct_and_start_from_the_default(tune_buckets, template):
    tpl = get_template(template)
    configs = tune_buckets.candidate_configs(tpl, samples=5, seed=0)
    assert configs[0] == tpl.default
    assert len(configs) == len(set(configs)) > 10
    assert all(not tpl.violations(cfg) for cfg in configs)
    assert configs == tune_buckets.candidate_configs(tpl, samples=5, seed=0)  # seeded


def test_screening_compares_every_output_and_integers_exactly(tune_buckets):
    import torch

    close = tune_buckets._close
    x = torch.randn(4, 8)
    assert close(x.bfloat16(), x, "bfloat16")
    assert close((x, x + 1), (x, x + 1), "float32")
    assert not close((x, x), (x, x + 1), "float32")  # the second output is wrong
    assert not close(x[:1], x, "float32")  # a (1, 8) output would broadcast against (4, 8)
    idx = torch.arange(4)
    assert close(idx, idx.clone(), "bfloat16")
    assert not close(idx.int(), idx, "bfloat16")  # an integer output keeps the reference's dtype
    assert not close(idx, idx.flip(0), "bfloat16")
