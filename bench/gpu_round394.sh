#!/usr/bin/env bash
# GPU round 394 (H200; written 2026-11-29 after the session's device time was spent, NOT YET RUN):
# `edges_persist` sweeps (see gpu_round393.sh, which runs its GPU test first) of the buckets
# round 393 leaves: add + RMSNorm `cols_le_16384` in the three dtypes (4096x4097 at 0.88 of copy
# in 16-bit, 0.93 in float32, after round 391) and float32 LayerNorm (0.80) and RMSNorm (0.88);
# then those rows. Run after round 393 has passed its GPU test.
#     device run, no carry:  bash bench/gpu_round394.sh
# Outcome: not yet run.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round394
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/r394/tune /tmp/r394/table
for pair in add_rms_norm:bfloat16 add_rms_norm:float16 add_rms_norm:float32 \
            layer_norm:float32 rms_norm:float32; do
    op=${pair%%:*}; dtype=${pair##*:}
    [ $(( $(date +%s) - start )) -gt 420 ] && { echo "tune $op $dtype: not run"; continue; }
    tune_op 110 $op $dtype /tmp/r394/tune --buckets cols_le_16384 --knobs edges_persist \
        --samples 0 --jobs 14
done
entries_pack_new
left=$(( 570 - ($(date +%s) - start) ))
if [ $left -gt 40 ]; then
    timeout $left python3 bench/memory_bound.py --ops add_rms_norm,layer_norm,rms_norm \
        --dtypes float32,bfloat16,float16 --graphs --out /tmp/r394/table \
        > /tmp/r394/table/stdout.txt 2>&1
    echo "table: rc $? after $(( $(date +%s) - start )) s"
    grep -E "4097" /tmp/r394/table/stdout.txt | head -20
fi
tar czf "$OUT/round394.tgz" -C /tmp r394
exit 0
