#!/usr/bin/env bash
# GPU round 401 (H200; written 2026-11-29 after the session's device time was spent, run the same day):
# `affine_table` and `edges_maxnreg` sweeps (see gpu_round400.sh, which runs their GPU test
# first) of the buckets round 400 leaves: add + RMSNorm `cols_le_16384` in the three dtypes and
# float32 LayerNorm and RMSNorm; then those rows. Run after round 400, with its entries in the
# tree (extract its entries.tgz and commit first: a tree without them promotes on top of the
# older versions, as round 394 did).
#     device run, no carry:  bash bench/gpu_round401.sh
# Outcome (run 2026-11-29, after round 400 with its entries in the tree): float32 LayerNorm took
# a config with tables and a cap of 80 that meets torch.compile at 16384x8192 (252.2 against
# 254.6 us) and is slower at 4096x4097 (40.7 against 39.5; layer_norm 1.32.0); add + RMSNorm
# and float32 RMSNorm kept their configs. bench/RESULTS.md, "Rounds 398-402".
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round401
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/r401/tune
pairs="add_rms_norm:bfloat16 add_rms_norm:float16 add_rms_norm:float32"
tune_pairs 400 75 /tmp/r401/tune "$pairs layer_norm:float32 rms_norm:float32" \
    --buckets cols_le_16384 --knobs affine_table,edges_maxnreg --samples 0 --jobs 14
entries_pack_new
table_rows 585 /tmp/r401 add_rms_norm,layer_norm,rms_norm float32,bfloat16,float16
tar czf "$OUT/round401.tgz" -C /tmp r401
exit 0
