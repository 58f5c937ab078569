#!/usr/bin/env bash
# GPU round 67: every #5 task composed and timed again in one run, as round 56 did (3 trials
# each), with this session's changes: composed searches start from the zoo's tuned configs and try
# the known picks first, and the composed forward calls its groups directly.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 575 python3 bench/compose.py --trials 3 --budget 35 --profile --out /tmp/c67 2>&1 \
    | grep -v -i -E "warn|token auth" | tail -26
cp /tmp/c67/compose-h100.json "$OUT/compose-h100.json"
exit 0
