#!/usr/bin/env bash
# GPU round 238 (H100): `kzoo zoo verify --newest` of swiglu and geglu (round 237's stopped at
# 50 s each; geglu 1.17.0 restores 1.14.0's bfloat16 and float16 cols_gt_4096 configs), then the
# whole bfloat16 and float16 memory-bound tables.
# Outcome (2026-11-24; run without the bundle: neither step imports optuna, ray or openai, and
# the tree with it passed the 64 MiB carry limit): swiglu 1.8.0 correct at every GPU shape; geglu
# 1.17.0 stopped at 110 s with 6 of 7 configs correct, the seventh (bfloat16 cols_gt_4096, the
# restored one) correct in a second call (round 239); runs/zoo-verify-h100-round238/. Tables:
# bfloat16 1.260x torch.compile, 7 behind (GeGLU 16x16384 0.94x, the rest 0.994x or more);
# float16 1.245x, 6 behind (0.979-1.000x); no large row under 90% of copy; none wrong.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round238
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mkdir -p /tmp/verify238 /tmp/tables238
for op in swiglu geglu; do
    timeout 110 python3 -m agent zoo verify $op --newest --json \
        > /tmp/verify238/zoo-verify-$op.json 2> /tmp/verify238/zoo-verify-$op.log
    echo "verify $op: exit $? after $(( $(date +%s) - start )) s"
done
tar czf "$OUT/verify.tgz" -C /tmp verify238
for dtype in bfloat16 float16; do
    left=$(( 585 - ($(date +%s) - start) ))
    timeout $left python3 bench/memory_bound.py --graphs --dtypes $dtype --out /tmp/tables238 \
        2>&1 | grep -v -i warn | tail -22
    echo "table $dtype: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
    tar czf "$OUT/tables.tgz" -C /tmp tables238
done
exit 0
