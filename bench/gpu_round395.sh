#!/usr/bin/env bash
# GPU round 395 (H200; written 2026-11-29 after the session's device time was spent, run in the next session):
# `body_tile` for log-softmax, which rounds 388 and 391 did not sweep: 4096x4097 read 0.49 of
# copy in 16-bit (log_softmax 1.28.0; bfloat16 has no `cols_le_16384` config, its `any` one
# serves) where softmax's body_tile configs read 0.80. Sweeps `cols_le_16384` with
# `--knobs body_tile` in the three dtypes; then float32 LayerNorm's `cols_le_16384` with
# `--knobs edges_persist` again, on top of round 393's layer_norm 1.28.0 (round 394 swept it on
# 1.26.0, since its working tree lacked round 393's entries, and its 1.27.0 was not kept); then
# log-softmax's and LayerNorm's rows.
#     device run, no carry:  bash bench/gpu_round395.sh
# Outcome (2026-11-29, 235 s): log-softmax 16-bit 4096x4097 0.49 -> 0.79-0.80 of copy
# (log_softmax 1.30.0-1.32.0); float32 LayerNorm edges_persist promoted as layer_norm 1.29.0
# (39.1 against 39.9 us in the sweep).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round395
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/r395/tune
tune_pairs 360 110 /tmp/r395/tune "log_softmax:bfloat16 log_softmax:float16 log_softmax:float32" \
    --buckets cols_le_16384 --knobs body_tile --samples 0 --jobs 14
tune_pairs 420 110 /tmp/r395/tune "layer_norm:float32" \
    --buckets cols_le_16384 --knobs edges_persist --samples 0 --jobs 14
entries_pack_new
table_rows 570 /tmp/r395 log_softmax,layer_norm float32,bfloat16,float16
tar czf "$OUT/round395.tgz" -C /tmp r395
exit 0
