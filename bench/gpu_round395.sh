#!/usr/bin/env bash
# GPU round 395 (H200; written 2026-11-29 after the session's device time was spent, NOT YET RUN):
# `body_tile` for log-softmax, which rounds 388 and 391 did not sweep: 4096x4097 read 0.49 of
# copy in 16-bit (log_softmax 1.28.0; bfloat16 has no `cols_le_16384` config, its `any` one
# serves) where softmax's body_tile configs read 0.80. Sweeps `cols_le_16384` with
# `--knobs body_tile` in the three dtypes, then log-softmax's rows.
#     device run, no carry:  bash bench/gpu_round395.sh
# Outcome: not yet run.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round395
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/r395/tune /tmp/r395/table
for dtype in bfloat16 float16 float32; do
    [ $(( $(date +%s) - start )) -gt 360 ] && { echo "tune log_softmax $dtype: not run"; continue; }
    tune_op 110 log_softmax $dtype /tmp/r395/tune --buckets cols_le_16384 --knobs body_tile \
        --samples 0 --jobs 14
done
entries_pack_new
left=$(( 570 - ($(date +%s) - start) ))
if [ $left -gt 40 ]; then
    timeout $left python3 bench/memory_bound.py --ops log_softmax \
        --dtypes float32,bfloat16,float16 --graphs --out /tmp/r395/table \
        > /tmp/r395/table/stdout.txt 2>&1
    echo "table: rc $? after $(( $(date +%s) - start )) s"
    grep -E "4097" /tmp/r395/table/stdout.txt | head -20
fi
tar czf "$OUT/round395.tgz" -C /tmp r395
exit 0
