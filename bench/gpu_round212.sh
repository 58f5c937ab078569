#!/usr/bin/env bash
# GPU round 212 (H100): the softmax and log-softmax rows of the memory-bound table in float32,
# float16 and bfloat16, now that rounds 210-211 gave their 128256-wide rows the split-row kernel
# (each dtype one run, baselines beside it); then `kzoo zoo verify --newest` of the new entries
# at every GPU shape of their tasks.
# Outcome (stop 35, 2026-11-24): every dtype's run wrote the same file name (no dtype in it), so
# only bfloat16's table came back (memory-bound-h100-graphs-bfloat16-softmax-round212.json: 18
# rows, none wrong, none behind torch.compile, 1.46x; 256x128256 at 0.67 and 0.72 of copy, 1.67x
# and 1.78x compile). Printed for float32: 1.27x compile, none behind, 256x128256 at 0.81 (softmax)
# and 0.84 (log-softmax) of copy; float16: 1.42x, none behind. Round 213 re-ran those two tables.
# `kzoo zoo verify --newest`: softmax 1.17.0 (11 files) and log_softmax 1.20.0 (13) correct at
# every GPU shape of their tasks in every dtype (runs/zoo-verify-h100-round212/).
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
