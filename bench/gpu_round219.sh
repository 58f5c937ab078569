#!/usr/bin/env bash
# GPU round 219 (H100): `kzoo zoo verify --newest` of log-softmax 1.22.0's `cols_gt_65536` configs
# (rounds 218's float32 and float16 promotions) at every GPU shape of its task; then log-softmax's
# rows of the memory-bound table in float32 and float16 (each dtype its own folder).
# Outcome (stop 35, 2026-11-24): log-softmax 1.22.0's cols_gt_65536 configs (3 dtypes) correct at
# every GPU shape (runs/zoo-verify-h100-round219/). memory-bound-h100-graphs-float32-log-softmax-
# round219.json: 9 rows, none wrong, none behind, 1.28x torch.compile, 256x128256 100.5 us, 0.86 of
# copy, 1.83x; float16 (memory-bound-h100-graphs-float16-log-softmax-round219.json): 1.36x,
# 256x128256 60.9 us, 0.71 of copy.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round219
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mkdir -p /tmp/verify219 /tmp/tables219
timeout 100 python3 -m agent zoo verify log_softmax --newest --bucket cols_gt_65536 --json \
    > /tmp/verify219/zoo-verify-log_softmax.json 2> /tmp/verify219/zoo-verify-log_softmax.log
echo "verify log_softmax: exit $? after $(( $(date +%s) - start )) s"
for dtype in float32 float16; do
    mkdir -p /tmp/tables219/$dtype
    timeout 80 python3 bench/memory_bound.py --graphs --dtypes $dtype --ops log_softmax \
        --out /tmp/tables219/$dtype 2>&1 | grep -v -i warn | tail -14
    echo "table $dtype: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
done
tar czf "$OUT/results.tgz" -C /tmp verify219 tables219
exit 0
