"""bench/memory_bound.py's summaries, without a GPU: the issue's bars and how far two timers agree."""

from pathlib import Path

import pytest

import bench_scripts

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def memory_bound():
    return bench_scripts.load("memory_bound")


def _row(task, graph_vs_compile, ahead_vs_compile, against_graph, large=False):
    return {"task": task, "op": task, "dtype": "bfloat16", "shape": {"rows": 1}, "large": large,
            "zoo_rel_l2_err": 1e-3, "speedup_vs_compile": graph_vs_compile,
            "zoo": {"fraction_of_copy": 0.95},
            "host_ahead": {"zoo": {"against_graph": against_graph[0]},
                           "eager": {"against_graph": against_graph[1]},
                           "compile": {"against_graph": against_graph[2]},
                           "speedup_vs_compile": ahead_vs_compile}}


def test_timer_agreement_names_the_rows_apart_and_the_verdicts_that_flip(memory_bound):
    rows = [_row("sum", 1.05, 1.04, (1.01, 1.0, 1.0)),
            _row("argmax", 1.05, 0.99, (1.09, 1.0, 1.02)),  # the verdict against compile flips
            _row("mean", 0.98, 0.97, (0.99, 1.05, 1.0))]
    agreement = memory_bound.timer_agreement(rows)
    assert agreement["zoo"]["median"] == pytest.approx(1.01)
    assert agreement["zoo"]["min"] == pytest.approx(0.99)
    assert agreement["zoo"]["max"] == pytest.approx(1.09)
    assert [r.split(" ")[0] for r in agreement["zoo"]["rows_off_by_3pct"]] == ["argmax"]
    assert [r.split(" ")[0] for r in agreement["eager"]["rows_off_by_3pct"]] == ["mean"]
    assert agreement["compile"]["rows_off_by_3pct"] == []
    assert [r.split(" ")[0] for r in agreement["verdict_vs_compile_differs"]] == ["argmax"]


def test_acceptance_reads_the_bars_from_the_rows(memory_bound):
    rows = [_row("sum", 1.3, 1.3, (1, 1, 1), large=True),
            _row("mean", 1.25, 1.25, (1, 1, 1))]
    assert memory_bound.acceptance(rows)["passes"]
    rows.append(_row("amax", 0.99, 0.99, (1, 1, 1)))
    verdict = memory_bound.acceptance(rows)
    assert not verdict["passes"] and [r.split(" ")[0] for r in verdict["slower_than_compile"]] == [
        "amax"]
    rows[0]["zoo"]["fraction_of_copy"] = 0.85  # a large shape under 90% of the copy bandwidth
    assert memory_bound.acceptance(rows)["large_below_90pct_of_copy"]


def test_result_names_carry_the_dtypes_unless_they_are_the_default_pair(memory_bound,
                                                                        monkeypatch):
    """Runs of one dtype each (GPU round 212 ran float32, float16 and bfloat16 one after another
    into one folder) must not overwrite each other; the default pair keeps its old name."""
    monkeypatch.setattr(memory_bound, "device_label", lambda: "h100")
    name = memory_bound.result_name
    assert name(None, ["bfloat16", "float32"], True, False) == "memory-bound-h100-graphs.json"
    assert name({"softmax", "log_softmax"}, ["float16"], True, False) == \
        "memory-bound-h100-log_softmax-softmax-float16-graphs.json"
    assert name(None, ["float32"], False, True) == "memory-bound-h100-float32-host-ahead.json"
    assert len({name(None, [d], True, False) for d in ("float32", "float16", "bfloat16")}) == 3
    assert name({"rms_norm"}, ["float16"], True, False, own_copy=True) == \
        "memory-bound-h100-rms_norm-float16-graphs-own-copy.json"
    assert name(None, ["float32"], True, False, copies=3) == \
        "memory-bound-h100-float32-graphs-copies3.json"
    assert name(None, ["float32"], True, False, copies=3, paired=True) == \
        "memory-bound-h100-float32-graphs-copies3-paired.json"


def test_paired_addresses_are_listed_per_copy_and_match_only_when_every_copy_does(memory_bound):
    """A row's `output_addresses` (hex per copy) and `paired_addresses`: whether every captured
    callable of each copy wrote its first output at one address. A callable not captured (no
    address) does not count against it."""
    names = ["zoo", "eager", "compile"]
    same = {("zoo", 0): 0x1000, ("eager", 0): 0x1000, ("compile", 0): 0x1000,
            ("zoo", 1): 0x2000, ("eager", 1): 0x2000, ("compile", 1): 0x2000}
    table, ok = memory_bound.paired_addresses(same, names, 2)
    assert ok and table["zoo"] == ["0x1000", "0x2000"]
    apart = {**same, ("compile", 1): 0x3000}
    assert memory_bound.paired_addresses(apart, names, 2)[1] is False
    missing = {k: v for k, v in same.items() if k != ("eager", 1)}
    table, ok = memory_bound.paired_addresses(missing, names, 2)
    assert ok and table["eager"] == ["0x1000", None]
    one_copy = {"zoo": 0x1000, "eager": 0x1000, "compile": 0x1100}
    table, ok = memory_bound.paired_addresses(one_copy, names, 1)
    assert not ok and table["compile"] == ["0x1100"]


