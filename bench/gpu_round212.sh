#!/usr/bin/env bash
# GPU round 212 (H100): the softmax and log-softmax rows of the memory-bound table in float32,
# float16 and bfloat16, now that rounds 210-211 gave their 128256-wide rows the split-row kernel
# (each dtype one run, baselines beside it); then `kzoo zoo verify --newest` of the new entries
# at every GPU shape of their tasks.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round212
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mkdir -p /tmp/tables212 /tmp/verify212
for dtype in float32 float16 bfloat16; do
    timeout 110 python3 bench/memory_bound.py --graphs --dtypes $dtype --ops softmax,log_softmax \
        --out /tmp/tables212 2>&1 | grep -v -i warn | tail -22
    echo "table $dtype: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
done
tar czf "$OUT/tables.tgz" -C /tmp tables212
for dtype in float32 float16 bfloat16; do
    for op in softmax log_softmax; do
        left=$(( 570 - ($(date +%s) - start) ))
        [ $left -gt 30 ] || break
        timeout $(( left < 60 ? left : 60 )) python3 -m agent zoo verify $op --newest \
            --dtype $dtype --json > /tmp/verify212/zoo-verify-$op-$dtype.json \
            2> /tmp/verify212/zoo-verify-$op-$dtype.log
        echo "verify $op $dtype: exit $? after $(( $(date +%s) - start )) s"
    done
done
tar czf "$OUT/verify.tgz" -C /tmp verify212
exit 0
