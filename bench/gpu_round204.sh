#!/usr/bin/env bash
# GPU round 204 (H100): argmax float16 over dim 1 at 32x4096x1024 reads 0.84 of the copy
# bandwidth with float32's inner_dim config, where bfloat16's config reads 0.95 in bfloat16: its
# inner_dim bucket re-tuned with 24 random configs and the other ops' (--siblings); GeGLU
# bfloat16's large shapes (0.98x torch.compile at 4096x10240 and 16x16384, served by its `any`
# config) tuned as float16's were in round 202; then the rows of both.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round204
. bench/gpu_lib.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/tune204 /tmp/tables
tune_op 150 argmax float16 /tmp/tune204 --buckets inner_dim --samples 24 --jobs 14 --siblings
tune_op 130 geglu bfloat16 /tmp/tune204 --buckets cols_gt_4096 --samples 16 --jobs 14 --siblings
tar czf "$OUT/tune-buckets.tgz" -C /tmp tune204
entries_pack_new
timeout 90 python3 bench/memory_bound.py --graphs --dtypes float16 --ops argmax \
    --out /tmp/tables 2>&1 | grep -v -i warn | tail -8
timeout 90 python3 bench/memory_bound.py --graphs --dtypes bfloat16 --ops geglu \
    --out /tmp/tables 2>&1 | grep -v -i warn | tail -8
tar czf "$OUT/tables.tgz" -C /tmp tables
exit 0