@pytest.mark.parametrize("dtype_name,nbytes", [("bfloat16", 4096 * 4097 * 2 * 2),
                                               ("float32", 4096 * 4097 * 4 * 2), ("float16", 8)])
def test_own_copy_moves_the_rows_bytes_half_read_half_written(memory_bound, dtype_name, nbytes):
    """--own-copy's yardstick: a copy that reads nbytes / 2 and writes as many, in the row's
    dtype, and really copies (the destination holds the source afterwards)."""
    import torch

    dtype = memory_bound.DTYPES[dtype_name]
    call, src, dst = memory_bound.own_copy_call(nbytes, dtype, torch.device("cpu"))
    assert src.dtype == dst.dtype == dtype and src.shape == dst.shape
    assert src.numel() * src.element_size() + dst.numel() * dst.element_size() == nbytes
    dst.fill_(-1.0)  # uniform_ fills src from [0, 1)
    call()
    assert torch.equal(src, dst)


def test_a_row_timed_against_its_own_copy_prints_it(memory_bound, capsys):
    row = {"task": "rms_norm", "dtype": "bfloat16", "shape": {"tokens": 4096, "hidden": 4097},
           "zoo_entry": None, "zoo": {"gbps": 3000.0, "fraction_of_copy": 0.70},
           "eager": {"gbps": 800.0}, "compile": {"gbps": 1400.0}, "speedup_vs_eager": 3.9,
           "speedup_vs_compile": 2.1, "zoo_rel_l2_err": 1e-3,
           "own_copy": {"fraction_of_copy": 0.80}, "vs_own_copy": 0.875}
    memory_bound._print_row(row)
    assert "own copy 0.80 copy, zoo at 0.88 of it" in capsys.readouterr().out
    del row["own_copy"], row["vs_own_copy"]
    memory_bound._print_row(row)
    assert "own copy" not in capsys.readouterr().out


def _table(gpu, rows, copy=4000.0, date="2026-11-28"):
    return {"environment": {"gpu": gpu, "date": date}, "copy_gbps": copy, "rows": rows}


def _timed(task, dtype, vs_compile, fraction, large=True):
    times = {"ms": 1.0, "fraction_of_copy": fraction}
    return {"task": task, "op": task, "dtype": dtype, "shape": {"rows": 8}, "large": large,
            "zoo_rel_l2_err": 1e-4, "speedup_vs_compile": vs_compile, "speedup_vs_eager": 1.5,
            "zoo_entry": {"version": "1.0.0", "shape_bucket": "any"},
            "zoo": times, "eager": times, "compile": times}


def test_standing_keeps_each_rows_newest_measurement_and_refuses_two_gpus():
    """bench/memory_bound_standing.py: a later table's row replaces an earlier one of the same
    task, dtype and shape (the others stay, with their own file named); the bars are read from the
    rows kept; tables of two GPUs are not mixed."""
    standing = bench_scripts.load("memory_bound_standing")
    first = _table("H200", [_timed("sum", "float32", 0.95, 0.80),
                            _timed("geglu", "bfloat16", 0.97, 0.85)])
    later = _table("H200", [_timed("geglu", "bfloat16", 1.10, 0.95)], copy=4200.0)
    result = standing.standing([("round1.json", first), ("round2.json", later)])
    rows = {r["task"]: r for r in result["rows"]}
    assert set(rows) == {"sum", "geglu"}
    assert rows["geglu"]["source"] == "round2.json" and rows["geglu"]["copy_gbps"] == 4200.0
    assert rows["sum"]["source"] == "round1.json"
    bars = result["acceptance"]
    assert bars["geomean_vs_compile"] == pytest.approx((0.95 * 1.10) ** 0.5)
    assert [line.split(" ")[0] for line in bars["slower_than_compile_by_more_than_1pct"]] == ["sum"]
    assert [line.split(" ")[0] for line in bars["large_below_90pct_of_copy"]] == ["sum"]
    with pytest.raises(ValueError, match="more than one GPU"):
        standing.standing([("a.json", first), ("b.json", _table("H100", []))])
    # a row timed beside a copy of its own bytes (memory_bound.py --own-copy) keeps that copy
    own = _timed("sum", "float32", 0.99, 0.80)
    own.update(own_copy={"ms": 0.9, "fraction_of_copy": 0.89}, vs_own_copy=0.9)
    result = standing.standing([("round1.json", first), ("round3.json", _table("H200", [own]))])
    rows = {r["task"]: r for r in result["rows"]}
    assert rows["sum"]["own_copy"] == {"ms": 0.9, "fraction_of_copy": 0.89}
    assert rows["sum"]["vs_own_copy"] == 0.9
    assert "own_copy" not in rows["geglu"] and "vs_own_copy" not in rows["geglu"]


