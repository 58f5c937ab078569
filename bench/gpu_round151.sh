#!/usr/bin/env bash
# GPU round 151 (H100): cross-entropy's rows_gt_1024 bucket with misaligned rows read from
# 128-byte line starts (round 150: 4099x50257's row kernel 150.7 -> 147.6 us) and the mean
# kernel's loads side by side (round 145: 149.5 -> 147.6 us, not promoted alone). A promoted
# config is checked by `kzoo zoo verify` at every GPU shape of the task, then the table again.
# Outcome (runs/tune-buckets-h100-round151-cross-entropy.json, runs/zoo-verify-h100-round151/,
# runs/memory-bound-h100-round151-graphs.json): 3 GPU tests passed. cross_entropy 1.6.0 promoted
# (row_align 128, final_block 4096): 336.8/143.2 us against the stored file's 337.7/149.2;
# correct at every GPU shape. Table: 4099x50257 at 0.886 of copy (144.1 us), geomean 1.224x.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round151
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 90 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_cross_entropy.py 2>&1 \
    | grep -E "FAILED|passed|failed|Error" | tail -5
before=$(ls kernel_zoo/entries/cross_entropy | sort -V | tail -1)
timeout 200 python3 bench/tune_buckets.py --ops cross_entropy --dtypes bfloat16 --graphs \
    --samples 0 --jobs 14 --buckets rows_gt_1024 --zoo kernel_zoo/entries --out "$OUT" 2>&1 \
    | grep -v -i warn | grep -v "^  [0-9]* of" | grep -E "bfloat16 |wrote|promot"
after=$(ls kernel_zoo/entries/cross_entropy | sort -V | tail -1)
if [ "$after" != "$before" ]; then
    tar czf "$OUT/entries.tgz" -C kernel_zoo entries/cross_entropy
    timeout 75 python3 -m agent zoo verify cross_entropy --version "$after" --dtype bfloat16 \
        --bucket rows_gt_1024 --json > "$OUT/zoo-verify.json" 2> "$OUT/zoo-verify.log"
    echo "verify $after: exit $?"; grep -v -i warn "$OUT/zoo-verify.log" | tail -2
    timeout 260 python3 bench/memory_bound.py --dtypes bfloat16 --graphs --out "$OUT" 2>&1 \
        | grep -v -i warn > "$OUT/memory-bound-graphs.txt"
    grep -A3 "large_below\|geomean_vs_compile\"" "$OUT/memory-bound-graphs.txt" | head -10
    grep -E "^cross_entropy" "$OUT/memory-bound-graphs.txt"
fi
exit 0
