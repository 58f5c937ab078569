"""Re-time the served promotions a sweep picked from the pack, beside the files they replaced.

`bench/promotion_margins.py` lists the promotions whose sweep gain was under 3% with the winner
within 2% of the tenth percentile of the configs it was picked from ("in the pack"): picks a
re-timing may not confirm, made before `bench/tune_buckets.py` re-timed a winner beside the
stored file (`confirm`). For each of them the newest shipped entry still serves, this times, on
the GPU, the kernel file serving the bucket now beside the file serving it in the entry before
the promotion, at the shapes the promotion was verified at (the served config's verdict), the
two alone, with the L2 emptied before each call and the calls interleaved
(`verifier.timing.bench`), in `--passes` timings one after another. Both files are first checked
against a float32 reference at each shape (a wrong one is said, and not timed).

Each file is timed as `GRAPHS` CUDA graphs of its call, captured in the order served, replaced,
replaced, served, served, replaced, and its time at a shape is the mean of their medians. Two
graphs of one call read up to 5% apart at some shapes, the same way in every pass and whatever
the order of the calls: a property of each graph, not of the timing (GPU round 450: the first run
of this script timed one graph a file and a twin of the served one, and its four "replaced file
faster" verdicts were the served file's graph as far from its twin; `bench/probe_graph_twins.py`
then found the same among graphs of one zoo call and of torch.compile's). One graph a side
cannot settle a 1% question.

Per promotion and pass, `ratio` is the geometric mean over the shapes of the served file's time
over the replaced one's (above 1: the replaced file was faster), and `apart` the same of the
served file's fastest graph over the replaced file's slowest (`apart_other_way`: its slowest over
the other's fastest). The verdict, on the medians over the passes: `replaced_faster` when the
ratio is at least `MIN_GAIN` (tune_buckets', the margin a promotion needs) and `apart` above 1,
every served graph slower than every replaced one; `served_faster` when the ratio is at most
1/MIN_GAIN and `apart_other_way` below 1; else `level`. The run only measures: it changes no
entry. Writes <out>/promotion-retimes-<gpu>.json.

    python bench/retime_promotions.py [--passes 3] [--jobs 14] [--out bench/results]
    python bench/retime_promotions.py --dry-run     # the pairs, from the zoo alone (no GPU)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

import tasks  # noqa: E402
from kernel_zoo import store  # noqa: E402
from verifier.environment import label_of  # noqa: E402
from verifier.timing import copies_in_turn  # noqa: E402
from verifier.verdict import geomean  # noqa: E402

MIN_GAIN = 1.01  # bench/tune_buckets.py's (a test keeps the two equal)
GRAPHS = 3  # graphs of each file's call
CAPTURE_ORDER = copies_in_turn(["served", "replaced"], GRAPHS)  # s r r s s r


def _entry_before(op: str, version: str, zoo: Path) -> store.Entry:
    """The entry of `op` in `zoo` just before `version`: what served before its promotion."""
    versions = store._versions(zoo / op)
    at = versions.index(version)
    if at == 0:
        raise store.ZooError(f"{op} {version} is the first entry in {zoo}: it replaced nothing")
    return store.find_entry(op, versions[at - 1], [zoo])


def _device_of(manifest: dict, gpu: str) -> str | None:
    """The device name the configs of `manifest` give the GPU labelled `gpu` (h200)."""
    return next((c["device"] for c in manifest["configs"]
                 if c.get("device") and label_of(c["device"]) == gpu), None)


def pairs(margins: dict, zoo: Path, arch: str = "sm_90") -> list[dict]:
    """The served in-the-pack promotions of a `promotion_margins` record, each with the file
    serving its bucket now and the one serving it before the promotion (params, source), the task
    and the shapes its verdict names."""
    gpu, found = margins["gpu"], []
    for row in margins["rows"]:
        if not (row["in_the_pack"] and row["served"]):
            continue
        op, dtype, bucket = row["op"], row["dtype"], row["bucket"]
        newest = store.newest_entries(op, [zoo])[0]
        device = _device_of(newest.manifest, gpu)
        now = store.select_config(newest.manifest, arch, dtype, bucket, device)
        before_entry = _entry_before(op, row["version"], zoo)
        before = store.select_config(before_entry.manifest, arch, dtype, bucket, device)
        if now is None or before is None:
            raise store.ZooError(f"{op} {dtype} {bucket}: no config serves it in "
                                 f"{newest.version if now is None else before_entry.version}")
        found.append({
            "op": op, "dtype": dtype, "bucket": bucket, "round": row["round"],
            "promoted": row["version"], "sweep_gain": row["gain"],
            "task": now["task"]["name"],
            "shapes": [s["shape"] for s in now["verdict"]["shapes"]],
            "served": {"version": newest.version, "params": now["params"],
                       "source": store.read_entry_file(newest.path, newest.manifest,
                                                       now["file"]).decode()},
            "replaced": {"version": before_entry.version, "params": before["params"],
                         "source": store.read_entry_file(before_entry.path,
                                                         before_entry.manifest,
                                                         before["file"]).decode()},
        })
    return found


def verdict(ratio: float, apart: float, apart_other_way: float) -> str:
    """`replaced_faster`, `served_faster` or `level`, from the medians over the passes of the
    served/replaced ratio and of how far apart the two files' graphs lie (module docstring)."""
    if ratio >= MIN_GAIN and apart > 1:
        return "replaced_faster"
    if ratio <= 1 / MIN_GAIN and apart_other_way < 1:
        return "served_faster"
    return "level"


