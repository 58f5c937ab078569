#!/usr/bin/env bash
# GPU round 214 (H100): the float16 and bfloat16 `cols_le_65536` buckets of RMSNorm, LayerNorm
# and AddRMSNorm re-tuned with the row_split variants (256x65536); then the three ops' rows of
# the memory-bound table in float32, float16 and bfloat16 (each dtype its own run and folder).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round214
. bench/gpu_lib.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/tune214
for dtype in float16 bfloat16; do
    for op in rms_norm layer_norm add_rms_norm; do
        tune_op 55 $op $dtype /tmp/tune214 --buckets cols_le_65536 --samples 0 --jobs 14
    done
done
tar czf "$OUT/tune-buckets.tgz" -C /tmp tune214
entries_pack_new
for dtype in float32 float16 bfloat16; do
    left=$(( 575 - ($(date +%s) - start) ))
    [ $left -gt 40 ] || break
    mkdir -p /tmp/tables214/$dtype
    timeout $(( left < 75 ? left : 75 )) python3 bench/memory_bound.py --graphs --dtypes $dtype \
        --ops rms_norm,layer_norm,add_rms_norm --out /tmp/tables214/$dtype 2>&1 \
        | grep -v -i warn | tail -14
    echo "table $dtype: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
done
tar czf "$OUT/tables.tgz" -C /tmp tables214
exit 0
