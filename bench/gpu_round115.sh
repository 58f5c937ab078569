#!/usr/bin/env bash
# GPU round 115: the shipped softmax 1.4.0 and log_softmax 1.3.0 kernels predate `_unit`, so at
# 4099x1000 they load and store 2 bytes at a time (bench/results/compile-zoo-sm90.json; round 101
# measured 1.03-1.08x from re-rendering). `kzoo sweep` re-verifies both entries, continues their
# studies warm-started from the entries' params (the first trial is today's render of the same
# config; a shape bucket's unit now in a study of its own) and promotes a winner at least 1.02x
# better than the entry into kernel_zoo/entries. Then bench/memory_bound.py --graphs times both ops
# with whatever was promoted, and again with the new versions moved aside (the entries they replace).
# Outcome (runs/sweep-h100-round115-report.md, runs/memory-bound-h100-round115-{new,old}-graphs.json):
# the sweep (now tuning shape buckets) promoted softmax 1.5.0 and log_softmax 1.4.0, both for their
# inner_dim bucket only (the `any` files were carried byte for byte). Graph replays, new against
# old: softmax 1.5.0's inner_dim kernel is today's render of 1.4.0's params and times the same
# (0.999-1.011x); log_softmax 1.4.0's new inner_dim config is 1.33x and 1.12x faster at 64x128x4096
# and 4x32768x16 but 0.87x and 0.69x at 32x1000x1024 and 8x4097x257, where it falls to 0.83x and
# 0.73x torch.compile (the sweep promotes on the geometric mean). Neither entry is kept.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round115
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
before=$(ls -d kernel_zoo/entries/softmax/* kernel_zoo/entries/log_softmax/*)
timeout 360 python3 -m agent sweep --ops softmax,log_softmax --zoo kernel_zoo/entries \
    --trials-per-op 6 --time-budget 300 --report "$OUT/sweep" 2>&1 | grep -v -i warn | tail -14
new=$(ls -d kernel_zoo/entries/softmax/* kernel_zoo/entries/log_softmax/* | grep -vxF "$before")
echo "new versions: ${new:-none}"
tar czf "$OUT/entries.tgz" -C kernel_zoo entries/softmax entries/log_softmax
if [ -n "$new" ]; then
    for rnd in new old; do
        if [ "$rnd" = old ]; then
            for d in $new; do mkdir -p "/tmp/aside/$(dirname "$d")" && mv "$d" "/tmp/aside/$d"; done
        fi
        echo "== $rnd"
        timeout 100 python3 bench/memory_bound.py --ops softmax,log_softmax --dtypes bfloat16 \
            --graphs --out "$OUT/$rnd" 2>&1 | grep -v -i warn | grep -E "softmax|copy b" | head -20
    done
fi
exit 0
