#!/usr/bin/env bash
# GPU round 196 (H100): softmax float32 inner_dim again, now that tune_buckets' choose() lets a
# config lose ground at a shape where it still beats min(eager, compile) (round 195's 1.01-1.39x
# config against the served one's 0.51x at 8x4097x257); then the float16 memory-bound table
# (float16 had configs for the norms only until rounds 193-194), then the float32 rows of the
# ops whose float32 configs rounds 195-196 changed.
# Outcome: not run yet.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round196
. bench/gpu_lib.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
timeout 190 python3 bench/tune_buckets.py --ops softmax_dim1 --dtypes float32 --graphs \
    --siblings --samples 24 --jobs 14 --zoo kernel_zoo/entries --out /tmp/tune196 2>&1 \
    | grep -v -i warn | grep -E "^[a-z_]+ float32 \[" | tail -6
echo "tune softmax_dim1: exit ${PIPESTATUS[0]}"
tar czf "$OUT/tune-buckets.tgz" -C /tmp tune196
entries_pack_new
mkdir -p /tmp/fp16 /tmp/fp32
timeout 250 python3 bench/memory_bound.py --graphs --dtypes float16 --out /tmp/fp16 2>&1 \
    | grep -v -i warn | tail -12
left=$(( 560 - ($(date +%s) - start) ))
echo "seconds left for the float32 rows: $left"
[ $left -gt 30 ] && timeout $left python3 bench/memory_bound.py --graphs --dtypes float32 \
    --ops layer_norm,softmax,log_softmax --out /tmp/fp32 2>&1 | grep -v -i warn | tail -12
tar czf "$OUT/tables.tgz" -C /tmp fp16 fp32
exit 0
