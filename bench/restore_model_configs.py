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

`--rollback DTYPE:BUCKET:VERSION` (with one op in --ops; repeatable) lands instead the config
that VERSION served `--device` in that dtype and shape bucket, in place of the newest version's,
unchanged and marked `restored_from` the same way: a promotion undone where its sweep chose by a
rule since corrected (layer_norm 1.32.0's float32 `cols_le_16384`, GPU round 401, won a bar at a
shape where both configs run one kernel, by 0.95%, and lost 3% at 4096x4097).

    python bench/restore_model_configs.py --device "NVIDIA H100 80GB HBM3" [--ops a,b] [--dry-run]
    python bench/restore_model_configs.py --device "NVIDIA H200" --ops layer_norm \
        --rollback float32:cols_le_16384:1.29.0 [--dry-run]
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


def rollback_config(zoo: Path, op: str, device: str, dtype: str, bucket: str,
                    version: str) -> tuple[str, dict, str]:
    """(version, config, source): the config `version` of `op` in `zoo` served `device` in
    `dtype` and `bucket`, and its kernel's source. ZooError, naming what is missing, when that
    version or config is not there, or when the newest version serves the same kernel already."""
    entry = next(iter(store.iter_entries([zoo], op=op, version=version)), None)
    if entry is None:
        raise store.ZooError(f"{op} has no version {version} in {zoo}")
    if isinstance(entry, store.ZooError):
        raise entry
    match = [c for c in entry.manifest["configs"] if c["dtype"] == dtype
             and c["shape_bucket"] == bucket and c["device"] == device]
    if not match:
        raise store.ZooError(f"{op} {version} has no {dtype} {bucket} config of {device}")
    config = match[0]
    source = store.read_entry_file(entry.path, entry.manifest, config["file"]).decode()
    newest = list(store.iter_entries([zoo], op=op))[-1]
    if isinstance(newest, store.ZooError):
        raise newest
    for now in newest.manifest["configs"]:
        if (now["arch"], now["dtype"], now["shape_bucket"], now["device"]) == \
                (config["arch"], dtype, bucket, device) and store.read_entry_file(
                    newest.path, newest.manifest, now["file"]).decode() == source:
            raise store.ZooError(f"{op} {newest.version} serves {version}'s {dtype} {bucket} "
                                 f"kernel of {device} already: nothing to roll back")
    return version, config, source


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", required=True, help="the GPU model, e.g. 'NVIDIA H200'")
    parser.add_argument("--zoo", type=Path, default=ROOT / "kernel_zoo" / "entries")
    parser.add_argument("--ops", help="comma-separated ops (default: every op of the zoo)")
    parser.add_argument("--dry-run", action="store_true", help="list, write nothing")
    parser.add_argument("--rollback", action="append", default=[],
                        metavar="DTYPE:BUCKET:VERSION",
                        help="land VERSION's config of --device for DTYPE and BUCKET in place of "
                             "the newest version's (with exactly one op in --ops; repeatable)")
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
    if args.rollback:
        if len(ops) != 1 or not args.ops:
            parser.error("--rollback needs exactly one op in --ops")
        picks = []
        for spec in args.rollback:
            parts = spec.split(":")
            if len(parts) != 3 or not all(parts):
                parser.error(f"--rollback {spec!r}: expected DTYPE:BUCKET:VERSION, e.g. "
                             "float32:cols_le_16384:1.29.0")
            try:
                picks.append(rollback_config(args.zoo, ops[0], args.device, *parts))
            except store.ZooError as exc:
                parser.error(str(exc))
        return _land(args.zoo, ops[0], picks, args.dry_run)
    for op in ops:
        _land(args.zoo, op, replaced_configs(args.zoo, op, args.device), args.dry_run)
    return 0


def _land(zoo: Path, op: str, restored: list[tuple[str, dict, str]], dry_run: bool) -> int:
    """Print each (version, config, source) of `restored` and, unless `dry_run`, land them as one
    new version of `op`, each config unchanged and marked `restored_from` its version."""
    for version, config, _ in restored:
        print(f"{op}: {config['arch']} {config['dtype']} {config['shape_bucket']} from {version}")
    if restored and not dry_run:
        kernels = [(source, {**{k: v for k, v in config.items() if k != "file"},
                             "restored_from": version})
                   for version, config, source in restored]
        landed = store.promote_many(op, kernels, zoo_dir=zoo)
        print(f"{op}: {landed['version']} ({len(kernels)} restored)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
