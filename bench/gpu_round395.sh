#!/usr/bin/env bash
# GPU round 395 (H200; written 2026-11-29 after the session's device time was spent, NOT YET RUN):
# `body_tile` for log-softmax, which rounds 388 and 391 did not sweep: 4096x4097 read 0.49 of
# copy in 16-bit (log_softmax 1.28.0; bfloat16 has no `cols_le_16384` config, its `any` one
# serves) where softmax's body_tile configs read 0.80. Sweeps `cols_le_16384` with
# `--knobs body_tile` in the three dtypes, then log-softmax's rows.
#     device run, no carry:  bash bench/gpu_round395.sh
# Outcome: not yet run.
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
entries_pack_new
table_rows 570 /tmp/r395 log_softmax float32,bfloat16,float16
tar czf "$OUT/round395.tgz" -C /tmp r395
exit 0
