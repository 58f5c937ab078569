#!/usr/bin/env bash
# GPU round 357 (H200): the three norms' table rows in every dtype after round 356 promoted
# `align_edges` configs for their `cols_le_16384` bucket (add_rms_norm 1.23.0-1.25.0, rms_norm
# 1.32.0-1.33.0, layer_norm 1.19.0-1.21.0), timed as bench/memory_bound.py --graphs times them.
#     device run, no carry:  bash bench/gpu_round357.sh
# Outcome: bench/results/memory-bound-h200-graphs-{float32,bfloat16,float16}-norms-round357.json.
# At 4096x4097 (us, round 351/352's table -> this one): add + RMSNorm 80.7 -> 69.7 float32 (0.78
# -> 0.90 of copy; 1.04x -> 1.19x torch.compile), 55.1 -> 42.0 bfloat16, 56.5 -> 42.2 float16;
# RMSNorm 41.9 -> 38.7, 34.9 -> 30.5, 31.3 -> 31.0; LayerNorm 61.2 -> 55.6 float32, but 47.1 ->
# 57.7 bfloat16 and 47.2 -> 58.6 float16 (1.37-1.40x -> 1.12x torch.compile). Every other row
# within 1.5% of its earlier time. Rounds 358-360 looked for why the sweep and the table disagree
# on the LayerNorm file they replaced.
set -uo pipefail
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD
export KZOO_HOME=/tmp/kzoo-round357
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mkdir -p "$OUT/tables"
for dtype in float32 bfloat16 float16; do
    left=$(( 420 - ($(date +%s) - start) )); [ $left -lt 30 ] && break
    timeout $left python3 bench/memory_bound.py --graphs --dtypes $dtype \
        --ops add_rms_norm,rms_norm,layer_norm --out "$OUT/tables" 2>&1 | grep -v -i warn \
        | grep -E "GB/s|geomean|wrote" | grep -E "4097|geomean|wrote" | head -12
    echo "$dtype: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
done
exit 0
