#!/usr/bin/env bash
# GPU round 419 (H200; 2026-11-29): round 418's step for two more float32 rows behind
# `torch.compile` at `cols_le_16384`: RMSNorm 16384x8192 (0.984x in the standing, 0.98x in round
# 414's table) and sum 4096x4097 (0.992x). `tune_buckets.py --local` around each served config,
# then the two ops' float32 rows. Sized to what the session had left (355 s).
#     device run, no carry:  BUDGET=300 bash bench/gpu_round419.sh
# Outcome (2026-11-29, 97 s): both kept their served configs (RMSNorm 142 sources, 255.1 us at
# 16384x8192 against `torch.compile`'s 251.9 in the sweep; sum 64 sources, 19.8 us at 4096x4097
# against 19.6). In the table, the same kernels: RMSNorm 16384x8192 0.990x, sum 4096x4097 0.992x
# (`memory-bound-h200-graphs-float32-rms-norm-sum-local-round419.json`).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round419
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
budget=${BUDGET:-300}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/r419/tune
tune_pairs 120 $(( budget / 3 )) /tmp/r419/tune "rms_norm:float32 sum:float32" \
    --buckets cols_le_16384 --samples 0 --jobs 14 --local
entries_pack_new
table_rows "$budget" /tmp/r419 rms_norm,sum float32
grep -E "16384x8192|4097" /tmp/r419/table/stdout.txt | head -8
tar czf "$OUT/round419.tgz" -C /tmp r419
exit 0
