#!/usr/bin/env bash
# GPU round 224 (H100): `kzoo zoo verify --newest` of the `cols_le_65536` configs of rms_norm
# 1.19.0, layer_norm 1.18.0 and add_rms_norm 1.20.0 (round 223's row_ahead promotions) at every
# GPU shape of their tasks, then the whole float32 memory-bound table.
# Outcome (2026-11-24): the three entries' cols_le_65536 configs correct at every GPU shape of
# their tasks (runs/zoo-verify-h100-round224/). memory-bound-h100-graphs-float32-round224.json:
# 75 rows, none wrong, 1.125x torch.compile on the geomean (round 216: 1.117x); 22 rows behind
# (0.95-0.998x; GeGLU 16x16384 0.954x, amax/amin 4096x4097 0.96x); one large row under 90% of
# copy, log-softmax over dim 1 at 32x1000x1024 (0.86); softmax and log-softmax 256x128256 at
# 0.90 and 0.93, AddRMSNorm 256x65536 0.96, RMSNorm 0.91, LayerNorm 0.81.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round224
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mkdir -p /tmp/verify224 /tmp/tables224
for op in rms_norm layer_norm add_rms_norm; do
    timeout 100 python3 -m agent zoo verify $op --newest --bucket cols_le_65536 --json \
        > /tmp/verify224/zoo-verify-$op.json 2> /tmp/verify224/zoo-verify-$op.log
    echo "verify $op: exit $? after $(( $(date +%s) - start )) s"
done
tar czf "$OUT/verify.tgz" -C /tmp verify224
left=$(( 590 - ($(date +%s) - start) ))
timeout $left python3 bench/memory_bound.py --graphs --dtypes float32 --out /tmp/tables224 \
    2>&1 | grep -v -i warn | tail -40
echo "table float32: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
tar czf "$OUT/tables.tgz" -C /tmp tables224
exit 0
