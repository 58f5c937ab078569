"""Which shape buckets the zoo serves a GPU model with a config tuned on another, and which of
that model's bucket sweeps timed them.

A bucket whose config was tuned on an H100 runs on an H200 as it is (both are sm_90), and a
sweep on the H200 that keeps that config leaves its H100 label on it: "served an H100 config"
does not tell a bucket never swept on the H200 from one whose sweep found nothing faster. This
reads the newest version of each op in the zoo (`store.device_configs`: the config each bucket
serves that GPU) and the sweeps `bench/tune_buckets.py` wrote for it
(bench/results/runs/tune-buckets-<label>-round<N>/, kept gzipped there: `.json.gz`), and lists
the buckets served a config from another GPU, each with the sweeps that timed it (none: never
swept there). Only tune_buckets' sweeps count (a `kzoo optimize` run that promoted nothing left
no bucket record), and it says nothing about a bucket's speed: read the standing
(memory-bound-<label>-standing.json) for that.

    python bench/unswept_buckets.py [--device "NVIDIA H200"] [--json]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kernel_zoo import store  # noqa: E402
from verifier.environment import label_of  # noqa: E402

ARCH = "sm_90"
DTYPES = ("float32", "bfloat16", "float16")
ROUND = re.compile(r"round(\d+)")


def _is_record(path: Path) -> bool:
    """A sweep's JSON as tune_buckets wrote it, or gzipped (`gzip -9n`; the round folders
    under bench/results/runs/ are kept that way, which keeps the tree a device call sends small)."""
    return path.is_file() and path.name.endswith((".json", ".json.gz"))


def swept(runs: Path, label: str) -> dict[tuple[str, str, str], list[str]]:
    """(op, dtype, bucket) -> the sweeps on `label` that timed it: "round<N>" for a round's
    folder (tune-buckets-<label>-round<N>/) or a file named for its round, else the file's name
    (tune-buckets-<label>-<date>.json, written before rounds were numbered in folders); with
    " (knobs a,b)" or " (local)" where the record says the sweep timed only the variants of
    those knobs or those around the served configs (`tune_buckets.py --knobs`, `--local`)."""
    found: dict[tuple[str, str, str], list[str]] = {}
    paths = [p for p in sorted(runs.glob(f"tune-buckets-{label}-*")) if _is_record(p)]
    for folder in sorted(runs.glob(f"tune-buckets-{label}-round*")):
        if folder.is_dir():
            paths += sorted(p for p in folder.iterdir() if _is_record(p))
    for path in paths:
        stem = path.name.removesuffix(".gz").removesuffix(".json")
        where = ROUND.search(path.parent.name if path.parent != runs else stem)
        name = f"round{where[1]}" if where else stem.removeprefix(f"tune-buckets-{label}-")
        try:
            text = (gzip.decompress(path.read_bytes()).decode() if path.suffix == ".gz"
                    else path.read_text())
            record = json.loads(text)
        except (OSError, EOFError, json.JSONDecodeError):
            continue  # a truncated file from a call that ran out of time
        search = record.get("search") or {}  # written by tune_buckets since round 412
        shown = (f"{name} (knobs {','.join(search['knobs'])})" if search.get("knobs")
                 else f"{name} (local)" if search.get("local") else name)
        for result in record.get("results", []):
            for bucket in result.get("buckets", {}):
                sweeps = found.setdefault((result.get("op"), result.get("dtype"), bucket), [])
                if shown not in sweeps:
                    sweeps.append(shown)
    return found


def foreign_buckets(zoo: Path, device: str, runs: Path) -> list[dict]:
    """Each (op, dtype, bucket) whose config for `device` in the op's newest version was tuned
    on another GPU, with the sweeps that timed it on `device`'s kind."""
    sweeps = swept(runs, label_of(device))
    rows = []
    for op in store.op_names([zoo]):
        (entry,) = store.newest_entries(op, [zoo])  # one layer: the zoo given
        version, manifest = entry.version, entry.manifest
        for dtype in DTYPES:
            for bucket, config in sorted(store.device_configs(manifest, ARCH, dtype,
                                                              device).items()):
                if config.get("device") == device:
                    continue
                rows.append({"op": op, "version": version, "dtype": dtype, "bucket": bucket,
                             "served_from": config.get("device") or "unlabelled",
                             "swept_in": sweeps.get((op, dtype, bucket), [])})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="NVIDIA H200",
                        help="the GPU model, as torch.cuda.get_device_name() gives it "
                             "(default %(default)s)")
    parser.add_argument("--zoo", default=str(ROOT / "kernel_zoo" / "entries"),
                        help="the zoo to read (default: the shipped one)")
    parser.add_argument("--runs", default=str(ROOT / "bench" / "results" / "runs"),
                        help="where the sweeps' folders are (default %(default)s)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args(argv)
    zoo, runs = Path(args.zoo), Path(args.runs)
    for path, what in ((zoo, "--zoo"), (runs, "--runs")):
        if not path.is_dir():
            parser.error(f"{what} {path}: no such folder")
    rows = foreign_buckets(zoo, args.device, runs)
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    if not rows:
        print(f"every bucket of the zoo's newest versions serves {args.device} its own config")
        return 0
    never = [r for r in rows if not r["swept_in"]]
    print(f"{len(rows)} buckets serve {args.device} a config tuned elsewhere; "
          f"{len(never)} of them never swept on its kind ({label_of(args.device)}):")
    for r in rows:
        rounds = ", ".join(r["swept_in"]) or "never"
        print(f"  {r['op']:18s} {r['version']:8s} {r['dtype']:9s} {r['bucket']:14s} "
              f"from {r['served_from']:22s} swept: {rounds}")
    return 0


def cli(argv: list[str] | None = None) -> int:
    """`main`, where output piped into a reader that stopped early (`| head`) ends quietly: the
    rest of stdout goes to the null device, so the interpreter's flush at exit cannot fail."""
    try:
        return main(argv)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    raise SystemExit(cli())
