"""Carry a GPU model's replaced configs back into a zoo's newest versions, beside the other model's.

Until 2026-11-28 a promotion replaced the config of its (arch, dtype, shape bucket) whatever GPU
model had tuned it, so the H200 rounds' promotions took the place of the H100's configs of the same
sm_90 buckets, which the H100 had been timed on and the H200's never were. Since then a bucket
keeps one config per model (kernel_zoo/MANIFEST.md). For each op, this finds each (arch, dtype,
shape bucket) of the newest version that has no config of `--device`, takes that model's config
from the newest earlier version that had one, and lands them all as one new version of the op
(`store.promote_many`), each unchanged (record, verdict, environment and kernel bytes) and marked
`restored_from` with the version it came from, as geglu 1.17.0's were. Nothing is re-verified or
re-timed: each config is the one its model was served until it was replaced.

    python bench/restore_model_configs.py --device "NVIDIA H100 80GB HBM3" [--ops a,b] [--dry-run]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kernel_zoo import store  # noqa: E402


def replaced_configs(zoo: Path, op: str, device: str) -> list[tuple[str, dict, str]]:
    """(version, config, source) for each (arch, dtype, bucket) of `op`'s newest version in `zoo`
    that has no config of `device`, taken from the newest earlier version that had one."""
    def key(config: dict) -> tuple[str, str, str]:
        return config["arch"], config["dtype"], config["shape_bucket"]

    entries = list(store.iter_entries([zoo], op=op))
    broken = [e for e in entries if isinstance(e, store.ZooError)]
    if broken:  # nothing is restored past an entry that cannot be read
        raise broken[0]
    newest = entries[-1].manifest["configs"]
    missing = {key(c) for c in newest} - {key(c) for c in newest if c["device"] == device}
    found = []
    for entry in reversed(entries[:-1]):
        for config in entry.manifest["configs"]:
            if key(config) in missing and config["device"] == device:
                source = store.read_entry_file(entry.path, entry.manifest, config["file"])
                found.append((entry.version, config, source.decode()))
                missing.discard(key(config))
    return sorted(found, key=lambda item: (item[1]["dtype"], item[1]["shape_bucket"]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", required=True, help="the GPU model, e.g. 'NVIDIA H200'")
    parser.add_argument("--zoo", type=Path, default=ROOT / "kernel_zoo" / "entries")
    parser.add_argument("--ops", help="comma-separated ops (default: every op of the zoo)")
    parser.add_argument("--dry-run", action="store_true", help="list, write nothing")
    args = parser.parse_args(argv)
    if not args.zoo.is_dir():
        parser.error(f"no zoo folder {args.zoo}")
    ops = store.op_names([args.zoo])
    if args.ops:
        wanted = [op for op in args.ops.split(",") if op]
        unknown = sorted(set(wanted) - set(ops))
        if unknown:
            parser.error(f"no entries for {', '.join(unknown)} in {args.zoo}")
        ops = wanted
    for op in ops:
        restored = replaced_configs(args.zoo, op, args.device)
        for version, config, _ in restored:
            print(f"{op}: {config['arch']} {config['dtype']} {config['shape_bucket']} from "
                  f"{version}")
        if restored and not args.dry_run:
            kernels = [(source, {**{k: v for k, v in config.items() if k != "file"},
                                 "restored_from": version})
                       for version, config, source in restored]
            landed = store.promote_many(op, kernels, zoo_dir=args.zoo)
            print(f"{op}: {landed['version']} ({len(kernels)} restored)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