def summarize(per_shape: list[dict], passes: int) -> dict:
    """Each pass's ratio, apart and apart_other_way (module docstring) from the per-graph
    medians (`per_shape[i]["ms"][side]`: per graph, per pass), their medians and the verdict."""
    def per_pass(p: int, pick) -> float:
        return geomean([pick(*([g[p] for g in s["ms"][side]] for side in ("served", "replaced")))
                        for s in per_shape])

    ratios = [per_pass(p, lambda a, b: statistics.fmean(a) / statistics.fmean(b))
              for p in range(passes)]
    apart = [per_pass(p, lambda a, b: min(a) / max(b)) for p in range(passes)]
    other = [per_pass(p, lambda a, b: max(a) / min(b)) for p in range(passes)]
    middle = [statistics.median(v) for v in (ratios, apart, other)]
    return {"ratios": [round(r, 4) for r in ratios], "median_ratio": round(middle[0], 4),
            "median_apart": round(middle[1], 4), "median_apart_other_way": round(middle[2], 4),
            "verdict": verdict(*middle)}


def time_pair(pair: dict, passes: int, cache: Path, budget_ms: float) -> dict:
    """Check and time one pair at each of its shapes (GPU); see the module docstring."""
    from bench.tune_buckets import screened, screening_case
    from verifier.core import DTYPES, load_candidate
    from verifier.timing import L2Flusher, bench, graphed_where_possible

    task = tasks.load(ROOT / "tasks" / f"{pair['task']}.py")
    dtype = DTYPES[pair["dtype"]]
    modules = {side: load_candidate(pair[side]["source"], cache)
               for side in ("served", "replaced")}
    flusher = L2Flusher(torch.device("cuda"))
    per_shape, problems = [], []
    for shape in pair["shapes"]:
        init, inputs, model, ref = screening_case(task, shape, dtype)
        fns = {}
        with torch.no_grad():
            for side, module in modules.items():
                candidate, ok = screened(module, init, model, inputs, ref, pair["dtype"])
                if not ok:
                    problems.append(f"{side} wrong at {shape}")
                    continue
                fns[side] = (lambda m: lambda: m(*inputs))(candidate)
            if len(fns) < 2:
                continue
            calls = {f"{side}{k}": fns[side] for side, k in CAPTURE_ORDER}
            graphs, failed = graphed_where_possible(calls)
            problems += failed
            timed = [bench(graphs, flusher=flusher, budget_ms=budget_ms, max_reps=100)
                     for _ in range(passes)]
            ms = {side: [[t[f"{side}{k}"].median_ms for t in timed] for k in range(GRAPHS)]
                  for side in ("served", "replaced")}
        per_shape.append({"shape": shape, "ms": ms})
        del graphs, calls, fns, inputs, model, ref
        torch.cuda.empty_cache()
    out = {key: pair[key] for key in ("op", "dtype", "bucket", "round", "promoted",
                                      "sweep_gain", "task")}
    out.update({side: {"version": pair[side]["version"], "params": pair[side]["params"],
                       "source_sha256": hashlib.sha256(pair[side]["source"].encode()).hexdigest()}
                for side in ("served", "replaced")})
    out.update(shapes=per_shape, problems=problems)
    if problems or len(per_shape) != len(pair["shapes"]):
        out["verdict"] = "not_timed"
        return out
    out.update(summarize(per_shape, passes))
    return out


