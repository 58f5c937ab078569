#!/usr/bin/env bash
# GPU round 56: every Linear+epilogue and convolution+tail task (bench/compose.py's default
# list), searched (3 trials) and timed against eager and torch.compile in one run, with the
# kernels' profile; the record bench/results/compose-h100.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 570 python3 bench/compose.py --trials 3 --budget 35 --profile --out /tmp/c56 2>&1 \
    | grep -v -i -E "warn|token auth" | tail -20
cp /tmp/c56/compose-h100.json "$OUT/compose-h100.json"