def test_standing_keeps_earlier_measurements_and_names_rows_on_both_sides_of_a_bar():
    """A row measured in more than one table keeps its earlier measurements beside the newest, and
    the acceptance's `unsteady` names those whose measurements of one zoo entry fell on both sides
    of a bar (torch.compile's speed; for a large row, 90% of the copy bandwidth): round 451's
    cross-entropy read 0.895 and 0.920 of copy in two float32 runs. The standing itself is still
    the newest row."""
    standing = bench_scripts.load("memory_bound_standing")
    first = _table("H200", [_timed("cross_entropy", "float32", 1.72, 0.895),
                            _timed("sum", "float32", 0.99, 0.80),
                            _timed("mean", "float32", 1.49, 1.00, large=False)])
    later = _table("H200", [_timed("cross_entropy", "float32", 1.75, 0.920),
                            _timed("sum", "float32", 0.98, 0.85),
                            _timed("mean", "float32", 0.99, 1.00, large=False)])
    promoted = _timed("softmax", "float32", 1.4, 0.93)  # a new entry took the row over the bar
    promoted["zoo_entry"] = {"version": "1.1.0", "shape_bucket": "any"}
    first["rows"].append(_timed("softmax", "float32", 1.3, 0.88))
    later["rows"].append(promoted)
    result = standing.standing([("run1.json", first), ("run2.json", later)])
    rows = {r["task"]: r for r in result["rows"]}
    assert rows["cross_entropy"]["source"] == "run2.json"
    assert rows["cross_entropy"]["earlier"] == [
        {"source": "run1.json", "speedup_vs_compile": 1.72, "zoo_fraction_of_copy": 0.895,
         "entry": {"version": "1.0.0", "shape_bucket": "any"}}]
    assert rows["softmax"]["entry"] == {"version": "1.1.0", "shape_bucket": "any"}
    assert rows["softmax"]["earlier"][0]["entry"]["version"] == "1.0.0"
    unsteady = result["acceptance"]["unsteady"]
    assert [line.split(" ")[0] for line in unsteady] == ["cross_entropy", "mean"]
    assert "0.895-0.920 of copy over 2 tables" in unsteady[0]
    assert "0.990-1.490x torch.compile over 2 tables" in unsteady[1]
    # behind torch.compile and under the copy bar both times: steady, however far it moved; and
    # a row whose kernel changed (softmax: 1.0.0 under the copy bar, 1.1.0 over it) is not unsteady
    assert not any(line.startswith(("sum ", "softmax ")) for line in unsteady)
    assert "earlier" not in standing.standing([("run2.json", later)])["rows"][0]


def test_the_tree_a_device_call_sends_stays_under_its_limit():
    """A GPU call sends the tracked tree, 64 MiB at most (the device tool's limit; it refuses the
    call above that). The sweeps' raw records under bench/results/runs/tune-buckets-*/ are kept
    gzipped (`gzip -9n`; bench/unswept_buckets.py reads both), which took the tree from 65 to 52
    MiB on 2026-11-29, and the zoo's kernel sources xz-compressed (schema 3) from 56 to 41 MiB on
    2026-11-30; this fails at 60 MiB, while a call still goes through."""
    import os
    import subprocess

    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: no tracked tree to measure")
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                            check=True).stdout.split(b"\0")
    paths = [ROOT / os.fsdecode(name) for name in listed if name]
    total = sum(p.stat().st_size for p in paths if p.is_file())
    assert total < 60 * 2**20, (
        f"the tracked tree is {total / 2**20:.1f} MiB; gzip bulky raw records under "
        f"bench/results/runs/ before a GPU call is refused at 64 MiB")
    loose = sorted(p.relative_to(ROOT) for p in (ROOT / "bench" / "results" / "runs")
                   .glob("tune-buckets-*/*.json"))
    assert not loose, f"gzip -9n these sweep records: {[str(p) for p in loose[:5]]}"


def test_copies_need_graphs_and_a_count():
    """`--copies` times several graphs of each callable: refused without --graphs, or under 1,
    with the reason, before any GPU work."""
    import subprocess
    import sys

    for extra in (["--copies", "3"], ["--graphs", "--copies", "0"]):
        done = subprocess.run([sys.executable, str(ROOT / "bench" / "memory_bound.py"), *extra],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 2 and "--copies takes a count" in done.stderr, done.stderr
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "memory_bound.py"), "--paired"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "--paired needs --graphs" in done.stderr, done.stderr
