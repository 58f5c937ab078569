"""Where issue #3's bars stand across several bench/memory_bound.py tables of one device kind.

A whole table (225 rows, three dtypes) takes a GPU call per dtype; a round that re-tunes a few ops
re-times only their rows (`--ops`). This reads such tables in the order given, keeps each row's
newest measurement (task, dtype, shape), and applies memory_bound.acceptance to the result: the
geometric mean against torch.compile, the rows behind it, the large rows under 90% of the copy
bandwidth. Nothing is timed here. Every row keeps its own run's baselines and copy bandwidth (and,
from an --own-copy table, the copy of its own bytes), and names the file it came from; tables of
different GPUs are refused.

A row the tables measured more than once also keeps its earlier measurements (`earlier`: source,
speedup against torch.compile, the zoo's fraction of the copy bandwidth, the zoo entry timed), and
the acceptance lists as `unsteady` the rows whose measurements of the newest row's zoo entry (its
version and shape bucket) fall on both sides of a bar (torch.compile's speed, or for a large row
90% of the copy bandwidth): from one process to the next a row can move more than placement moves
it (GPU round 451: cross-entropy float32 4099x50257 at 0.895 and 0.920 of copy, `torch.compile`'s
own autotuning taking the middle-dim mean at 32x4096x1024 in 186 and 122 us). A row whose kernel
changed between the tables (a new entry promoted) is not unsteady for that. The standing is still
each row's newest.

    python bench/memory_bound_standing.py bench/results/memory-bound-h200-graphs-float32-round332.json \
        ... --out bench/results/memory-bound-h200-standing.json
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _memory_bound():
    """bench/memory_bound.py, for its acceptance rules (it imports torch, not a GPU)."""
    spec = importlib.util.spec_from_file_location("memory_bound", ROOT / "bench" / "memory_bound.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("memory_bound", module)
    spec.loader.exec_module(module)
    return module


def standing(tables: list[tuple[str, dict]]) -> dict:
    """`tables`: (name, table JSON) oldest first. The newest row of each (task, dtype, shape), the
    source and copy bandwidth of each, and the bars applied to them."""
    gpus = {table["environment"]["gpu"] for _, table in tables}
    if len(gpus) != 1:
        raise ValueError(f"tables of more than one GPU: {sorted(gpus)}; compare one device kind")
    newest: dict[tuple, dict] = {}
    seen: dict[tuple, list] = {}  # every measurement of a row, oldest first
    for name, table in tables:
        for row in table["rows"]:
            key = (row["task"], row["dtype"], json.dumps(row["shape"], sort_keys=True))
            newest[key] = {**row, "source": name, "copy_gbps": table["copy_gbps"]}
            seen.setdefault(key, []).append(
                {"source": name, "speedup_vs_compile": row["speedup_vs_compile"],
                 "zoo_fraction_of_copy": row["zoo"]["fraction_of_copy"],
                 "entry": _entry(row)})
    rows = list(newest.values())
    memory_bound = _memory_bound()
    bars = memory_bound.acceptance(rows)
    # the measurements of the kernel the standing holds: the newest row's entry
    same = {key: [m for m in seen[key] if m["entry"] == _entry(r)] for key, r in newest.items()}
    unsteady = [f"{r['task']} {r['dtype']} {r['shape']}: {_range(same[key], r['large'])}"
                for key, r in newest.items()
                if _straddles(same[key], r["large"], memory_bound.BANDWIDTH_BAR)]
    kept = [{**{k: r[k] for k in ("task", "op", "dtype", "shape", "large", "speedup_vs_compile",
                                  "speedup_vs_eager", "source", "copy_gbps")},
             "entry": _entry(r),
             **{name: {"ms": r[name]["ms"], "fraction_of_copy": r[name]["fraction_of_copy"]}
                for name in ("zoo", "eager", "compile", "own_copy") if name in r},
             # a row of an --own-copy table: the copy of its own bytes, timed beside it
             **({"vs_own_copy": r["vs_own_copy"]} if "vs_own_copy" in r else {}),
             **({"earlier": each[:-1]} if len(each) > 1 else {})}
            for r, each in ((r, seen[key]) for key, r in newest.items())]
    behind_by_1pct = [f"{r['task']} {r['dtype']} {r['shape']}: {r['speedup_vs_compile']:.3f}x"
                      for r in rows if r["speedup_vs_compile"] < 0.99]
    return {
        "benchmark": "memory_bound standing (newest row per task, dtype and shape)",
        "gpu": gpus.pop(),
        "sources": [{"file": name, "date": table["environment"]["date"],
                     "copy_gbps": table["copy_gbps"], "rows": len(table["rows"]),
                     # graphs a callable (bench/memory_bound.py --copies; 1 before round 450)
                     "copies": table.get("copies", 1),
                     # copy k of a row's callables in one pool (--paired; round 451 on)
                     "paired": table.get("paired", False),
                     "environment": table["environment"]} for name, table in tables],
        "acceptance": {**bars, "slower_than_compile_by_more_than_1pct": behind_by_1pct,
                       "unsteady": unsteady},
        "rows": kept,
    }


def _entry(row: dict) -> dict | None:
    """The zoo entry a table row timed: its version and shape bucket (None: no zoo entry)."""
    entry = row.get("zoo_entry")
    return {k: entry.get(k) for k in ("version", "shape_bucket")} if entry else None


def _straddles(each: list[dict], large: bool, copy_bar: float) -> bool:
    """Whether a row's measurements fall on both sides of a bar: torch.compile's speed (1.0x), or
    for a large row `copy_bar` of the copy bandwidth (memory_bound.BANDWIDTH_BAR)."""
    if len({m["speedup_vs_compile"] >= 1.0 for m in each}) > 1:
        return True
    return large and len({m["zoo_fraction_of_copy"] >= copy_bar for m in each}) > 1


def _range(each: list[dict], large: bool) -> str:
    vs = [m["speedup_vs_compile"] for m in each]
    text = f"{min(vs):.3f}-{max(vs):.3f}x torch.compile"
    if large:
        fr = [m["zoo_fraction_of_copy"] for m in each]
        text += f", {min(fr):.3f}-{max(fr):.3f} of copy"
    return text + f" over {len(each)} tables"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tables", nargs="+", type=Path, help="memory_bound JSONs, oldest first")
    parser.add_argument("--out", type=Path, required=True, help="the standing JSON to write")
    args = parser.parse_args(argv)
    missing = [str(p) for p in args.tables if not p.is_file()]
    if missing:
        parser.error(f"no such table: {', '.join(missing)}")
    tables = [(p.name, json.loads(p.read_text())) for p in args.tables]
    try:
        result = standing(tables)
    except ValueError as exc:
        parser.error(str(exc))
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    bars = result["acceptance"]
    print(f"{result['gpu']}: {bars['rows']} rows from {len(tables)} tables; geomean "
          f"{bars['geomean_vs_compile']:.3f}x torch.compile; {len(bars['slower_than_compile'])} "
          f"behind ({len(bars['slower_than_compile_by_more_than_1pct'])} by more than 1%); "
          f"{len(bars['large_below_90pct_of_copy'])} of {bars['large_rows']} large rows under "
          f"90% of copy")
    for line in bars["slower_than_compile_by_more_than_1pct"] + bars["large_below_90pct_of_copy"]:
        print(f"  {line}")
    if bars["unsteady"]:
        print(f"{len(bars['unsteady'])} rows on both sides of a bar across the tables:")
        for line in bars["unsteady"]:
            print(f"  {line}")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
