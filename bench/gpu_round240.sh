#!/usr/bin/env bash
# GPU round 240 (H100): the whole float32 memory-bound table after round 237's SwiGLU and GeGLU
# promotions (min_per_thread). (Round 239 was one `kzoo zoo verify` call, geglu's bfloat16
# cols_gt_4096 config, run by hand:
# runs/zoo-verify-h100-round238/zoo-verify-geglu-bfloat16-cols_gt_4096-round239.log.)
# Outcome (2026-11-24): memory-bound-h100-graphs-float32-round240.json: 75 rows, none wrong,
# 1.130x torch.compile, 15 behind (argmax 4099x1000 0.96x, RMSNorm 4096x4097 0.98x, the rest
# 0.985x or more), no large row under 90% of copy. With round 238's: 225 rows at 1.210x, 28 behind.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round240
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mkdir -p /tmp/tables240
timeout 400 python3 bench/memory_bound.py --graphs --dtypes float32 --out /tmp/tables240 \
    2>&1 | grep -v -i warn | tail -30
echo "table float32: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
tar czf "$OUT/tables.tgz" -C /tmp tables240
exit 0
