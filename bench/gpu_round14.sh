#!/usr/bin/env bash
# GPU round 14: the memory-bound zoo ops against eager and torch.compile after the launchers'
# host-time changes (plain host helpers instead of triton.cdiv/next_power_of_2), which had only
# been measured on the CPU. Results go to $OUT.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 560 python3 bench/memory_bound.py --dtypes bfloat16 --out "$OUT" 2>&1 | grep -v -i warn | tail -30
