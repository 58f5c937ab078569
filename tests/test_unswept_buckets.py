"""bench/unswept_buckets.py: the buckets the shipped zoo serves an H200 with another GPU's config,
and the sweeps (tune_buckets' JSONs, in round folders or loose) that timed them on an H200."""

import gzip
import json
import sys
from pathlib import Path

import pytest

import bench_scripts

ROOT = Path(__file__).resolve().parents[1]
ZOO = ROOT / "kernel_zoo" / "entries"


@pytest.fixture(scope="module")
def tool():
    return bench_scripts.load("unswept_buckets")


def _sweep(path: Path, *keys, search=None):
    path.parent.mkdir(parents=True, exist_ok=True)
    results = [{"op": op, "dtype": dtype, "buckets": {bucket: {}}} for op, dtype, bucket in keys]
    text = json.dumps({"results": results, **({"search": search} if search else {})})
    if path.name.endswith(".gz"):  # as the round folders under bench/results/runs/ keep them
        path.write_bytes(gzip.compress(text.encode(), mtime=0))
    else:
        path.write_text(text)


def test_a_bucket_is_listed_with_the_sweeps_that_timed_it_on_that_gpu(tool, tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    rows = tool.foreign_buckets(ZOO, "NVIDIA H200", runs)
    assert rows and all(not r["swept_in"] for r in rows)  # no sweeps read: none swept
    assert all(r["served_from"] != "NVIDIA H200" for r in rows)
    first, second = rows[0], rows[1]
    key = (first["op"], first["dtype"], first["bucket"])
    _sweep(runs / "tune-buckets-h200-round7" / "a.json", key)
    _sweep(runs / "tune-buckets-h200-round9" / "b.json.gz", key)
    _sweep(runs / "tune-buckets-h200-20260101-000000.json.gz",
           (second["op"], second["dtype"], second["bucket"]))
    _sweep(runs / "tune-buckets-h100-round8" / "c.json.gz", key)  # another GPU's: not counted
    _sweep(runs / "tune-buckets-h200-round9" / "notes.txt", (second["op"], second["dtype"],
                                                             second["bucket"]))  # not a record
    (runs / "tune-buckets-h200-round10").mkdir()
    (runs / "tune-buckets-h200-round10" / "cut.json").write_text('{"results": [')  # ran out
    whole = gzip.compress(b'{"results": [{"op": "x", "dtype": "float32", "buckets": {}}]}')
    (runs / "tune-buckets-h200-round10" / "cut.json.gz").write_bytes(whole[:len(whole) // 2])
    found = {(r["op"], r["dtype"], r["bucket"]): r["swept_in"]
             for r in tool.foreign_buckets(ZOO, "NVIDIA H200", runs)}
    assert found[key] == ["round7", "round9"]
    assert found[(second["op"], second["dtype"], second["bucket"])] == ["20260101-000000"]
    assert sum(1 for v in found.values() if v) == 2


def test_a_partial_sweep_is_named_for_what_it_searched(tool, tmp_path):
    """A sweep of a few knobs' variants, or of those around the served configs, is not a full
    one: the record's `search` says so, and the listing keeps it apart from a full sweep."""
    runs = tmp_path / "runs"
    (first, second, third) = tool.foreign_buckets(ZOO, "NVIDIA H200", runs.parent / "none")[:3]
    keys = [(r["op"], r["dtype"], r["bucket"]) for r in (first, second, third)]
    _sweep(runs / "tune-buckets-h200-round7" / "a.json", keys[0],
           search={"samples": 0, "knobs": ["row_lag", "row_ahead"], "local": False})
    _sweep(runs / "tune-buckets-h200-round8" / "b.json", keys[1],
           search={"samples": 0, "knobs": [], "local": True})
    _sweep(runs / "tune-buckets-h200-round8" / "c.json", keys[1],
           search={"samples": 0, "knobs": [], "local": False})
    _sweep(runs / "tune-buckets-h200-round9" / "d.json", keys[2],
           search={"samples": 10, "knobs": [], "local": False})
    # loose files (named for their date), the first a partial sweep: each keeps its own name
    _sweep(runs / "tune-buckets-h200-20260101-000000.json", keys[2],
           search={"samples": 0, "knobs": [], "local": True})
    _sweep(runs / "tune-buckets-h200-20260102-000000.json", keys[2])
    found = {(r["op"], r["dtype"], r["bucket"]): r["swept_in"]
             for r in tool.foreign_buckets(ZOO, "NVIDIA H200", runs)}
    assert found[keys[0]] == ["round7 (knobs row_lag,row_ahead)"]
    assert found[keys[1]] == ["round8 (local)", "round8"]
    assert found[keys[2]] == ["20260101-000000 (local)", "20260102-000000", "round9"]


def test_a_bucket_served_its_own_gpus_config_is_not_listed(tool, tmp_path):
    from kernel_zoo import store

    listed = {(r["op"], r["dtype"], r["bucket"])
              for r in tool.foreign_buckets(ZOO, "NVIDIA H200", tmp_path)}
    own = [(op, config["dtype"], config["shape_bucket"])
           for op in store.op_names([ZOO])
           for config in store.newest_entries(op, [ZOO])[0].manifest["configs"]
           if config["device"] == "NVIDIA H200" and config["arch"] == "sm_90"]
    assert own  # the shipped zoo holds H200 configs (rounds 334-405)
    assert not listed & set(own)


def test_the_cli_prints_a_summary_and_json_and_names_a_missing_folder(tool, tmp_path, capsys):
    assert tool.main(["--runs", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "buckets serve NVIDIA H200 a config tuned elsewhere" in out and "swept: never" in out
    assert tool.main(["--runs", str(tmp_path), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows and {"op", "version", "dtype", "bucket", "served_from", "swept_in"} <= set(rows[0])
    with pytest.raises(SystemExit) as exit_:
        tool.main(["--runs", str(tmp_path / "nope")])
    assert exit_.value.code == 2 and "--runs" in capsys.readouterr().err


def test_output_piped_into_a_reader_that_stops_early_ends_quietly(tool, tmp_path, monkeypatch):
    import os

    read_end, write_end = os.pipe()

    class Closed:  # a stdout whose reader has gone, as `| head` leaves it
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self):
            pass

        def fileno(self):
            return write_end

    monkeypatch.setattr(sys, "stdout", Closed())
    assert tool.cli(["--runs", str(tmp_path), "--json"]) == 0
    os.close(read_end)
    os.close(write_end)
    with pytest.raises(BrokenPipeError):  # and `main` alone does raise it
        tool.main(["--runs", str(tmp_path), "--json"])
