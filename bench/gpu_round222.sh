#!/usr/bin/env bash
# GPU round 222 (H100): `kzoo zoo verify --newest` of the `cols_gt_65536` configs of softmax
# 1.19.0 and log-softmax 1.25.0 (round 221's row_ahead promotions) at every GPU shape of their
# tasks, then softmax's and log-softmax's rows of the memory-bound table in each dtype (each
# dtype its own file).
# Outcome (2026-11-24): every cols_gt_65536 config of softmax 1.19.0 and log-softmax 1.25.0
# correct at every GPU shape of its task (runs/zoo-verify-h100-round222/). Tables
# (memory-bound-h100-graphs-{float32,float16,bfloat16}-softmax-round222.json): none wrong, none
# behind torch.compile; float32 1.28x, 256x128256 at 0.92 of copy (softmax, 94.8 us) and 0.93
# (log-softmax, 93.4 us), 1.94-1.97x compile; the one float32 large row under 90% is log-softmax
# over dim 1 at 32x1000x1024 (0.87); float16 1.44x, bfloat16 1.48x, 256x128256 at 0.67-0.81.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round222
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mkdir -p /tmp/verify222 /tmp/tables222
for op in softmax log_softmax; do
    timeout 100 python3 -m agent zoo verify $op --newest --bucket cols_gt_65536 --json \
        > /tmp/verify222/zoo-verify-$op.json 2> /tmp/verify222/zoo-verify-$op.log
    echo "verify $op: exit $? after $(( $(date +%s) - start )) s"
done
tar czf "$OUT/verify.tgz" -C /tmp verify222
for dtype in float32 float16 bfloat16; do
    left=$(( 585 - ($(date +%s) - start) ))
    [ $left -gt 40 ] || break
    mkdir -p /tmp/tables222/$dtype
    timeout $(( left < 110 ? left : 110 )) python3 bench/memory_bound.py --graphs --dtypes $dtype \
        --ops softmax,log_softmax --out /tmp/tables222/$dtype 2>&1 | grep -v -i warn | tail -14
    echo "table $dtype: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
done
tar czf "$OUT/tables.tgz" -C /tmp tables222
exit 0
