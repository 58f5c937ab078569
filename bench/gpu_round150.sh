#!/usr/bin/env bash
# GPU round 150 (H100): cross-entropy's misaligned rows read from 128-byte line starts
# (`row_align=128`: the body of a 50257-wide bf16 row starts at a line, up to 63 elements before
# it and after its last full line read apart), against the served params (16-byte starts), at
# rows that are misaligned (50257), 16-byte aligned (50256) and 128-byte aligned (50240). Round
# 143: aligned 50256 rows took 145.8 us of row kernel, misaligned 50257 151.2.
# Outcome (runs/probe-ce-rows-h100-round150.json): 3 GPU tests passed. 4099x50257: 158.4 us served,
# 154.7 from 128-byte lines (row kernel 150.7 -> 147.6); 4096x50256 153.6 -> 154.6 (kernel 144.7
# -> 146.8), so 16-byte aligned rows keep their path; 128-byte aligned 4096x50240 151.2 (kernel
# 143.7); the mean kernel 3.6-3.9 us (4.7-5.3 in rounds 143-144).
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 120 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_cross_entropy.py 2>&1 \
    | grep -E "FAILED|passed|failed|Error" | tail -5
timeout 400 python3 bench/probe_ce_rows.py --out "$OUT" 2>&1 | grep -v -i warn
exit 0
