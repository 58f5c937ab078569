"""bench/linear_skinny.py's summary, without a GPU: which rows each geomean counts."""

import math

import pytest

import bench_scripts


@pytest.fixture(scope="module")
def linear_skinny():
    return bench_scripts.load("linear_skinny")


def _row(rows, served, eager, previous, wrong=()):
    return {"op": "matmul", "dtype": "bfloat16", "rows": rows, "in_features": 4096,
            "out_features": 4096, "zoo_served": served, "wrong": list(wrong),
            "zoo_vs_eager": eager, "zoo_vs_compile": eager, "zoo_vs_previous": previous}


def test_the_previous_entry_is_compared_only_where_the_newest_one_serves(linear_skinny):
    """A row the entry does not serve runs the op's fallback: it counts against eager (what a
    user's call gets) but not against the previous entry (round 444: 1.039x over all rows of
    matmul's sweep, 1.011x over the served ones)."""
    rows = [_row(40, True, 1.2, 1.1), _row(48, True, 1.2, 0.9),
            _row(64, False, 1.0, 1.5, wrong=("previous",))]
    summary = linear_skinny.summarize(rows)
    assert summary["geomean_zoo_vs_previous"] == pytest.approx(math.sqrt(1.1 * 0.9))
    assert summary["geomean_zoo_vs_previous_matmul"] == pytest.approx(math.sqrt(1.1 * 0.9))
    assert summary["geomean_zoo_vs_eager"] == pytest.approx((1.2 * 1.2 * 1.0) ** (1 / 3))
    assert "geomean_zoo_vs_cublas_gemm" not in summary  # no row timed it
    assert summary["not_served"] == ["matmul bfloat16 64x4096->4096"]
    assert summary["wrong"] == ["matmul bfloat16 64x4096->4096: ['previous']"]
