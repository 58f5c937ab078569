#!/usr/bin/env bash
# GPU round 23: per-bucket tuning of the norms and plain reductions (bench/tune_buckets.py), each
# bucket's winner verified and promoted into kernel_zoo/entries; the new entry versions and the
# sweep's JSON go to $OUT. Usage: bash bench/gpu_round23.sh OP[,OP...]
# Run twice on 2026-11-22: the first run's entries did not come back from the device (folders are
# not returned; runs/tune-buckets-h100-20261122-184725-first.json), the second's did (-185031) and
# were measured by round 24's bench; round 25 re-tuned after the dispatch and launcher changes,
# and its entries are the ones committed.
set -uo pipefail
export PYTHONUNBUFFERED=1
ops="$1"
timeout 530 python3 bench/tune_buckets.py --ops "$ops" --dtypes bfloat16 --samples 6 --jobs 14 \
    --zoo kernel_zoo/entries --out "$OUT" 2>&1 | grep -v -i "warn" | tee "$OUT/tune-buckets-${ops//,/-}.txt"
# the new entry versions, as one archive (the device returns files, not deep folders)
tar czf "$OUT/entries.tgz" -C kernel_zoo entries
