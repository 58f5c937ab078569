#!/usr/bin/env bash
# GPU round 388 (H200; written 2026-11-29 after the session's device time was spent, run 2026-11-29):
# `body_tile` (a misaligned row's one-pass tile as wide as its aligned body: 4096 for a 4097-wide
# row, not 8192 with half of it masked; compiled for sm_90 a float32 add + RMSNorm row takes 288
# SASS instructions where 480 did, compile-norm-align-body-tile-sm90-fp32.json). Sweeps with
# `--knobs body_tile` (the served configs against their body_tile variants over 9 tiles) the
# buckets whose 4097-wide rows trail: float32 mean and sum `cols_le_16384` (4096x4097 at 0.987x
# and 0.995x torch.compile), add + RMSNorm float32 `cols_le_16384` (0.899 of copy; the bar is
# 0.90), then RMSNorm, LayerNorm and softmax float32 there; the float32 rows of those ops. The
# knob's GPU tests are gpu_round389.sh.
#     device run, no carry:  bash bench/gpu_round388.sh
# Outcome (2026-11-29 05:48-05:53 UTC, 305 s): body_tile won add + RMSNorm, RMSNorm, LayerNorm and
# softmax float32 `cols_le_16384` (add_rms_norm 1.26.0, rms_norm 1.34.0, layer_norm 1.24.0,
# softmax 1.27.0; 4096x4097 add + RMSNorm 0.90 -> 0.93 of copy); mean and sum kept their configs.
# bench/results/runs/tune-buckets-h200-round388/, memory-bound-h200-graphs-float32-norms-softmax-
# sum-mean-round388.json; bench/RESULTS.md "Rounds 387-392".
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round388
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/r388/tune /tmp/r388/table
for op in mean sum add_rms_norm rms_norm layer_norm softmax; do
    [ $(( $(date +%s) - start )) -gt 330 ] && { echo "tune $op: not run"; continue; }
    tune_op 90 $op float32 /tmp/r388/tune --buckets cols_le_16384 --knobs body_tile \
        --samples 0 --jobs 14
done
entries_pack_new
left=$(( 570 - ($(date +%s) - start) ))
if [ $left -gt 50 ]; then
    timeout $left python3 bench/memory_bound.py --ops mean,sum,add_rms_norm,rms_norm,layer_norm,softmax \
        --dtypes float32 --graphs --out /tmp/r388/table > /tmp/r388/table/stdout.txt 2>&1
    echo "table: rc $? after $(( $(date +%s) - start )) s"
    grep -E "4097" /tmp/r388/table/stdout.txt | head -20
fi
tar czf "$OUT/round388.tgz" -C /tmp r388
exit 0
