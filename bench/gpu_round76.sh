#!/usr/bin/env bash
# GPU round 76: round 75's read flush failed two GPU tests. Diagnosis: softmax and row sums at
# 8-128 MB timed with a sleep before each call (L2 left warm), the read flush and the write flush;
# then `kzoo verify` on the shipped softmax entry, printing its reasons.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 120 python3 bench/diag_flush_round76.py 2>&1 | grep -v -i warn
timeout 200 python3 -m agent.cli verify --task tasks/softmax.py \
    --candidate kernel_zoo/entries/softmax/1.3.0/softmax_sm_90_bfloat16.py --dtype bfloat16 2>&1 | grep -v -i warn | tail -30
exit 0
