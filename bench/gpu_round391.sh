#!/usr/bin/env bash
# GPU round 391 (H200): `body_tile` in 16-bit. Round 388 promoted body_tile configs of float32
# add + RMSNorm, RMSNorm, LayerNorm and softmax `cols_le_16384` (4096x4097: 0.899 -> 0.93 of copy
# for add + RMSNorm). The 16-bit 4097-wide rows of those ops read 0.33-0.74 of copy; this sweeps
# bfloat16 and float16 `cols_le_16384` with `--knobs body_tile`, then the 16-bit rows of those ops.
#     device run, no carry:  bash bench/gpu_round391.sh
# Outcome (2026-11-29 06:04-06:11 UTC, 399 s): body_tile won all eight 16-bit buckets (rms_norm
# 1.35.0-1.36.0, layer_norm 1.25.0-1.26.0, softmax 1.28.0-1.29.0, add_rms_norm 1.27.0-1.28.0;
# 4096x4097 softmax 0.49-0.51 -> 0.80 of copy, RMSNorm 0.50 -> 0.67-0.68, LayerNorm 0.33 -> 0.45-0.46,
# add + RMSNorm 0.74 -> 0.88). bench/results/runs/tune-buckets-h200-round391/,
# memory-bound-h200-graphs-16bit-norms-softmax-round391.json; bench/RESULTS.md "Rounds 387-392".
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round391
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/r391/tune /tmp/r391/table
for dtype in bfloat16 float16; do
    for op in rms_norm layer_norm softmax add_rms_norm; do
        [ $(( $(date +%s) - start )) -gt 380 ] && { echo "tune $op $dtype: not run"; continue; }
        tune_op 90 $op $dtype /tmp/r391/tune --buckets cols_le_16384 --knobs body_tile \
            --samples 0 --jobs 14
    done
done
entries_pack_new
left=$(( 570 - ($(date +%s) - start) ))
if [ $left -gt 40 ]; then
    timeout $left python3 bench/memory_bound.py --ops add_rms_norm,rms_norm,layer_norm,softmax \
        --dtypes bfloat16,float16 --graphs --out /tmp/r391/table > /tmp/r391/table/stdout.txt 2>&1
    echo "table: rc $? after $(( $(date +%s) - start )) s"
    grep -E "4097" /tmp/r391/table/stdout.txt | head -20
fi
tar czf "$OUT/round391.tgz" -C /tmp r391
exit 0
