#!/usr/bin/env bash
# GPU round 191 (H100): float32 entries for the four plain reductions round 190 had no time for
# (amax, amin, sum, mean; 0.77-0.98x torch.compile in float32, served by the PyTorch reference),
# as in rounds 189-190 (bench/tune_buckets.py --dtypes float32 --graphs --samples 0 --zoo).
# Outcome (runs/tune-buckets-h100-20261124-063253.json to -063641.json): sum 1.5.0-1.7.0, amax
# 1.4.0-1.6.0, mean 1.4.0-1.6.0, amin 1.4.0-1.6.0, every bucket (cols_le_1024, cols_le_16384,
# inner_dim), 1.12-1.19x eager and 0.98-1.06x torch.compile by the verifier. The float32 table was
# not run again after them (no device time left).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round191
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
ls -d kernel_zoo/entries/*/* | sort > /tmp/entries-before.txt
for op in sum amax mean amin; do
    timeout 100 python3 bench/tune_buckets.py --ops $op --dtypes float32 --graphs \
        --samples 0 --jobs 14 --zoo kernel_zoo/entries --out "$OUT" 2>&1 \
        | grep -v -i warn | grep -E "^[a-z_]+ float32 \[" | tail -6
    echo "tune $op: exit ${PIPESTATUS[0]}"
done
ls -d kernel_zoo/entries/*/* | sort > /tmp/entries-after.txt
new=$(comm -13 /tmp/entries-before.txt /tmp/entries-after.txt)
echo "new entries: $new" | tee "$OUT/new-entries.txt"
[ -n "$new" ] && tar czf "$OUT/entries.tgz" $new
exit 0
