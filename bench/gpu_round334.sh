#!/usr/bin/env bash
# GPU round 334 (H200): the rows furthest behind torch.compile in round 332's H200 tables, tuned on
# the H200 with bench/tune_buckets.py under the CUDA-graph timer, winners promoted: argmax float32
# (0.90x at 4099x1000, 0.92x at 8192x8192, the zoo's 0.77 of copy there), and RMSNorm at
# 16384x8192 (0.965x in all three dtypes; torch.compile at the copy bandwidth) and float32
# 8192x4096 (0.97x). Every entry so far was tuned on an H100. Then the two ops' table rows.
#     device run, carry [".gpu-slim"]:  bash bench/gpu_round334.sh
# Outcome (2026-11-28): argmax 1.18.0 (float32 cols_le_16384: 8192x8192 0.92x -> 1.13x,
# 0.77 -> 0.94 of copy; cols_le_1024 kept, best 0.98x); rms_norm 1.20.0 and 1.21.0 (float16 and
# float32 cols_le_16384: 4096x4097 1.24x -> 1.35x and 1.03x -> 1.15x; 16384x8192 unmoved at
# 0.965-0.970x, no config of the space reached torch.compile there); bfloat16 cols_le_16384 and
# float32 cols_le_4096 kept. 226 s. runs/tune-buckets-h200-round334/,
# memory-bound-h200-graphs-argmax-rms-norm-round334.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round334
. bench/gpu_lib.sh
slim_bundle_install
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/tune334 /tmp/tables334
tune_op 120 argmax float32 /tmp/tune334 --buckets cols_le_1024,cols_le_16384 --samples 8 --jobs 14
tune_op 100 rms_norm bfloat16 /tmp/tune334 --buckets cols_le_16384 --samples 8 --jobs 14
tune_op 100 rms_norm float16 /tmp/tune334 --buckets cols_le_16384 --samples 6 --jobs 14
tune_op 120 rms_norm float32 /tmp/tune334 --buckets cols_le_4096,cols_le_16384 --samples 6 --jobs 14
entries_pack_new
tar czf "$OUT/tune-buckets.tgz" -C /tmp tune334
left=$(( 565 - ($(date +%s) - start) ))
timeout $left python3 bench/memory_bound.py --graphs --dtypes float32,bfloat16,float16 \
    --ops rms_norm,argmax --out /tmp/tables334 2>&1 | grep -v -i warn | grep -E "x\"|geomean" | head -30
echo "table: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
tar czf "$OUT/tables.tgz" -C /tmp tables334
exit 0
