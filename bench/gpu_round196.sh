#!/usr/bin/env bash
# GPU round 196 (H100): softmax float32 inner_dim again, now that tune_buckets' choose() lets a
# config lose ground at a shape where it still beats min(eager, compile) (round 195's 1.01-1.39x
# config against the served one's 0.51x at 8x4097x257); then the float16 memory-bound table
# (float16 had configs for the norms only until rounds 193-194), then the float32 rows of the
# ops whose float32 configs rounds 195-196 changed.
# Outcome (stop 33, 2026-11-24): softmax float32 inner_dim promoted (1.12.0; runs/
# tune-buckets-h100-20261124-080347.json): 1.17x torch.compile, 17.99x eager by the verifier.
# float16 table (bench/results/memory-bound-h100-graphs-float16.json): 75 rows, none wrong,
# geomean 1.19x compile; 18 rows behind, 11 of them the norms' buckets float16 has no config for
# (the reference runs: round 197); 2 of the large rows under 90% of copy. float32 rows of
# layer_norm, softmax and log_softmax (bench/results/
# memory-bound-h100-graphs-float32-norm-softmax-round196.json): geomean 1.14x compile, none wrong,
# 3 of 28 rows behind (layer_norm 8192x4096 1.00x and 16384x8192 0.99x, softmax_dim1 8x4097x257
# 0.98x, from 0.50x in round 192); layer_norm 256x65536 at 1.09x (0.50x).
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
