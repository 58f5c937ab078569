#!/usr/bin/env bash
# GPU round 189 (H100): float32 entries for the ops furthest behind torch.compile in float32.
# Round 188's table (bench/memory_bound.py's default dtypes, bfloat16 and float32) showed that
# float32 has no zoo config for most ops, so kernel_zoo.ops runs the PyTorch reference there:
# softmax and log-softmax over a non-last dim 0.01-0.48x torch.compile, cross-entropy 0.26-0.58x.
# bench/tune_buckets.py (DEFAULT and its one-idea variants, --samples 0, graph replays) per op,
# promoting each bucket's winner that the verifier accepts and measures faster than eager at every
# shape of its bucket; the changed entries come back as tarballs.
# Outcome (runs/tune-buckets-h100-20261124-0621*.json, -062221, -062303): softmax 1.7.0 (float32
# inner_dim: 16.8x eager, 1.09x torch.compile by the verifier), cross_entropy 1.9.0 (float32
# rows_gt_1024, serving rows_le_1024 too: 4.05x eager, 1.18x compile); log_softmax's inner_dim
# config was 0.95x compile or less on the geometric mean and not promoted.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round189
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
ls -d kernel_zoo/entries/*/* | sort > /tmp/entries-before.txt
for op in softmax_dim1 log_softmax_dim1 cross_entropy; do
    timeout 175 python3 bench/tune_buckets.py --ops $op --dtypes float32 --graphs \
        --samples 0 --jobs 14 --zoo kernel_zoo/entries --out "$OUT" 2>&1 \
        | grep -v -i warn | grep -v "^  [0-9]* of" | grep -E "float32 |wrote|promot" | tail -8
    echo "tune $op: exit ${PIPESTATUS[0]}"
done
ls -d kernel_zoo/entries/*/* | sort > /tmp/entries-after.txt
new=$(comm -13 /tmp/entries-before.txt /tmp/entries-after.txt)
echo "new entries: $new" | tee "$OUT/new-entries.txt"
[ -n "$new" ] && tar czf "$OUT/entries.tgz" $new
exit 0
