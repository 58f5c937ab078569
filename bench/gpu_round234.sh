#!/usr/bin/env bash
# GPU round 234 (H100): SwiGLU and GeGLU in float32 at the cols_gt_4096 bucket (0.97-0.98x
# torch.compile at the large shapes in round 233's table; float32 was never tuned by
# bench/tune_buckets.py) with the served configs' variants (torch.compile's 1024-element blocks
# of 4 warps among them) and 8 random configs, promoting winners; kzoo zoo verify of what was
# promoted; their float32 table rows.
# Outcome (2026-11-24; runs/tune-buckets-h100-round234/): swiglu 1.5.0 (16 warps: 464.8 ->
# 458.6 us at 8192x14336, 0.973 -> 0.986x), geglu 1.12.0 (level); both verified
# (runs/zoo-verify-h100-round234/); torch.compile's launch shape, 1024 x 4 warps, was no faster
# here (458.4 us): see rounds 235-236.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round234
. bench/gpu_lib.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/tune234 /tmp/verify234 /tmp/tables234
for op in swiglu geglu; do
    tune_op 110 $op float32 /tmp/tune234 --buckets cols_gt_4096 --samples 8 --jobs 14
done
tar czf "$OUT/tune-buckets.tgz" -C /tmp tune234
entries_pack_new
for op in swiglu geglu; do
    timeout 30 python3 -m agent zoo verify $op --newest --dtype float32 --bucket cols_gt_4096 \
        --json > /tmp/verify234/zoo-verify-$op.json 2> /tmp/verify234/zoo-verify-$op.log
    echo "verify $op: exit $? after $(( $(date +%s) - start )) s"
done
tar czf "$OUT/verify.tgz" -C /tmp verify234
timeout 60 python3 bench/memory_bound.py --graphs --dtypes float32 --ops swiglu,geglu \
    --out /tmp/tables234 2>&1 | grep -v -i warn | tail -14
echo "table: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
tar czf "$OUT/tables.tgz" -C /tmp tables234
exit 0
