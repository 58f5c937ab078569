"""How far each bucket promotion stood from the pack it was picked from (no GPU: recorded data).

GPU round 449 promoted float32 softmax and log-softmax at 1024x32768 on a 1.5-2.4% gain over the
stored files, and a table run after read them no faster: each winner was the fastest of hundreds
of configs that run alike at that one shape, and the best of many timings of one kernel clears a
1% margin over any one of them. `bench/tune_buckets.py` now re-times a winner beside the stored
file before promoting it (`confirm`); the promotions made before that were not. This reads every
`bench/tune_buckets.py` record of a GPU (`bench/results/runs/tune-buckets-<gpu>-round*/`) and,
for each promotion over a stored file, gives at the bucket's shapes (geometric means):

- `gain`: the stored file's time over the winner's, the margin it was promoted on;
- `lead_over_p10`: the tenth-fastest percentile of every config timed correct there over the
  winner's time, how far the winner stood ahead of the pack;
- `stored_rank`: the share of those configs faster than the stored file;
- `served`: whether the newest shipped entry still serves the winner's params for that dtype,
  bucket and GPU.

A promotion is `in_the_pack` when its gain is under 3% and its winner within 2% of the tenth
percentile: a pick a re-timing may not confirm. These thresholds sort, they do not judge; only a
re-timing beside the stored file does (GPU time: `bench/retime_promotions.py`, which reads this
record). Writes <out>/promotion-margins-<gpu>.json.

    python bench/promotion_margins.py [--gpu h200] [--out bench/results]
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kernel_zoo import store  # noqa: E402
from verifier.environment import label_of  # noqa: E402

GAIN_UNDER = 1.03
LEAD_UNDER = 1.02


def _records(runs: Path, gpu: str) -> list[tuple[int, Path]]:
    found = []
    for path in sorted(runs.glob(f"tune-buckets-{gpu}-round*/*.json*")):
        match = re.search(r"round(\d+)", path.parent.name)
        found.append((int(match.group(1)), path))
    return found


def _geomean_ms(row: dict, idx: list[int]) -> float | None:
    ms = row["ms"]
    if any(not ms[s] for s in idx):
        return None
    return math.exp(sum(math.log(ms[s]) for s in idx) / len(idx))


def margins(runs: Path, gpu: str, zoo: Path) -> list[dict]:
    """One row per promotion over a stored file in the records of `gpu`, oldest round first."""
    out, newest = [], {}  # newest: op -> its newest entry's configs in `zoo`, read once
    for round_no, path in _records(runs, gpu):
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt") as handle:
            record = json.load(handle)
        for result in record.get("results", []):
            rows = result["configs"]
            for bucket, choice in sorted(result.get("buckets", {}).items()):
                promoted, stored = choice.get("promoted"), choice.get("served_config")
                if not promoted or stored is None:
                    continue
                idx, winner = choice["shapes"], choice["config"]
                times = sorted(t for t in (_geomean_ms(r, idx) for r in rows) if t)
                t_win, t_stored = _geomean_ms(rows[winner], idx), _geomean_ms(rows[stored], idx)
                p10 = times[len(times) // 10]
                gain, lead = t_stored / t_win, p10 / t_win
                out.append({
                    "round": round_no, "file": path.name, "op": result["op"],
                    "dtype": result["dtype"], "bucket": bucket, "shapes": len(idx),
                    "configs_timed": len(times), "version": promoted["version"],
                    "gain": round(gain, 4), "lead_over_p10": round(lead, 4),
                    "stored_rank": round(sum(t < t_stored for t in times) / len(times), 3),
                    "in_the_pack": gain < GAIN_UNDER and lead < LEAD_UNDER,
                    "served": _still_served(newest, zoo, result["op"], result["dtype"], bucket,
                                            gpu, rows[winner]["params"]),
                })
    return out


def _still_served(newest: dict, zoo: Path, op: str, dtype: str, bucket: str, gpu: str,
                  params: dict) -> bool:
    """Whether the newest entry of `op` in `zoo` serves `params` for (dtype, bucket, the GPU
    model labelled `gpu`); `newest` caches each op's configs."""
    if op not in newest:
        entries = store.newest_entries(op, [zoo])
        newest[op] = entries[0].manifest["configs"] if entries else []
    return any(c["dtype"] == dtype and c["shape_bucket"] == bucket
               and label_of(c.get("device") or "") == gpu and c["params"] == params
               for c in newest[op])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpu", default="h200", help="the records' device label (h100, h200)")
    parser.add_argument("--runs", type=Path, default=ROOT / "bench" / "results" / "runs")
    parser.add_argument("--zoo", type=Path, default=ROOT / "kernel_zoo" / "entries")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args(argv)
    rows = margins(args.runs, args.gpu, args.zoo)
    if not rows:
        print(f"promotion_margins: no tune_buckets records for {args.gpu} under {args.runs}",
              file=sys.stderr)
        return 2
    pack = [r for r in rows if r["in_the_pack"]]
    live = [r for r in pack if r["served"]]
    for r in rows:
        print(f"round {r['round']:3d} {r['op']:13s} {r['dtype']:8s} {r['bucket']:14s} "
              f"{r['version']:8s} shapes {r['shapes']} configs {r['configs_timed']:3d} "
              f"gain {r['gain']:.3f} lead {r['lead_over_p10']:.3f} stored rank "
              f"{r['stored_rank']:.2f}{'  in the pack' if r['in_the_pack'] else ''}"
              f"{'  (served)' if r['served'] else ''}")
    print(f"{len(rows)} promotions over a stored file; {len(pack)} in the pack (gain under "
          f"{GAIN_UNDER}x, winner within {LEAD_UNDER}x of the tenth percentile), {len(live)} of "
          "them still served")
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"promotion-margins-{args.gpu}.json"
    path.write_text(json.dumps({
        "what": __doc__.split("\n\n")[0], "gpu": args.gpu, "runs": str(args.runs.name),
        "thresholds": {"gain_under": GAIN_UNDER, "lead_over_p10_under": LEAD_UNDER},
        "promotions": len(rows), "in_the_pack": len(pack), "in_the_pack_still_served": len(live),
        "rows": rows}, indent=1) + "\n")
    print("wrote", path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
