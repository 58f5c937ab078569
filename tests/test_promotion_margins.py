"""bench/promotion_margins.py on a made-up tune_buckets record, without a GPU."""

import gzip
import json

import bench_scripts
from conftest import ROOT, copy_entry


def _record(configs, buckets):
    return {"results": [{"op": "softmax", "dtype": "float32", "configs": configs,
                         "buckets": buckets}]}


def test_a_promotion_is_placed_against_the_pack_it_was_picked_from(tmp_path):
    """A winner 2% ahead of a stored file that sits among twenty configs timed within 1% of each
    other is in the pack; one 10% ahead of all of them is not; a bucket promoted over no stored
    file, or not promoted, is left out. Whether the newest entry still serves the winner's params
    is read from the zoo given."""
    pm = bench_scripts.load("promotion_margins")
    pack = [{"params": {"i": i}, "ms": [0.0712 + 0.00003 * i]} for i in range(20)]
    configs = pack + [{"params": {"i": "win"}, "ms": [0.0700]},
                      {"params": {"i": "far"}, "ms": [0.0630]}, {"params": {}, "ms": [None]}]
    buckets = {
        "cols_le_65536": {"shapes": [0], "config": 20, "served_config": 3,
                          "promoted": {"version": "1.2.0"}},
        "cols_gt_65536": {"shapes": [0], "config": 21, "served_config": 3,
                          "promoted": {"version": "1.3.0"}},
        "cols_le_1024": {"shapes": [0], "config": 20, "served_config": None,
                         "promoted": {"version": "1.4.0"}},
        "inner_dim": {"shapes": [0], "config": 20, "served_config": 3},
    }
    runs = tmp_path / "runs" / "tune-buckets-h200-round449"
    runs.mkdir(parents=True)
    with gzip.open(runs / "tune-buckets-h200-1.json.gz", "wt") as handle:
        json.dump(_record(configs, buckets), handle)
    rows = pm.margins(tmp_path / "runs", "h200", tmp_path / "empty-zoo")
    assert [(r["bucket"], r["round"], r["version"]) for r in rows] == [
        ("cols_gt_65536", 449, "1.3.0"), ("cols_le_65536", 449, "1.2.0")]
    near, far = rows[1], rows[0]
    assert near["in_the_pack"] and 1.018 < near["gain"] < 1.019 and near["configs_timed"] == 22
    # faster than the stored file: 3 of the pack and the two winners
    assert near["lead_over_p10"] < pm.LEAD_UNDER and near["stored_rank"] == round(5 / 22, 3)
    assert not far["in_the_pack"] and far["gain"] > 1.1 and far["lead_over_p10"] > 1.1
    assert not near["served"] and not far["served"]  # no entries in that zoo

    zoo = tmp_path / "zoo"
    entry = copy_entry(ROOT / "kernel_zoo" / "entries", "softmax", "1.39.0", zoo)
    manifest = json.loads((entry / "manifest.json").read_text())
    served = next(c for c in manifest["configs"]
                  if c["dtype"] == "float32" and c.get("device") == "NVIDIA H200")
    newest = {}
    assert pm._still_served(newest, zoo, "softmax", "float32", served["shape_bucket"], "h200",
                            served["params"])
    assert not pm._still_served(newest, zoo, "softmax", "float32", served["shape_bucket"],
                                "h100", served["params"])
    assert not pm._still_served(newest, zoo, "softmax", "float32", served["shape_bucket"],
                                "h200", {"not": "these"})