def _warm_all(found: list[dict], jobs: int, cache: Path) -> int:
    """Compile every pair's two files at their shapes into Triton's disk cache, `jobs` at once."""
    from bench.tune_buckets import warm_cache

    work = [(str(ROOT / "tasks" / f"{p['task']}.py"), shape, p["dtype"], p[side]["source"],
             str(cache)) for p in found for shape in p["shapes"] for side in ("served", "replaced")]
    return warm_cache(work, jobs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpu", default="h200", help="the promotions' device label (h100, h200)")
    parser.add_argument("--margins", type=Path, default=None,
                        help="bench/promotion_margins.py's record (default: "
                             "bench/results/promotion-margins-<gpu>.json)")
    parser.add_argument("--zoo", type=Path, default=ROOT / "kernel_zoo" / "entries")
    parser.add_argument("--passes", type=int, default=3, help="timings of each pair, one by one")
    parser.add_argument("--budget-ms", type=float, default=300.0,
                        help="GPU time of each pass at each shape")
    parser.add_argument("--jobs", type=int, default=12, help="processes compiling kernels first")
    parser.add_argument("--dry-run", action="store_true",
                        help="list the pairs from the zoo and exit (no GPU)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args(argv)
    if args.passes < 1:
        parser.error("--passes must be at least 1")
    path = args.margins or ROOT / "bench" / "results" / f"promotion-margins-{args.gpu}.json"
    if not path.is_file():
        print(f"retime_promotions: no {path}; run bench/promotion_margins.py --gpu {args.gpu} "
              "first", file=sys.stderr)
        return 2
    margins = json.loads(path.read_text())
    try:
        found = pairs(margins, args.zoo)
    except (store.ZooError, ValueError) as err:
        print(f"retime_promotions: {err}", file=sys.stderr)
        return 2
    for p in found:
        print(f"{p['op']:13s} {p['dtype']:8s} {p['bucket']:14s} served {p['served']['version']}"
              f" (promoted {p['promoted']}, round {p['round']}) against "
              f"{p['replaced']['version']}: {p['task']} x {len(p['shapes'])} shapes")
    if args.dry_run:
        return 0
    if not torch.cuda.is_available():
        print("bench/retime_promotions.py needs a CUDA GPU to time (--dry-run lists the pairs)",
              file=sys.stderr)
        return 2
    from verifier.environment import device_label, environment

    env = environment()
    if device_label() != args.gpu:
        print(f"retime_promotions: the promotions are {args.gpu}'s and this GPU is "
              f"{env['gpu']}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out / f"promotion-retimes-{args.gpu}.json"
    record = {"what": __doc__.split("\n\n")[0], "environment": env, "passes": args.passes,
              "budget_ms": args.budget_ms, "min_gain": MIN_GAIN, "graphs": GRAPHS,
              "capture_order": [f"{side}{k}" for side, k in CAPTURE_ORDER],
              "method": "CUDA-graph replays, L2 emptied before each call (discard), the two "
                        f"files' {GRAPHS} graphs each interleaved (verifier.timing.bench), "
                        "medians, a file's time the mean of its graphs'; each pass a separate "
                        "timing of the same graphs",
              "pairs": []}
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp)
        failures = _warm_all(found, args.jobs, cache)
        record["warm_failures"] = failures
        for p in found:
            row = time_pair(p, args.passes, cache, args.budget_ms)
            record["pairs"].append(row)
            print(f"{row['op']:13s} {row['dtype']:8s} {row['bucket']:14s} {row['verdict']:15s} "
                  f"served/replaced {row.get('median_ratio', float('nan')):.4f} "
                  f"(passes {row.get('ratios')}), graphs apart "
                  f"{row.get('median_apart', float('nan')):.4f} / "
                  f"{row.get('median_apart_other_way', float('nan')):.4f}"
                  + (f"; {row['problems']}" if row["problems"] else ""), flush=True)
            # written after each pair: a run cut off by its time limit keeps what it finished
            out.write_text(json.dumps(record, indent=1) + "\n")
    counts = {v: sum(r["verdict"] == v for r in record["pairs"])
              for v in ("replaced_faster", "served_faster", "level", "not_timed")}
    record["counts"] = counts
    out.write_text(json.dumps(record, indent=1) + "\n")
    print(f"{len(found)} pairs: " + ", ".join(f"{n} {v}" for v, n in counts.items()))
    print("wrote", out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
