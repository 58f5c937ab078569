#!/usr/bin/env bash
# GPU round 204 (H100): argmax float16 over dim 1 at 32x4096x1024 reads 0.84 of the copy
# bandwidth with float32's inner_dim config, where bfloat16's config reads 0.95 in bfloat16: its
# inner_dim bucket re-tuned with 24 random configs and the other ops' (--siblings); GeGLU
# bfloat16's large shapes (0.98x torch.compile at 4096x10240 and 16x16384, served by its `any`
# config) tuned as float16's were in round 202; then the rows of both.
# Outcome (stop 34, 2026-11-24; runs/tune-buckets-h100-round204/): argmax float16 inner_dim kept
# its config (105.0, 53.8 and 19.3 us at its three shapes); the fastest at 32x4096x1024 (93.0 us,
# 0.95 of copy: bfloat16's 64-column tiles) took 23.8 us at 4x4099x1000, a lower geometric mean
# (1.90x against 1.96x min(eager, compile)), so 32x4096x1024 stays at 0.84 of copy
# (runs/memory-bound-h100-graphs-float16-argmax-round204.json). GeGLU bfloat16 cols_gt_4096 took
# config #24 (1.11.0): 8192x16384 263.4 -> 259.5 us, 4096x10240 83.9 -> 81.3 us, 16x16384 5.95
# -> 5.79 us against round 156's table (memory-bound-h100-graphs-bfloat16-geglu-round204.json:
# 1.00x, 1.004x and 0.956x torch.compile, whose 16x16384 read 5.54 us here against 5.82 there).
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
