#!/usr/bin/env bash
# GPU round 214 (H100): the float16 and bfloat16 `cols_le_65536` buckets of RMSNorm, LayerNorm
# and AddRMSNorm re-tuned with the row_split variants (256x65536); then the three ops' rows of
# the memory-bound table in float32, float16 and bfloat16 (each dtype its own run and folder).
# Outcome (stop 35, 2026-11-24; runs/tune-buckets-h100-round214/): no row_split config won in
# float16 or bfloat16 (a 65536-wide row is 128 KB there, and the looped kernel's second pass finds
# it in L2); AddRMSNorm float16 and bfloat16 and LayerNorm bfloat16 took other served-variant
# configs (47.8 -> 47.2, 52.0 -> 46.8, 36.8 -> 33.5 us; add_rms_norm 1.18.0-1.19.0, layer_norm
# 1.16.0). Tables (memory-bound-h100-graphs-<dtype>-norms-round214.json), none wrong: float32
# 1.06x torch.compile, 256x65536 RMSNorm 0.82 of copy (1.29x), LayerNorm 0.69 (1.16x), AddRMSNorm
# 0.90 (1.19x); behind: RMSNorm 4096x4097 0.98x, three rows at 0.99-1.00x; float16 1.11x and
# bfloat16 1.11x, behind: LayerNorm and RMSNorm 16384x8192 at 1.00x; no large row under 90%.
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
