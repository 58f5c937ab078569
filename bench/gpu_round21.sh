#!/usr/bin/env bash
# GPU round 21: the attention bench, all four cases, at the template's default (round 20 had SDPA
# at 0.92x/0.91x on one machine where earlier runs had 0.88x/0.89-0.90x). Results go to $OUT.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
timeout 400 python3 bench/attention.py --out "$OUT" 2>&1 | grep -v -i warn | tail -6
