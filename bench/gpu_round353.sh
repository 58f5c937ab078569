#!/usr/bin/env bash
# GPU round 353 (H200; written 2026-11-28 after the session's device time was spent; run in
# session 49): the 5 float32 rows that round 351's interleaved tables left behind torch.compile by more
# than 1%, each op's bucket re-tuned under the interleaved timer (every earlier search ran in
# blocks) with bench/tune_buckets.py (every variant and the served configs, winners promoted),
# then those ops' float32 table rows: GeGLU 16x16384 (cols_gt_4096, 0.977x), amin 32x4096x1024
# over dim 1 (inner_dim, 0.981x), RMSNorm 16384x8192 (cols_le_16384, 0.985x), mean 4096x4097
# (cols_le_16384, 0.989x), argmax 4099x1000 (cols_le_1024, 0.897x; 80 configs reached 0.94x in
# round 339, so last).
#     device run, no carry:  bash bench/gpu_round353.sh
# Outcome (run 2026-11-28, session 49): promoted amin 1.18.0 (inner_dim), mean 1.13.0
# (cols_le_16384), argmax 1.20.0 (cols_le_1024); GeGLU and RMSNorm kept their configs (the
# sweep's best was what they serve). Table rows
# (bench/results/memory-bound-h200-graphs-float32-reductions-geglu-rms-norm-round353.json, sweeps
# in runs/tune-buckets-h200-round353/): argmax 4099x1000 0.897x -> 0.947x, amin 32x4096x1024 over
# dim 1 0.981x -> 0.99x, mean 4096x4097 0.989x -> 0.987x, RMSNorm 16384x8192 0.985x -> 0.988x,
# GeGLU 16x16384 0.977x -> 0.988x. Round 354 timed argmax 4099x1000 at 1.010x torch.compile and at
# a copy of the same bytes' time: that row is launch-bound, and its ratio moves ~5% run to run.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round353
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/tune353 /tmp/tables353
for job in "geglu cols_gt_4096" "amin inner_dim" "rms_norm cols_le_16384" \
           "mean cols_le_16384" "argmax cols_le_1024"; do
    set -- $job
    tune_op 70 $1 float32 /tmp/tune353 --buckets $2 --samples 4 --jobs 14
    entries_pack_new; tar czf "$OUT/tune-buckets.tgz" -C /tmp tune353
done
left=$(( 560 - ($(date +%s) - start) )); [ $left -lt 30 ] && left=1
timeout $left python3 bench/memory_bound.py --graphs --dtypes float32 \
    --ops geglu,amin,rms_norm,mean,argmax --out /tmp/tables353 2>&1 | grep -v -i warn \
    | grep -E "GB/s|geomean|wrote" | head -40
echo "table: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
tar czf "$OUT/tables.tgz" -C /tmp tables353
exit 0
