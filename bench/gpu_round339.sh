#!/usr/bin/env bash
# GPU round 339 (H200; written and run 2026-11-28): the float32 reductions that the H200 tables left
# behind torch.compile by more than 1% (round 332), none re-tuned on an H200 before: amin over
# dim 1 (inner_dim: 4x4099x1000 0.91x, 32x4096x1024 0.98x) and amax beside it, argmax
# 4099x1000 (cols_le_1024, 0.90-0.96x), sum and mean at 4099x1000 and 4096x4097 (0.99x); and
# RMSNorm float32 8192x4096 (cols_le_4096, 0.98x). bench/tune_buckets.py with every variant
# and the served configs, winners promoted; then those ops' float32 table rows.
#     device run, no carry:  bash bench/gpu_round339.sh
# Outcome (281 s): promoted amin 1.16.0 and amax 1.16.0 (float32 inner_dim: amin 4x4099x1000
# 0.91x -> 1.14x torch.compile), sum 1.12.0 and mean 1.11.0 (float32 cols_le_1024, 1.02x), rms_norm
# 1.23.0 (float32 cols_le_4096: 8192x4096 0.98x -> 1.00x). argmax float32 cols_le_1024: the best
# config 0.94x torch.compile, not promoted (4099x1000 stays 0.90x). sum and mean cols_le_16384
# kept theirs. runs/tune-buckets-h200-round339/, memory-bound-h200-graphs-float32-reductions-round339.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round339
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/tune339 /tmp/tables339
for job in "amin inner_dim" "amax inner_dim" "argmax cols_le_1024" \
           "sum cols_le_1024,cols_le_16384" "mean cols_le_1024,cols_le_16384" \
           "rms_norm cols_le_4096"; do
    set -- $job
    tune_op 65 $1 float32 /tmp/tune339 --buckets $2 --samples 4 --jobs 14
    entries_pack_new; tar czf "$OUT/tune-buckets.tgz" -C /tmp tune339
done
left=$(( 560 - ($(date +%s) - start) )); [ $left -lt 30 ] && left=1
timeout $left python3 bench/memory_bound.py --graphs --dtypes float32 \
    --ops amin,amax,argmax,sum,mean,rms_norm --out /tmp/tables339 2>&1 | grep -v -i warn \
    | grep -E "GB/s|geomean|wrote" | head -40
echo "table: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
tar czf "$OUT/tables.tgz" -C /tmp tables339
exit 0
