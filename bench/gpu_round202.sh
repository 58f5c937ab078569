#!/usr/bin/env bash
# GPU round 202 (H100): the float32 and float16 rows furthest behind torch.compile in the
# combined tables (amax and amin float32 at 4096x4097 0.96x, SwiGLU float32 at the large shapes
# 0.97x, GeGLU float32 0.98x, GeGLU float16 0.94-0.98x), their buckets re-tuned with 16 random
# configs beside the served ones, their variants and (--siblings) those of the template's other
# ops; borrowing buckets (SwiGLU's, GeGLU's) are pinned before their neighbour changes.
# Outcome (stop 34, 2026-11-24; runs/tune-buckets-h100-round202/): amax, amin (27.1 and 88.5 us
# against torch.compile's 26.0 and 87.9) and SwiGLU float32 (464.3 us against 451.8 at
# 8192x14336, where both move more than the copy's 3.03 TB/s) kept the configs they had: no
# candidate beat them. GeGLU float32 cols_gt_4096 took config #22 (1.9.0; 16x16384 6.1 -> 5.5 us,
# the large shapes level; 0.97x compile by the verifier), its cols_le_4096 first pinned to the
# kernel it borrowed (1.8.0); GeGLU float16 cols_gt_4096 took config #19 (1.10.0; 265.3 -> 260.8
# and 84.1 -> 80.5 us; 1.00x compile by the verifier).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round202
. bench/gpu_lib.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/tune202
tune_op 110 amax float32 /tmp/tune202 --buckets cols_le_16384 --samples 16 --jobs 14 --siblings
tune_op 100 amin float32 /tmp/tune202 --buckets cols_le_16384 --samples 16 --jobs 14 --siblings
tune_op 110 swiglu float32 /tmp/tune202 --buckets cols_gt_4096 --samples 16 --jobs 14 --siblings
tune_op 100 geglu float32 /tmp/tune202 --buckets cols_gt_4096 --samples 16 --jobs 14 --siblings
left=$(( 560 - ($(date +%s) - start) ))
[ $left -gt 40 ] && tune_op $left geglu float16 /tmp/tune202 --buckets cols_gt_4096 \
    --samples 16 --jobs 14 --siblings
tar czf "$OUT/tune-buckets.tgz" -C /tmp tune202
entries_pack_new
exit 0
