#!/usr/bin/env bash
# GPU round 362 (H200; written 2026-11-28 after the session's device time was spent, run the next):
# (1) where tensors lie: bench/probe_norm_placement.py times layer_norm 1.18.0's persistent-grid
# file (68 us in four harnesses, 47 in bench/memory_bound.py's table: rounds 356-360) with x at
# five offsets into one buffer; (2) the softmax template's align_edges through the verifier on
# the GPU; (3) softmax and log-softmax's `cols_le_16384` bucket (4096x4097 among it) re-tuned
# with align_edges' variants, float32 first, winners promoted; then their table rows.
#     device run, no carry:  bash bench/gpu_round362.sh
# Outcome (331 s): where x lies does not explain it: layer_norm 1.18.0's file took 68.3-68.6 us at
# five offsets (runs/probe-norm-placement-h200-round362.json); round 365 found the cause (the
# ptxas). align_edges' GPU tests passed (2). Promoted, cols_le_16384 (runs/tune-buckets-h200-
# round362/): softmax 1.21.0 float32 (37.0 -> 35.6 us at 4096x4097), 1.22.0 bfloat16 (32.8 ->
# 32.0), 1.23.0 float16 (32.6 -> 31.1), all align_edges; log_softmax 1.28.0 float16 (60.4 ->
# 32.2, not an align_edges config); log-softmax float32 and bfloat16 kept theirs. Table rows:
# memory-bound-h200-graphs-float32-softmax-round362.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round362
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
timeout 120 python3 bench/probe_norm_placement.py "$OUT" 2>&1 | grep -v -i warn | tail -8
timeout 150 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_templates_search.py \
    -k align_edges 2>&1 | tail -3
echo "probe and gpu tests after $(( $(date +%s) - start )) s"
mkdir -p /tmp/tune362 /tmp/tables362
for job in "softmax float32" "log_softmax float32" "softmax bfloat16" "log_softmax bfloat16" \
           "softmax float16" "log_softmax float16"; do
    set -- $job
    [ $(( $(date +%s) - start )) -gt 400 ] && break
    tune_op 60 $1 $2 /tmp/tune362 --buckets cols_le_16384 --knobs align_edges --samples 0 \
        --jobs 14
    entries_pack_new; tar czf "$OUT/tune-buckets.tgz" -C /tmp tune362
done
left=$(( 570 - ($(date +%s) - start) )); [ $left -lt 30 ] && left=1
timeout $left python3 bench/memory_bound.py --graphs --dtypes float32 --ops softmax,log_softmax \
    --out /tmp/tables362 2>&1 | grep -v -i warn | grep -E "4097|geomean|wrote" | head -8
tar czf "$OUT/tables.tgz" -C /tmp tables362
exit 0
