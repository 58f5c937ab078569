#!/usr/bin/env bash
# GPU round 394 (H200; written 2026-11-29 after the session's device time was spent, run in the next session):
# `edges_persist` sweeps (see gpu_round393.sh, which runs its GPU test first) of the buckets
# round 393 leaves: add + RMSNorm `cols_le_16384` in the three dtypes (4096x4097 at 0.88 of copy
# in 16-bit, 0.93 in float32, after round 391) and float32 LayerNorm (0.80) and RMSNorm (0.88);
# then those rows. Run after round 393 has passed its GPU test.
#     device run, no carry:  bash bench/gpu_round394.sh
# Outcome (2026-11-29, 281 s): add + RMSNorm (3 dtypes) and float32 RMSNorm kept their served
# configs; float32 LayerNorm's winner (edges_persist) was promoted on layer_norm 1.26.0, this
# round's tree lacking round 393's entries, and not kept (round 395 swept it again).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round394
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/r394/tune
pairs="add_rms_norm:bfloat16 add_rms_norm:float16 add_rms_norm:float32"
tune_pairs 420 110 /tmp/r394/tune "$pairs layer_norm:float32 rms_norm:float32" \
    --buckets cols_le_16384 --knobs edges_persist --samples 0 --jobs 14
entries_pack_new
table_rows 570 /tmp/r394 add_rms_norm,layer_norm,rms_norm float32,bfloat16,float16
tar czf "$OUT/round394.tgz" -C /tmp r394
exit 0
