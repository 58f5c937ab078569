"""bench/retime_promotions.py without a GPU: which files it pairs, and how it reads the timings."""

import json

import pytest

import bench_scripts
from conftest import ROOT, copy_entry


def _margins(rows):
    return {"gpu": "h200", "rows": rows}


def _row(version, bucket, **kw):
    return dict({"op": "softmax", "dtype": "float32", "bucket": bucket, "round": 416,
                 "version": version, "gain": 1.015, "in_the_pack": True, "served": True}, **kw)


def test_a_served_promotion_is_paired_with_the_file_the_entry_before_it_served(tmp_path):
    """softmax 1.38.0 promoted float32's cols_le_65536 on the H200 (round 416); 1.39.0 serves
    it still. The pair is 1.39.0's file for that bucket against 1.37.0's, with the task and the
    shapes 1.39.0's verdict names; rows not in the pack, or no longer served, are left out."""
    rp = bench_scripts.load("retime_promotions")
    zoo = tmp_path / "zoo"
    for version in ("1.37.0", "1.38.0", "1.39.0"):
        copy_entry(ROOT / "kernel_zoo" / "entries", "softmax", version, zoo)
    rows = [_row("1.38.0", "cols_le_65536"), _row("1.38.0", "cols_le_1024", in_the_pack=False),
            _row("1.38.0", "cols_le_4096", served=False)]
    [pair] = rp.pairs(_margins(rows), zoo)
    manifests = {v: json.loads((zoo / "softmax" / v / "manifest.json").read_text())
                 for v in ("1.37.0", "1.39.0")}

    def serving(version):
        return next(c for c in reversed(manifests[version]["configs"])
                    if (c["arch"], c["dtype"], c["shape_bucket"], c.get("device"))
                    == ("sm_90", "float32", "cols_le_65536", "NVIDIA H200"))

    assert (pair["served"]["version"], pair["replaced"]["version"]) == ("1.39.0", "1.37.0")
    assert pair["served"]["params"] == serving("1.39.0")["params"]
    assert pair["replaced"]["params"] == serving("1.37.0")["params"]
    assert pair["served"]["source"] != pair["replaced"]["source"]
    assert "@triton.jit" in pair["replaced"]["source"]
    assert pair["task"] == "softmax"
    assert pair["shapes"] == [s["shape"] for s in serving("1.39.0")["verdict"]["shapes"]]


def test_the_first_entry_replaced_nothing(tmp_path):
    rp = bench_scripts.load("retime_promotions")
    zoo = tmp_path / "zoo"
    copy_entry(ROOT / "kernel_zoo" / "entries", "softmax", "1.37.0", zoo)
    with pytest.raises(rp.store.ZooError, match="replaced nothing"):
        rp.pairs(_margins([_row("1.37.0", "cols_le_65536")]), zoo)


def test_the_verdict_needs_the_margin_and_every_graph_of_one_side_beyond_the_other():
    rp = bench_scripts.load("retime_promotions")
    assert rp.MIN_GAIN == bench_scripts.load("tune_buckets").MIN_GAIN
    assert rp.verdict(1.02, 1.004, 1.03) == "replaced_faster"
    assert rp.verdict(1.02, 0.998, 1.03) == "level"  # a served graph as fast as a replaced one
    assert rp.verdict(1.005, 1.001, 1.01) == "level"  # under the margin
    assert rp.verdict(0.98, 0.96, 0.995) == "served_faster"
    assert rp.verdict(0.98, 0.96, 1.002) == "level"


def test_a_file_is_timed_as_the_mean_of_its_graphs_captured_in_turn():
    """Three graphs a side, captured served-first in ABBA order; at two shapes and two passes the
    ratio is the geometric mean of the sides' mean times, `apart` compares the served file's
    fastest graph with the replaced file's slowest."""
    rp = bench_scripts.load("retime_promotions")
    assert [side for side, _ in rp.CAPTURE_ORDER] == ["served", "replaced", "replaced", "served",
                                                      "served", "replaced"]
    assert sorted(rp.CAPTURE_ORDER) == sorted((side, k) for side in ("served", "replaced")
                                              for k in range(rp.GRAPHS))
    # per shape: side -> per graph -> per pass
    wide = {"served": [[10.4, 10.4], [10.5, 10.5], [10.6, 10.6]],
            "replaced": [[10.0, 10.0], [10.1, 10.1], [10.2, 10.2]]}  # 5/10.1 faster, all apart
    close = {"served": [[20.0, 20.0], [20.4, 20.4], [20.8, 20.8]],
             "replaced": [[20.0, 20.0], [20.0, 20.0], [20.0, 20.0]]}  # 2% on the mean, overlap
    got = rp.summarize([{"ms": wide}], 2)
    assert got["verdict"] == "replaced_faster" and got["median_ratio"] == round(10.5 / 10.1, 4)
    assert got["median_apart"] == round(10.4 / 10.2, 4)
    got = rp.summarize([{"ms": close}], 2)
    assert got["median_ratio"] == 1.02 and got["median_apart"] == 1.0 and got["verdict"] == "level"
    both = rp.summarize([{"ms": wide}, {"ms": close}], 2)
    assert both["ratios"] == [round(((10.5 / 10.1) * 1.02) ** 0.5, 4)] * 2


def test_the_command_lists_the_shipped_pairs_and_says_what_it_needs(capsys, tmp_path):
    """--dry-run lists every served in-the-pack promotion of the shipped record from the shipped
    zoo; a timing run without CUDA, or without the record, is refused with what to do."""
    rp = bench_scripts.load("retime_promotions")
    record = json.loads((ROOT / "bench" / "results" / "promotion-margins-h200.json").read_text())
    assert rp.main(["--dry-run"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert len(listed) == record["in_the_pack_still_served"]
    if not rp.torch.cuda.is_available():
        assert rp.main([]) == 2
        assert "needs a CUDA GPU" in capsys.readouterr().err
    assert rp.main(["--margins", str(tmp_path / "none.json")]) == 2
    assert "run bench/promotion_margins.py" in capsys.readouterr().err
